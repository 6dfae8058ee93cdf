#!/bin/sh
# Build-time: open the cluster to the stack's network, create the ledger role and database,
# and load the production data (schema v1) as the ledger role.
set -eu
PGBIN=/usr/lib/postgresql/15/bin
CONF=/etc/postgresql/15/main
DATA=/var/lib/postgresql/15/main
echo "listen_addresses = '*'" >> "$CONF/postgresql.conf"
echo "host all all 0.0.0.0/0 scram-sha-256" >> "$CONF/pg_hba.conf"
su postgres -c "$PGBIN/pg_ctl -D $DATA -o '-c config_file=$CONF/postgresql.conf' -w start"
su postgres -c "psql -q -v ON_ERROR_STOP=1 -c \"CREATE ROLE ledger LOGIN CREATEDB PASSWORD 'ledger'\" -c 'CREATE DATABASE ledger OWNER ledger'"
{ echo "SET ROLE ledger;"; python3 /opt/ledger-db/ledgergen.py production; } \
  | su postgres -c "psql -q -v ON_ERROR_STOP=1 -d ledger" >/dev/null
su postgres -c "psql -q -d ledger -c 'ANALYZE'"
su postgres -c "$PGBIN/pg_ctl -D $DATA -w stop"
