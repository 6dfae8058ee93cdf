"""``python3 -m ledger ...``: see :mod:`ledger.cli`."""

import sys

from ledger.cli import main

sys.exit(main())
