#!/bin/sh
# Hidden verifier: generates seeded inputs, runs /app/heatwave.py, writes the scorecard.
exec python3 /tests/verify.py
