#!/bin/sh
# Hidden verifier: seeded study tables with duplicates, zero cells and single-trial subgroups.
exec python3 /tests/verify.py
