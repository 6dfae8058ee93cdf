"""Importers: CSV exports from the order system and the bank's statement files."""

import csv
import io


class ImportError_(ValueError):
    """A row of an import file cannot be used (the message names the line)."""


def read_csv(path, required):
    """Rows of a CSV file as dicts; checks the header has every ``required`` column."""
    with open(path, encoding="utf-8-sig", newline="") as handle:
        text = handle.read()
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in required if c not in (reader.fieldnames or [])]
    if missing:
        raise ImportError_(f"{path}: missing column(s) {', '.join(missing)}")
    rows = []
    for number, row in enumerate(reader, start=2):
        row["_line"] = number
        rows.append(row)
    return rows
