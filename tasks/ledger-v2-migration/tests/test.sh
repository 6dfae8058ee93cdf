#!/bin/sh
# Hidden verifier: the live database (nothing lost, June close), then the agent's migration
# tool on fresh seeded databases in a private PostgreSQL (messy cases, failures, re-runs).
exec python3 /tests/verify.py
