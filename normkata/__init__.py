"""normkata: interview practice on normalization layers, in the terminal."""

__version__ = "0.1.0"
