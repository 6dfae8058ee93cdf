#!/bin/sh
# Oracle: install the repaired modules, restart the running service, rebuild its state.
set -eu
# let the boot-time feeder deliver the spool first
for _ in $(seq 1 300); do
    [ -z "$(ls /var/spool/gridtel/incoming 2>/dev/null)" ] && break
    sleep 1
done
cp -r /solution/app/. /app/
kill "$(cat /run/gridtel.pid)"   # the supervisor restarts it with the new code
sleep 2
cd /app
for _ in $(seq 1 60); do curl -fsS http://127.0.0.1:8080/health >/dev/null 2>&1 && break; sleep 1; done
python3 -m tools.backfill
python3 /app/checks/public_checks.py
