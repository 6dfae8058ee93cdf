#!/bin/sh
# Oracle: install the repaired model package and run the public checks.
set -eu
cp /solution/adr/*.py /app/adr/
cd /app && python3 checks/public_checks.py
