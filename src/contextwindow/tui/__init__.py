"""contextwindow.tui"""
