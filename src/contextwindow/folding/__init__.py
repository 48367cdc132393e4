"""contextwindow.folding"""
