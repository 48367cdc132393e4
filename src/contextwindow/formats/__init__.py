"""contextwindow.formats"""
