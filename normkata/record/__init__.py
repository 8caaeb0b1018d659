"""The learner's record: one SQLite file, its migrations, kata attempts and export."""
