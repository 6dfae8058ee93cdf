"""Holdfast: an Othello-family board game with stones and anchored discs.

The package is the engine behind ``engine.py``: board geometry and notation
(:mod:`board`), the rules (:mod:`rules`, :mod:`game`, :mod:`scoring`), play
(:mod:`evaluate`, :mod:`search`, :mod:`book`, :mod:`endgame`, :mod:`player`),
the referee protocol (:mod:`protocol`) and a local tournament runner
(:mod:`tournament`). The rules themselves are in RULEBOOK.md.
"""

__version__ = "0.9.2"
