#!/bin/sh
# Oracle: install the finished migration (transactional runner, v2 rules), port the
# commands to schema v2, migrate the live database, file June's month-end deliverables.
set -eu
cp -r /solution/ledger/. /app/ledger/
cd /app
python3 -m ledger migrate
python3 -m ledger migrate   # a second run changes nothing
python3 -m ledger report month-end --month 2024-06 --out /app/out/month-end-2024-06
python3 /app/checks/public_checks.py
