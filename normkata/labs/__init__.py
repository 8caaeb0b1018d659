"""Labs: the source documents' experiments, run so the learner sees the phenomena.

Each lab module has `run(...) -> dict` (plain numbers, JSON-ready) and `render(console, result, lang)`
(`lang` comes from the command, in `LabOptions.lang` for the lab's own lines).
"""
