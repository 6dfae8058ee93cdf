"""Schema migrations: numbered files in ledger/migrations/, applied in order once each."""
