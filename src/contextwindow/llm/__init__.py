"""contextwindow.llm"""
