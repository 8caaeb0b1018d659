"""One module per command group; each imports only click at module level, so --help is fast."""
