#!/bin/sh
# Hidden verifier: generates seeded solver configs, runs /app/run.py, writes the scorecard.
exec python3 /tests/verify.py
