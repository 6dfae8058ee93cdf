#!/bin/sh
# Hidden verifier: plays /app/bot.py on seeded levels with its own referee, writes the scorecard.
exec python3 /tests/verify.py
