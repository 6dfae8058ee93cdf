"""Show what the recorder stage sees: python3 tools/wavinfo.py CASE_DIR_OR_WAV [--frames]

Lists the RIFF chunks, the format and INFO tags, per-channel levels and the
strongest frequency, then the key presses detected and the key log they make.
``--frames`` also prints the key heard in every analysis frame."""

import argparse
from pathlib import Path

import numpy as np

import _path  # noqa: F401

from fieldkit import config, dtmf
from fieldkit.clock import clock_seconds, format_clock
from fieldkit.keylog import parse_presses
from fieldkit.riff import listing
from fieldkit.spectrum import dominant_frequency, rms
from fieldkit.wav import read_wav


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path", help="a case directory or a .wav file")
    ap.add_argument("--frames", action="store_true", help="print the key of every analysis frame")
    args = ap.parse_args(argv)
    path = Path(args.path)
    if path.is_dir():
        path = path / "notes.wav"
    print(f"{path}:")
    for line in listing(path):
        print("  " + line)
    rate, channels, info = read_wav(path)
    print(f"rate {rate} Hz, {len(channels)} channel(s), {len(channels[0]) / rate:.2f} s, INFO {info}")
    for c, x in enumerate(channels):
        print(f"  channel {c}: rms {rms(x):.4f}, peak {float(np.max(np.abs(x))):.3f}, "
              f"dominant {dominant_frequency(x[: rate * 10], rate):.0f} Hz")
    for c, x in enumerate(channels):
        presses = dtmf.detect(x - np.mean(x), rate)
        print(f"channel {c}: {len(presses)} presses: " + " ".join(f"{k}@{t:.2f}" for t, k in presses))
        star, units = parse_presses(presses)
        print(f"  start mark {star}, units {units}")
        if args.frames:
            keys = dtmf.frame_keys(x - np.mean(x), rate)
            for i, k in enumerate(keys):
                if k is not None:
                    print(f"    {i * config.DTMF_STEP:8.3f} {k}")
    if "ICRD" in info:
        icrd = clock_seconds(info["ICRD"])
        star, _ = parse_presses(dtmf.detect(channels[0] - np.mean(channels[0]), rate))
        at_star = format_clock(icrd + star, 2) if star is not None else "-"
        print(f"recorder clock: {info['ICRD']} at the first sample, {at_star} at the start mark")


if __name__ == "__main__":
    main()
