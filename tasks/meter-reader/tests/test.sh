#!/bin/sh
# Hidden verifier: renders seeded meter images, runs /app/readmeter.py, writes the scorecard.
exec python3 /tests/verify.py
