"""A coding assistant beside the learner (`normkata mcp`): normkata's katas, grader, hints, solution
rule, quiz and standing as tools of a Model Context Protocol server.

`tutor` is what each tool does, in plain Python, by calling what the commands call (the
workbench, the grading client, the quiz's marking, the advisor): no second grading path and no
second store. `server` puts it on the protocol with the optional `mcp` SDK; only it imports the SDK.
"""
