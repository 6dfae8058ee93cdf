#!/bin/sh
# Oracle: install the repaired pipeline and run the public checks.
set -eu
cp /solution/fieldkit/*.py /app/fieldkit/
cp /solution/inspect_cases.py /app/inspect_cases.py
python3 /app/checks/public_checks.py
