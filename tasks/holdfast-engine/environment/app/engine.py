#!/usr/bin/env python3
"""Holdfast engine entry point: speaks the referee protocol on stdin/stdout."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from holdfast.protocol import serve  # noqa: E402

if __name__ == "__main__":
    serve()
