"""Question banks and interview cards: loading, validation and selection."""
