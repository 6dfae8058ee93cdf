#!/bin/sh
# Oracle: the reference port's modules replace the starter's (the rest of /app stays), then the public checks.
set -eu
cp -r /solution/pypak/. /app/pypak/
python3 /app/checks/public_checks.py
