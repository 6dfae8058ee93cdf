#!/bin/sh
# Oracle: install the repaired pipeline and run the public checks.
set -eu
cp -r /solution/app/. /app/
python3 /app/checks/public_checks.py
