#!/bin/sh
# Oracle: the fixed engine modules replace the starter's (the rest of /app stays), then the public checks.
set -eu
cp -r /solution/holdfast/. /app/holdfast/
python3 /app/checks/public_checks.py
