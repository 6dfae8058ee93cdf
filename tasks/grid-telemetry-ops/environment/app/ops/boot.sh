#!/bin/sh
# Container start-up: the supervised service, then the spool feeder, both in the background.
mkdir -p /var/log/gridtel
/app/ops/supervise.sh >>/var/log/gridtel/supervise.log 2>&1 &
/app/ops/feeder.sh >>/var/log/gridtel/feeder.log 2>&1 &
