"""Public checks: run the pipeline on the bundled cases and compare with cases/expected.json."""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

APP = Path(__file__).resolve().parent.parent


def close(got, want, key):
    if key.endswith("_offset_s"):
        return isinstance(got, (int, float)) and abs(got - want) <= 0.2
    if key == "events":
        return isinstance(got, list) and len(got) == len(want) and all(
            isinstance(a, dict) and a.get("unit") == b["unit"] and a.get("sensor") is b["sensor"]
            and isinstance(a.get("t"), (int, float)) and abs(a["t"] - b["t"]) <= 0.2 for a, b in zip(got, want))
    return got == want


def main():
    expected = json.loads((APP / "cases" / "expected.json").read_text())
    out = Path(tempfile.mkdtemp()) / "report.json"
    subprocess.run([sys.executable, str(APP / "inspect_cases.py"), str(APP / "cases"), "-o", str(out)], check=True)
    got = json.loads(out.read_text())["cases"]
    bad = 0
    for name, want in expected.items():
        entry = got.get(name, {})
        for key, value in want.items():
            if not close(entry.get(key), value, key):
                bad += 1
                print(f"{name}: {key}: got {entry.get(key)!r}, want {value!r}")
    print("public checks:", "PASS" if not bad else f"FAIL ({bad} fields)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
