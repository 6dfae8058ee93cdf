"""pypak: a pure-Python port of the legacy ``pak`` archiver."""

__version__ = "0.9.0"
