"""Practice: quizzes, interview cards, the mock interview and their FSRS schedule."""
