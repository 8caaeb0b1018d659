"""The terminal: console and prompts, shared options, names the learner types, wrapping."""
