"""The quiz engine: reading answers, marking them, and running a session."""
