"""The terminal front end: the chat REPL and the one-shot commands' output."""
