"""Make ``fieldkit`` importable when a tool is run as ``python3 tools/<tool>.py``."""

import sys
from pathlib import Path

APP = Path(__file__).resolve().parent.parent
if str(APP) not in sys.path:
    sys.path.insert(0, str(APP))
