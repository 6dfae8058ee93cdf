"""Provenance of a pipeline run: input file hashes, row counts, and the code version."""

import datetime as dt
import hashlib
import json
import platform
from pathlib import Path

PIPELINE_VERSION = "1.4.2"
RAW_FILES = ["patients.csv", "admissions_w1.csv", "admissions_w2.csv"]


def sha256(path, chunk=1 << 16):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while True:
            block = handle.read(chunk)
            if not block:
                break
            digest.update(block)
    return digest.hexdigest()


def line_count(path):
    with open(path, "rb") as handle:
        return sum(1 for _ in handle)


def describe_inputs(raw_dir):
    raw_dir = Path(raw_dir)
    out = {}
    for name in RAW_FILES:
        path = raw_dir / name
        if path.is_file():
            out[name] = {"sha256": sha256(path), "lines": line_count(path), "bytes": path.stat().st_size}
        else:
            out[name] = None
    return out


def manifest(raw_dir, outputs):
    return {
        "pipeline_version": PIPELINE_VERSION,
        "python": platform.python_version(),
        "created": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
        "inputs": describe_inputs(raw_dir),
        "outputs": sorted(str(p) for p in outputs),
    }


def write(path, raw_dir, outputs):
    Path(path).write_text(json.dumps(manifest(raw_dir, outputs), indent=2) + "\n")
