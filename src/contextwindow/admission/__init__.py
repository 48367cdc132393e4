"""contextwindow.admission"""
