#!/bin/sh
# Oracle: install the full v1/v2 decoder and run the public checks.
set -eu
cp /solution/dlg2csv.py /app/dlg2csv.py
python3 /app/checks/public_checks.py
