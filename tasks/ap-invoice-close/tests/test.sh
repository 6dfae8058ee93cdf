#!/bin/sh
# Hidden verifier: a seeded month of AP documents (e-mail invoices, duplicates, vendor controls, FX gaps).
exec python3 /tests/verify.py
