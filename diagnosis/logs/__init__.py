"""Reading job logs: the streaming scanner and its table of log signatures."""
