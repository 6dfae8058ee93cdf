#!/bin/sh
# Hidden verifier: seeded configurations run through /app/run.py, compared with /tests/ref.
exec python3 /tests/verify.py
