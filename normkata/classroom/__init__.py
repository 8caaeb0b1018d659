"""Grading a class: finding submissions, grading them in parallel, the gradebook, and the
Gradescope autograder bundle."""
