"""Compare two reports field by field: python3 tools/diffreport.py GOT.json WANT.json

Offsets and event times are compared to 0.2 s (as docs/PROCEDURE.md judges
them), everything else exactly. Prints one line per difference and a tally per
key; the exit status is 1 when anything differs."""

import argparse
import json
import sys
from collections import Counter

import _path  # noqa: F401

from fieldkit.schema import REPORT_KEYS

TOLERANCE = 0.2


def same(key, got, want):
    """Whether one report value matches the expected one."""
    if key.endswith("_offset_s"):
        return isinstance(got, (int, float)) and want is not None and abs(got - want) <= TOLERANCE
    if key == "events":
        if not isinstance(got, list) or len(got) != len(want):
            return False
        return all(isinstance(a, dict) and a.get("unit") == b["unit"] and a.get("sensor") is b["sensor"]
                   and isinstance(a.get("t"), (int, float)) and abs(a["t"] - b["t"]) <= TOLERANCE
                   for a, b in zip(got, want))
    return got == want


def differences(got, want):
    """``[(case, key, got value, wanted value)]`` for every mismatch."""
    out = []
    for name in sorted(want):
        entry = got.get(name)
        if not isinstance(entry, dict):
            out.append((name, "*", None, "an entry"))
            continue
        for key in REPORT_KEYS:
            if key in want[name] and not same(key, entry.get(key), want[name][key]):
                out.append((name, key, entry.get(key), want[name][key]))
    return out


def load(path):
    data = json.loads(open(path, encoding="utf-8").read())
    return data.get("cases", data) if isinstance(data, dict) else {}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("got")
    ap.add_argument("want")
    args = ap.parse_args(argv)
    diffs = differences(load(args.got), load(args.want))
    for name, key, g, w in diffs:
        print(f"{name}: {key}: got {g!r}, want {w!r}")
    tally = Counter(key for _, key, _, _ in diffs)
    print("no differences" if not diffs else "differences: " + ", ".join(f"{k} {n}" for k, n in tally.most_common()))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
