"""Prepare an AP payment run from an input folder (see /app/docs).

Usage: python3 close.py INPUT_DIR OUTPUT_DIR

Handover note: this replaces the spreadsheet the AP team used until last month.
Loading of the master data and the EDI (JSON) invoices is written; the policy
checks, payment terms, currency conversion and the deliverables are not.
"""

import csv
import json
import sys
from pathlib import Path


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def load(in_dir):
    in_dir = Path(in_dir)
    data = {
        "run": json.loads((in_dir / "run.json").read_text()),
        "vendors": read_csv(in_dir / "vendors.csv"),
        "purchase_orders": read_csv(in_dir / "purchase_orders.csv"),
        "receipts": read_csv(in_dir / "receipts.csv"),
        "fx_rates": read_csv(in_dir / "fx_rates.csv"),
        "invoices": [],
    }
    for path in sorted((in_dir / "invoices").glob("*.json")):
        invoice = json.loads(path.read_text())
        invoice["invoice_id"] = path.stem
        data["invoices"].append(invoice)
    return data


def main(in_dir, out_dir):
    data = load(in_dir)
    # TODO: apply docs/ap_policy.md and write the files described in docs/deliverables.md
    raise NotImplementedError(f"{len(data['invoices'])} invoices loaded; nothing processed yet")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
