#!/bin/sh
# Keep the service running: restart it whenever it exits (like a systemd unit with
# Restart=always). Its pid is in /run/gridtel.pid; `kill $(cat /run/gridtel.pid)`
# restarts it with the code currently in /app.
cd /app || exit 1
while true; do
    python3 -m gridtel.server >>/var/log/gridtel/service.log 2>&1 &
    echo $! >/run/gridtel.pid
    wait $!
    echo "$(date -u +%FT%TZ) gridtel exited with $?; restarting in 1 s"
    sleep 1
done
