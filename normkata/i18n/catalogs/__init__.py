"""The interface strings, one catalog per wing of the package (normkata.i18n gathers them)."""
