"""pypak (weak: just enough for the public checks: the sample formats, listing and extraction)."""

__version__ = "0.9.1"
