#!/bin/sh
# Oracle: install the finished payment-run tool and run the public checks.
set -eu
cp /solution/close.py /app/close.py
python3 /app/checks/public_checks.py
