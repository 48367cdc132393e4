"""contextwindow.compaction"""
