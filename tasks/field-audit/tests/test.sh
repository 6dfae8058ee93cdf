#!/bin/sh
# Hidden verifier: generates the seeded archive, runs /app/inspect_cases.py, writes the scorecard.
exec python3 /tests/verify.py
