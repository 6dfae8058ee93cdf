#!/bin/sh
# Deliver the gateways' spooled uploads once the service answers.
cd /app || exit 1
exec python3 -m tools.replay /var/spool/gridtel/incoming --wait --pause 0.05 \
    --move-to /var/spool/gridtel/sent --failed-to /var/spool/gridtel/failed
