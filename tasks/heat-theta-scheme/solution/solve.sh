#!/bin/sh
# Oracle: install the fixed solver package and run the public checks.
set -eu
cp /solution/heatsolve/*.py /app/heatsolve/
cp /solution/run.py /app/run.py
python3 /app/checks/public_checks.py
