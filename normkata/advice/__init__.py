"""Where the learner stands, what to do next, and what is wrong (doctor)."""
