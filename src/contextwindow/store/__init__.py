"""contextwindow.store"""
