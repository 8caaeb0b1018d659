"""The learner's loop, written once: start a kata, grade a file and keep the result, hints, the
solution, giving up, the next step, the plan, what is due, a quiz question and its check, an
interview card and its rating.

Every door calls it and only presents what it returns: the command line (normkata/commands/),
`watch`, `review --kata`, the MCP tutor (normkata/agent/) and the notebook. Results are data
(dataclasses and Actions), never sentences with commands inside: each door words them.
"""
