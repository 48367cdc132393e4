"""contextwindow.clipping"""
