"""contextwindow.tokens"""
