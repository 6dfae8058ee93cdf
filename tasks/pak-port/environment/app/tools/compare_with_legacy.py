"""Differential harness: run the legacy pak and the port on the same inputs.

    python3 /app/tools/compare_with_legacy.py FILE... [-- PAK-OPTIONS]

Creates an archive of FILE... with both tools (same options), then lists both
archives with both tools, and reports the first difference it sees. Started
during the port; it only covers ``c`` and ``l`` so far (no ``x``, ``t``,
damaged archives or error messages).
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

APP = Path(__file__).resolve().parent.parent
LEGACY = shutil.which("pak") or "/usr/local/bin/pak"


def run(tool, args, cwd):
    argv = [LEGACY] if tool == "legacy" else [sys.executable, str(APP / "pak.py")]
    proc = subprocess.run(argv + args, cwd=cwd, capture_output=True)
    return proc.returncode, proc.stdout, proc.stderr


def first_difference(a, b):
    for index, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return index
    return None if len(a) == len(b) else min(len(a), len(b))


def main(argv):
    if "--" in argv:
        split = argv.index("--")
        files, options = argv[:split], argv[split + 1:]
    else:
        files, options = argv, []
    if not files:
        sys.stderr.write(__doc__)
        return 64
    with tempfile.TemporaryDirectory() as tmp:
        for name in files:
            target = Path(tmp) / os.path.basename(name)
            shutil.copy2(name, target)
        names = [os.path.basename(name) for name in files]
        results = {}
        for tool in ("legacy", "port"):
            results[tool] = run(tool, ["c"] + options + [tool + ".pak"] + names, tmp)
        if results["legacy"][0] != results["port"][0]:
            print("create: exit status %d vs %d" % (results["legacy"][0], results["port"][0]))
            print("legacy stderr: %r" % results["legacy"][2])
            print("port stderr:   %r" % results["port"][2])
            return 1
        legacy = (Path(tmp) / "legacy.pak").read_bytes() if (Path(tmp) / "legacy.pak").exists() else b""
        port = (Path(tmp) / "port.pak").read_bytes() if (Path(tmp) / "port.pak").exists() else b""
        where = first_difference(legacy, port)
        if where is None:
            print("create: archives identical (%d bytes)" % len(legacy))
        else:
            print("create: archives differ at offset %d (legacy %d bytes, port %d bytes)"
                  % (where, len(legacy), len(port)))
            print("  legacy: %s" % legacy[where:where + 16].hex(" "))
            print("  port:   %s" % port[where:where + 16].hex(" "))
        if legacy:
            shutil.copy(Path(tmp) / "legacy.pak", Path(tmp) / "same.pak")
            listings = {tool: run(tool, ["l", "same.pak"], tmp) for tool in ("legacy", "port")}
            if listings["legacy"] == listings["port"]:
                print("list: identical")
            else:
                print("list: differs")
                for tool, (code, out, err) in listings.items():
                    print("--- %s (exit %d)" % (tool, code))
                    sys.stdout.write(out.decode("latin-1") + err.decode("latin-1"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
