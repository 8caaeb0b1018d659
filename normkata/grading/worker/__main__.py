"""`python -m normkata.grading.worker REQUEST_FD REPLY_FD`: a worker spawned cold (normkata.grading.launch)."""

from normkata.grading.worker.serve import main

main()
