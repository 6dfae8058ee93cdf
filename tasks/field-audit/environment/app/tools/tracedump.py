"""Show what the probe stage sees: python3 tools/tracedump.py CASE_DIR_OR_CSV [--plot] [--from S --to S]

Prints the trace summary, the pulses found (clock time, height over the
baseline, calibration or unit) and, with ``--plot``, a text plot of the
readings and the baseline (one line per reading in the chosen span)."""

import argparse
import math
from pathlib import Path

import numpy as np

import _path  # noqa: F401

from fieldkit import config
from fieldkit.align import ProbeTimeline
from fieldkit.clock import format_clock
from fieldkit.pulses import baseline, find_pulses, sample_period
from fieldkit.sensor import read_trace


def plot(trace, start, stop, width=70):
    """One text line per reading between ``start`` and ``stop`` seconds after the first reading."""
    good = [(t, v) for t, v in trace if not math.isnan(v)]
    if not good:
        return
    t = np.array([r[0] for r in good])
    v = np.array([r[1] for r in good])
    base = baseline(t, v)
    lo, hi = float(min(v.min(), base.min())), float(max(v.max(), base.max()))
    scale = (width - 1) / (hi - lo) if hi > lo else 1.0
    t0 = trace.rows[0][0]
    for ti, vi, bi in zip(t, v, base):
        if not start <= ti - t0 <= stop:
            continue
        row = [" "] * width
        row[int((bi - lo) * scale)] = "|"
        row[int((vi - lo) * scale)] = "*"
        print(f"{format_clock(ti, 2)} {vi:8.3f} {''.join(row)}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path", help="a case directory or a .csv file")
    ap.add_argument("--plot", action="store_true")
    ap.add_argument("--from", dest="start", type=float, default=0.0, help="plot from (s after the first reading)")
    ap.add_argument("--to", dest="stop", type=float, default=math.inf, help="plot up to (s)")
    args = ap.parse_args(argv)
    path = Path(args.path)
    if path.is_dir():
        path = path / "sensor.csv"
    trace = read_trace(path)
    print(f"{path}: {trace.summary()}")
    if len(trace) > 1:
        t = np.array([r[0] for r in trace])
        print(f"period {sample_period(t):.3f} s, from {format_clock(t[0], 3)} to {format_clock(t[-1], 3)}")
    pulses = find_pulses(trace)
    timeline = ProbeTimeline(pulses)
    for edge, height in pulses:
        kind = "calibration" if height >= config.CALIBRATION else "unit"
        print(f"  {format_clock(edge, 3)}  +{height:5.2f}  {kind}")
    print(f"unit pulses: {timeline.unit_count}, calibration at "
          f"{format_clock(timeline.calibration, 3) if timeline.calibration is not None else '-'}")
    if args.plot:
        plot(trace, args.start, args.stop)


if __name__ == "__main__":
    main()
