#!/bin/sh
# Oracle: install the reference implementation and run the public checks.
set -eu
cp /solution/heatwave.py /app/heatwave.py
python3 /app/checks/public_checks.py
