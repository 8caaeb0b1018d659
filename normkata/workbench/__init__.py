"""A learner working on katas: the watch loop and katas due for review."""
