"""Labs: the source documents' experiments, run so the learner sees the phenomena.

Each lab module has `run(...) -> dict` (plain numbers, JSON-ready) and `render(console, result)`.
"""
