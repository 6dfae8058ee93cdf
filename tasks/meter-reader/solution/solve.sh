#!/bin/sh
# Oracle: install the full reader and run the public checks.
set -eu
cp /solution/readmeter.py /app/readmeter.py
python3 /app/checks/public_checks.py
