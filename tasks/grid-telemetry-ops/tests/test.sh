#!/bin/sh
# Hidden verifier: a fresh instance of /app under seeded telemetry and restarts, then the live service.
exec python3 /tests/verify.py
