"""contextwindow.agent"""
