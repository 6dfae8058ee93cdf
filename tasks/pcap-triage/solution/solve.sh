#!/bin/sh
# Oracle: install the bounds-checked, hash-table-based pcapsum and run the public checks.
set -eu
rm -f /app/src/*.c /app/src/*.h
cp /solution/src/*.c /solution/src/*.h /app/src/
cp /solution/Makefile /app/Makefile
python3 /app/checks/public_checks.py
