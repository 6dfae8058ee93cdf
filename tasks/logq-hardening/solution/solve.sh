#!/bin/sh
# Oracle: install the hardened, linear-time logq and run the public checks.
set -eu
cp /solution/logq.py /app/logq.py
python3 /app/checks/public_checks.py
