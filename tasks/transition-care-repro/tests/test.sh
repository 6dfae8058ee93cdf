#!/bin/sh
# Hidden verifier: 40 seeded registry datasets through the agent's pipeline, compared with an
# independent reference; the discrepancy report against the bundled paper's planted errata.
exec python3 /tests/verify.py
