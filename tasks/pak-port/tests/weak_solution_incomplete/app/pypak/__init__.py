"""pypak (weak: a plausible but incomplete port: formats 1 and 2 with every method and
check, but no format 3, no keys and an lz match finder of its own)."""

__version__ = "0.9.0"
