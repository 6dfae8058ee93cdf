#!/bin/sh
# Hidden verifier: rules queries and seeded matches against /app/engine.py, writes the scorecard.
exec python3 /tests/verify.py
