#!/bin/sh
# Hidden verifier: builds /app/src twice (optimised, sanitized), replays seeded captures
# against the reference implementation, and races it on a large capture.
exec python3 /tests/verify.py
