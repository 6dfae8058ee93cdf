"""Field-inspection archive tools: forms, key logs, probe traces and the case report."""
