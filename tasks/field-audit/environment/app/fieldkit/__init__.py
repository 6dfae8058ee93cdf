"""Field-inspection archive tools: forms, key logs, probe traces and the case report."""

__version__ = "0.9.3"
