"""Consolidate a field-inspection archive: python3 inspect_cases.py ARCHIVE -o report.json"""

import argparse
import sys

from fieldkit import __version__
from fieldkit.archive import inspect_archive
from fieldkit.schema import dump_json, dump_report


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("archive", help="directory with one sub-directory per case")
    ap.add_argument("-o", "--output", required=True, help="where the report goes (JSON)")
    ap.add_argument("--case", action="append", metavar="NAME", help="only this case (repeatable)")
    ap.add_argument("--diagnostics", metavar="FILE", help="also write per-stage timings, warnings and errors")
    ap.add_argument("-v", "--verbose", action="store_true", help="tracebacks and warnings on stderr")
    ap.add_argument("--progress", action="store_true", help="one line per case on stderr")
    ap.add_argument("--version", action="version", version=f"fieldkit {__version__}")
    args = ap.parse_args(argv)
    try:
        cases, diagnostics = inspect_archive(args.archive, only=args.case, verbose=args.verbose,
                                             progress=args.progress)
    except FileNotFoundError as exc:
        print(f"inspect_cases: {exc}", file=sys.stderr)
        return 2
    dump_report(cases, args.output)
    if args.diagnostics:
        dump_json(diagnostics, args.diagnostics)
    return 0


if __name__ == "__main__":
    sys.exit(main())
