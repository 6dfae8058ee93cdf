#!/bin/sh
# Oracle: install the finished analysis, write the deliverable, run the public checks.
set -eu
cp /solution/reproduce.py /app/reproduce.py
python3 /app/reproduce.py --data /app/data --out /app/results/table2.csv
python3 /app/checks/public_checks.py
