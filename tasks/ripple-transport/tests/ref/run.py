#!/usr/bin/env python3
"""Run one configuration: python3 run.py CONFIG [-o result.npz] [--restart CKPT]."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from adr.driver import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
