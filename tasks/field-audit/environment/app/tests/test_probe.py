import math
import tempfile
import unittest
from pathlib import Path

from fieldkit.align import ProbeTimeline, sensor_offset
from fieldkit.crosscheck import reconcile
from fieldkit.pulses import find_pulses
from fieldkit.sensor import read_trace


def trace_text(pulses, period=0.1, length=30.0, base=2.0, t0=8 * 3600):
    """A clean comma-separated probe file: ``pulses`` are (start s, duration s, height)."""
    out, t = ["time,value"], 0.0
    while t < length:
        v = base + sum(h for p, d, h in pulses if p <= t < p + d)
        c = t0 + t
        out.append(f"{int(c // 3600):02d}:{int(c // 60 % 60):02d}:{c % 60:06.3f},{v:.3f}")
        t += period
    return "\n".join(out) + "\n"


class ProbeTest(unittest.TestCase):
    def setUp(self):
        self.path = Path(tempfile.mkdtemp()) / "sensor.csv"

    def test_read_trace(self):
        text = trace_text([], length=1.0) + "08:00:01.050,\n"
        self.path.write_text(text)
        trace = read_trace(self.path)
        self.assertEqual(len(trace), len(text.splitlines()) - 1)
        self.assertTrue(math.isnan(trace.rows[-1][1]))
        self.assertEqual(trace.missing, 1)

    def test_pulses_and_calibration(self):
        self.path.write_text(trace_text([(2.0, 1.0, 10.0), (6.0, 1.0, 4.0), (11.0, 1.2, 4.5)]))
        pulses = find_pulses(read_trace(self.path))
        self.assertEqual(len(pulses), 3)
        timeline = ProbeTimeline(pulses)
        self.assertAlmostEqual(timeline.calibration, 8 * 3600 + 2.0, delta=0.11)
        self.assertEqual([round(t) for t in timeline.unit_times()], [4, 9])
        self.assertAlmostEqual(sensor_offset(8 * 3600 + 1.5, timeline), 0.5, delta=0.11)

    def test_reconcile_all_confirmed(self):
        events, confirmed, flags = reconcile(2, [(1, 4.0), (2, 9.0)], [4.2, 9.1])
        self.assertEqual(confirmed, 2)
        self.assertEqual(flags, [])
        self.assertEqual([e["sensor"] for e in events], [True, True])

    def test_reconcile_gap_and_unconfirmed(self):
        events, confirmed, flags = reconcile(2, [(1, 4.0), (3, 20.0)], [4.2])
        self.assertEqual(confirmed, 1)
        self.assertIn("AUDIO_ONLY:3", flags)
        self.assertIn("SEQUENCE_GAP:2", flags)


if __name__ == "__main__":
    unittest.main()
