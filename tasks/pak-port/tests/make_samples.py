"""Maintainer tool: rebuild environment/app/samples/ with the reference pak.

    gcc -O2 -o /tmp/pak environment/legacy/pak.c
    python3 tests/make_samples.py /tmp/pak

Writes each public sample archive, its listing (``NAME.list``) and its
extracted tree (``NAME.d/``) with the extraction's stdout (``NAME.x``).
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases  # noqa: E402
from verify import write_files  # noqa: E402

SAMPLES = HERE.parent / "environment" / "app" / "samples"


def main(reference):
    shutil.rmtree(SAMPLES, ignore_errors=True)
    SAMPLES.mkdir(parents=True)
    for name, (files, build) in cases.public_samples().items():
        with tempfile.TemporaryDirectory() as tmp:
            write_files(Path(tmp), files)
            argv = [str(SAMPLES / name) if a == "@OUT" else a for a in build]
            subprocess.run([reference] + argv, cwd=tmp, check=True, capture_output=True)
        listing = subprocess.run([reference, "l", name], cwd=SAMPLES, check=True, capture_output=True)
        (SAMPLES / (name[:-4] + ".list")).write_bytes(listing.stdout)
        extracted = subprocess.run([reference, "x", name, name[:-4] + ".d"], cwd=SAMPLES, check=True,
                                   capture_output=True)
        (SAMPLES / (name[:-4] + ".x")).write_bytes(extracted.stdout)
    for root, dirs, names in os.walk(SAMPLES):
        for entry in dirs:
            os.chmod(os.path.join(root, entry), 0o755)


if __name__ == "__main__":
    main(sys.argv[1])
