#!/bin/sh
# Hidden verifier: compares /app/pak.py with the reference pak on seeded cases, writes the scorecard.
exec python3 /tests/verify.py
