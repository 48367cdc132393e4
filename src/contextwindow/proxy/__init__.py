"""contextwindow.proxy"""
