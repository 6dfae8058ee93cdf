#!/bin/sh
# Oracle: install the complete port over the starter and run the public checks.
set -eu
rm -rf /app/pypak
cp -r /solution/pypak /app/pypak
cp /solution/pak.py /app/pak.py
python3 /app/checks/public_checks.py
