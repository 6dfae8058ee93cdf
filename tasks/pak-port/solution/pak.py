"""Entry point: python3 /app/pak.py c|l|x|t ... (behaves like the legacy pak binary)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pypak.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
