"""Consolidate a field-inspection archive: python3 inspect_cases.py ARCHIVE -o report.json"""

import argparse
import json
import sys
import traceback
from pathlib import Path

from fieldkit.report import case_report


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("archive")
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args(argv)
    cases = {}
    for case_dir in sorted(p for p in Path(args.archive).iterdir() if p.is_dir()):
        try:
            cases[case_dir.name] = case_report(case_dir)
        except Exception:
            print(f"{case_dir.name}: failed", file=sys.stderr)
            traceback.print_exc()
            cases[case_dir.name] = {"error": "unreadable case"}
    Path(args.output).write_text(json.dumps({"cases": cases}, indent=1))


if __name__ == "__main__":
    main()
