#!/bin/sh
# Hidden verifier: seeded logs, injection payloads and a timing race against the shipped logq.
exec python3 /tests/verify.py
