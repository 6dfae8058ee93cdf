#!/bin/sh
# Hidden verifier: writes seeded DLG files, runs /app/dlg2csv.py, writes the scorecard.
exec python3 /tests/verify.py
