"""Show where two binary files differ, with hex context.

    python3 /app/tools/hexdiff.py A B [--context N] [--max M]

Lists up to M differing regions (default 10) with N bytes of context
(default 8) on each side. Useful for comparing the port's archives with the
legacy tool's.
"""

import sys


def regions(a, b):
    """(start, end) ranges where a and b differ; a length difference is a final region."""
    found = []
    start = None
    for index in range(min(len(a), len(b))):
        if a[index] != b[index]:
            if start is None:
                start = index
        elif start is not None:
            found.append((start, index))
            start = None
    if start is not None:
        found.append((start, min(len(a), len(b))))
    if len(a) != len(b):
        found.append((min(len(a), len(b)), max(len(a), len(b))))
    return found


def show(label, data, start, end, context):
    lo = max(0, start - context)
    hi = min(len(data), end + context)
    cells = []
    for index in range(lo, hi):
        cell = "%02x" % data[index]
        cells.append("[" + cell + "]" if start <= index < end else cell)
    return "  %-6s %08x: %s" % (label, lo, " ".join(cells))


def main(argv):
    args = list(argv)
    context, limit = 8, 10
    if "--context" in args:
        where = args.index("--context")
        context = int(args[where + 1])
        del args[where:where + 2]
    if "--max" in args:
        where = args.index("--max")
        limit = int(args[where + 1])
        del args[where:where + 2]
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 64
    with open(args[0], "rb") as handle:
        a = handle.read()
    with open(args[1], "rb") as handle:
        b = handle.read()
    diffs = regions(a, b)
    if not diffs:
        print("identical (%d bytes)" % len(a))
        return 0
    print("%d differing region(s); sizes %d and %d" % (len(diffs), len(a), len(b)))
    for start, end in diffs[:limit]:
        print("offset %d (0x%x), %d byte(s)" % (start, start, end - start))
        print(show("A", a, start, end, context))
        print(show("B", b, start, end, context))
    if len(diffs) > limit:
        print("... %d more" % (len(diffs) - limit))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
