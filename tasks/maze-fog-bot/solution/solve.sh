#!/bin/sh
# Oracle: install the frontier-exploration bot and run the public checks.
set -eu
cp /solution/bot.py /app/bot.py
python3 /app/checks/public_checks.py
