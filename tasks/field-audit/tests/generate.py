"""Seeded field-inspection archive generator (the bundled samples and the hidden cases).

A case is a directory with form.pgm (scanned form), notes.wav (DTMF key log) and
sensor.csv (probe trace). ``expected(truth)`` is the report entry the procedure asks for."""

import io
import math
import random
import struct
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ID_CHARS = "ABCDEFGHJKLMNPRSTUVWXYZ23456789"
ROWS = (697.0, 770.0, 852.0, 941.0)
COLS = (1209.0, 1336.0, 1477.0, 1633.0)
KEYS = ("123A", "456B", "789C", "*0#D")


def load_font(path=HERE / "font5x7.txt"):
    font, cur = {}, None
    for line in path.read_text().splitlines():
        if line.startswith("glyph "):
            cur = line[6:].strip()
            font[cur] = []
        elif cur is not None and line and line[0] in ".#":
            font[cur].append([c == "#" for c in line])
    return {k: np.array(v, dtype=bool) for k, v in font.items()}


FONT = load_font()


def hms(sec):
    sec = int(round(sec))
    return f"{sec // 3600:02d}:{sec // 60 % 60:02d}:{sec % 60:02d}"


# ---------------------------------------------------------------- form
def render_form(rng, truth, knobs):
    s = knobs["scale"]
    lines = ["FIELD INSPECTION", f"CASE {truth['case_id']}", f"SITE {truth['site']}",
             f"START {hms(truth['start'])}", f"UNITS {truth['form_units']}", f"INSP {truth['inspector']}"]
    if knobs.get("shuffle"):
        body = lines[1:]
        rng.shuffle(body)
        lines = [lines[0], *body]
    width = max(len(t) for t in lines) * 6 * s
    mx, my = rng.randint(6, 30) * s // 2 + 4 * s, rng.randint(6, 30) * s // 2 + 4 * s
    H, W = my * 2 + len(lines) * 12 * s, mx * 2 + width + rng.randint(0, 40)
    ink = np.zeros((H, W), dtype=bool)
    for li, text in enumerate(lines):
        y0 = my + li * 12 * s
        for ci, ch in enumerate(text):
            if ch == " ":
                continue
            g = np.kron(FONT[ch], np.ones((s, s), dtype=bool))
            x0 = mx + ci * 6 * s
            ink[y0:y0 + 7 * s, x0:x0 + 5 * s] |= g
    if knobs.get("frame"):
        t = max(1, s // 2)
        fy0, fx0 = my - 3 * s, mx - 3 * s
        fy1, fx1 = my + len(lines) * 12 * s - 2 * s, mx + width + 2 * s
        ink[fy0:fy0 + t, fx0:fx1] = True
        ink[fy1 - t:fy1, fx0:fx1] = True
        ink[fy0:fy1, fx0:fx0 + t] = True
        ink[fy0:fy1, fx1 - t:fx1] = True
        sep = my + 12 * s - 3 * s
        ink[sep:sep + t, fx0:fx1] = True
    paper, dark = knobs["paper"], knobs["ink"]
    img = np.where(ink, float(dark), float(paper))
    if knobs.get("gradient"):
        yy, xx = np.mgrid[0:H, 0:W]
        img = img - knobs["gradient"] * (xx / W + yy / H) / 2
    nr = np.random.default_rng(rng.randrange(1 << 30))
    img = img + nr.normal(0, knobs["sigma"], img.shape)
    sp = knobs["saltpepper"]
    if sp:
        m = nr.random(img.shape)
        img[m < sp / 2] = 0
        img[(m >= sp / 2) & (m < sp)] = 255
    if knobs.get("stamp"):
        r = rng.randint(3, 6) * s
        cy, cx = rng.randint(0, H - 1), W - r - rng.randint(1, 10)
        yy, xx = np.mgrid[0:H, 0:W]
        ring = np.abs(np.hypot(yy - cy, xx - cx) - r) < max(1, s // 2)
        img[ring & ~ink] = (paper + dark) / 2 + 20
    img = np.clip(img, 0, 255).astype(np.uint8)
    img = np.rot90(img, knobs["rot"])
    if knobs.get("invert"):
        img = 255 - img
    h, w = img.shape
    if knobs.get("ascii"):
        out = io.StringIO()
        out.write(f"P2\n# scanned {truth['case_id']}\n{w} {h}\n255\n")
        for row in img:
            out.write(" ".join(str(int(v)) for v in row) + "\n")
        return out.getvalue().encode()
    return f"P5\n# scanner FS-{rng.randint(100, 999)}\n{w} {h}\n255\n".encode() + img.tobytes()


# ---------------------------------------------------------------- audio
def key_freqs(key):
    for r, row in enumerate(KEYS):
        if key in row:
            return ROWS[r], COLS[row.index(key)]
    raise KeyError(key)


def render_wav(rng, truth, knobs):
    rate = knobs["rate"]
    dur = truth["audio_keys"][-1][0] + 1.5
    n = int(dur * rate)
    nr = np.random.default_rng(rng.randrange(1 << 30))
    sig = nr.normal(0, knobs["noise"], n)
    if knobs.get("hum"):
        t = np.arange(n) / rate
        sig += knobs["hum"] * np.sin(2 * np.pi * 50 * t) + knobs["hum"] / 3 * np.sin(2 * np.pi * 150 * t)
    for onset, key, length in truth["audio_keys"]:
        f1, f2 = key_freqs(key)
        i0, i1 = int(round(onset * rate)), int(round((onset + length) * rate))
        t = np.arange(i1 - i0) / rate
        amp = knobs["amp"] * rng.uniform(0.7, 1.0)
        sig[i0:i1] += amp * (np.sin(2 * np.pi * f1 * t + rng.random() * 6) +
                             knobs["twist"] * np.sin(2 * np.pi * f2 * t + rng.random() * 6))
    sig = np.clip(sig, -0.98, 0.98)
    ch = knobs["channels"]
    if ch == 2:
        other = sig * 0.3 + nr.normal(0, knobs["noise"], n)
        frames = np.stack([sig, other], axis=1) if knobs.get("left") else np.stack([other, sig], axis=1)
    else:
        frames = sig[:, None]
    if knobs["bits"] == 8:
        data = np.clip(np.round(frames * 127 + 128), 0, 255).astype(np.uint8).tobytes()
    else:
        data = np.clip(np.round(frames * 32767), -32768, 32767).astype("<i2").tobytes()
    block = ch * knobs["bits"] // 8
    fmt = struct.pack("<HHIIHH", 1, ch, rate, rate * block, block, knobs["bits"])
    icrd = hms(truth["icrd"]).encode() + b"\0"
    info = b"INFO" + b"ICRD" + struct.pack("<I", len(icrd)) + icrd + (b"\0" if len(icrd) % 2 else b"")
    isft = b"FieldNotes 2.3\0"
    info += b"ISFT" + struct.pack("<I", len(isft)) + isft + (b"\0" if len(isft) % 2 else b"")

    def chunk(tag, body):
        return tag + struct.pack("<I", len(body)) + body + (b"\0" if len(body) % 2 else b"")

    chunks = [chunk(b"fmt ", fmt)]
    if knobs.get("junk"):
        chunks.append(chunk(b"JUNK", bytes(rng.randrange(3, 60))))
    if knobs.get("list_after"):
        chunks += [chunk(b"data", data), chunk(b"LIST", info)]
    else:
        chunks += [chunk(b"LIST", info), chunk(b"data", data)]
    body = b"WAVE" + b"".join(chunks)
    return b"RIFF" + struct.pack("<I", len(body)) + body


# ---------------------------------------------------------------- sensor
def render_csv(rng, truth, knobs):
    period = knobs["period"]
    t_end = truth["audio_keys"][-1][0] - truth["lead"] + 3.0   # reference seconds after START
    t = -truth["lead"] - 1.0
    pulses = [(0.0, 1.0, 10.0)] + [(p, d, a) for p, d, a in truth["sensor_pulses"]]
    glitches = truth["glitches"]
    drops = truth["dropouts"]
    rows = []
    phase = rng.random() * 6
    while t < t_end:
        tj = t + rng.uniform(-0.01, 0.01)
        base = knobs["base"] + knobs["drift"] * (tj / 60.0) + knobs["wobble"] * math.sin(tj / 9.0 + phase)
        v = base + rng.gauss(0, knobs["vnoise"])
        for p0, d, a in pulses:
            if p0 <= tj < p0 + d:
                v += a
        for g in glitches:
            if abs(tj - g) < period / 2:
                v += 9.0
        kind = "ok"
        for d0, d1, dk in drops:
            if d0 <= tj < d1:
                kind = dk
        clock = truth["start"] + truth["sensor_offset"] + tj
        if kind == "gap":
            pass
        elif kind == "bad":
            rows.append((clock, rng.choice(["ERR", "nan", "", "-9999"])))
        else:
            rows.append((clock, v))
        t += period
    sep = knobs["sep"]
    out = []
    if knobs.get("comments"):
        out.append(f"# probe SN{rng.randint(10000, 99999)} fw 3.{rng.randint(0, 9)}")
        out.append(f"# units: mV{sep} clock: probe local")
    out.append(sep.join(["time", "reading"]) if sep == ";" else "time,value")
    for i, (clock, v) in enumerate(rows):
        hh, rem = divmod(clock, 3600)
        mm, ss = divmod(rem, 60)
        ts = f"{int(hh):02d}:{int(mm):02d}:{ss:06.3f}"
        val = f"{v:.3f}" if isinstance(v, float) else v
        if isinstance(v, float) and knobs.get("comma"):
            val = val.replace(".", ",")
        out.append(f"{ts}{sep}{val}")
        if knobs.get("header_repeat") and i == len(rows) // 2:
            out.append(out[2] if knobs.get("comments") else out[0])
    return ("\r\n" if knobs.get("crlf") else "\n").join(out).encode() + b"\n"


# ---------------------------------------------------------------- case
def make_truth(rng, level, conflicts):
    start = rng.randint(7 * 3600, 17 * 3600)
    n = rng.randint(5, 9) if level == 0 else rng.randint(6, 14)
    numbers = list(range(1, n + 1))
    if "skip" in conflicts:
        del numbers[rng.randrange(1, n - 1)]
    lead = rng.uniform(1.0, 3.0)
    audio_offset = round(rng.uniform(-150, 150), 2)
    # recorder clock at sample 0 is an integer second: nudge the lead to make it so
    rec0 = start + audio_offset - lead
    icrd = math.floor(rec0)
    lead = start + audio_offset - icrd
    keys, times, t = [], [], lead
    keys.append((t, "*", rng.uniform(0.08, 0.12)))
    t += rng.uniform(2.5, 4.0)
    for u in numbers:
        times.append(t - lead)
        c = t
        for ch in f"{u}#":
            length = rng.uniform(0.07, 0.11)
            keys.append((c, ch, length))
            c += length + rng.uniform(0.06, 0.1)
        t += rng.uniform(2.6, 5.0)
    delays = [rng.uniform(0.1, 0.4) for _ in times]
    pulses = [(tm + dl, rng.uniform(0.8, 1.5), rng.uniform(3.5, 5.0)) for tm, dl in zip(times, delays)]
    matched = [True] * len(numbers)
    drops = []
    if "lost_pulse" in conflicts:
        i = rng.randrange(len(pulses))
        p0, d, _ = pulses[i]
        drops.append((p0 - 0.4, p0 + d + 0.4, rng.choice(["gap", "bad"])))
        matched[i] = False
    extra = []
    if "stray_pulse" in conflicts:
        i = rng.randrange(len(times) - 1)
        mid = (times[i] + times[i + 1]) / 2 + 0.3
        if times[i + 1] - times[i] > 3.6:
            extra.append((mid, rng.uniform(0.8, 1.2), rng.uniform(3.5, 5.0)))
    # harmless dropouts and glitches away from every pulse
    busy = [(p - 1.0, p + d + 1.0) for p, d, _ in pulses + extra] + [(-1.0, 2.0)]
    glitches = []
    for _ in range(0 if level == 0 else rng.randint(2, 6)):
        for _try in range(20):
            a = rng.uniform(2.0, times[-1])
            w = rng.uniform(0.3, 2.5)
            if all(a + w < b0 or a > b1 for b0, b1 in busy):
                drops.append((a, a + w, rng.choice(["gap", "bad"])))
                busy.append((a - 0.5, a + w + 0.5))
                break
        g = rng.uniform(2.0, times[-1])
        if all(g + 0.3 < b0 or g - 0.3 > b1 for b0, b1 in busy):
            glitches.append(g)
    form_units = len(numbers)
    if "form_count" in conflicts:
        form_units += rng.choice([-2, -1, 1, 2])
    cid = "".join(rng.choice(ID_CHARS) for _ in range(rng.randint(5, 7)))
    return {
        "case_id": cid, "site": f"{rng.randint(1, 9999):04d}", "inspector": "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(2)),
        "start": start, "form_units": form_units, "lead": lead, "icrd": icrd,
        "audio_offset": audio_offset, "sensor_offset": round(rng.uniform(-400, 400), 3),
        "audio_keys": keys, "numbers": numbers, "times": times, "matched": matched,
        "sensor_pulses": [p for p, ok in zip(pulses, matched)] + extra, "extra": len(extra),
        "glitches": glitches, "dropouts": drops,
    }


def make_knobs(rng, level):
    if level == 0:
        return {
            "form": {"scale": rng.choice([2, 3]), "rot": 0, "paper": rng.randint(215, 240), "ink": rng.randint(20, 60),
                     "sigma": 6.0, "saltpepper": 0.0, "frame": False},
            "wav": {"rate": 8000, "bits": 16, "channels": 1, "noise": 0.02, "amp": 0.3, "twist": 1.0},
            "csv": {"period": 0.1, "sep": ",", "base": 2.0, "drift": 0.0, "wobble": 0.0, "vnoise": 0.1},
        }
    heavy = level >= 2
    return {
        "form": {"scale": rng.choice([2, 3, 4]), "rot": rng.choice([1, 2, 3]) if heavy or rng.random() < 0.7 else 0,
                 "paper": rng.randint(170, 240), "ink": rng.randint(10, 70), "sigma": rng.uniform(8, 22 if heavy else 14),
                 "saltpepper": rng.uniform(0.005, 0.03 if heavy else 0.015), "frame": rng.random() < 0.7,
                 "gradient": rng.uniform(0, 40) if heavy else 0.0, "stamp": rng.random() < 0.5,
                 "invert": heavy and rng.random() < 0.35, "ascii": rng.random() < 0.3,
                 "shuffle": rng.random() < (0.6 if heavy else 0.3)},
        "wav": {"rate": rng.choice([8000, 11025, 16000, 22050]), "bits": rng.choice([8, 16]),
                "channels": rng.choice([1, 2]), "left": rng.random() < 0.5,
                "noise": rng.uniform(0.02, 0.08 if heavy else 0.05), "amp": rng.uniform(0.12, 0.3),
                "twist": rng.uniform(0.6, 1.4), "hum": rng.uniform(0, 0.15) if heavy else 0.0,
                "junk": rng.random() < 0.6, "list_after": rng.random() < 0.5},
        "csv": {"period": rng.choice([0.05, 0.1, 0.1, 0.2]), "sep": rng.choice([",", ";"]),
                "base": rng.uniform(-3, 8), "drift": rng.uniform(-4, 4) if heavy else rng.uniform(-1.5, 1.5),
                "wobble": rng.uniform(0, 1.2) if heavy else 0.3, "vnoise": rng.uniform(0.1, 0.35),
                "comments": rng.random() < 0.6, "header_repeat": rng.random() < 0.3, "crlf": rng.random() < 0.3},
    }


def make_case(rng, level, conflicts=()):
    truth = make_truth(rng, level, conflicts)
    knobs = make_knobs(rng, level)
    if knobs["csv"]["sep"] == ";":
        knobs["csv"]["comma"] = rng.random() < 0.6
    files = {"form.pgm": render_form(rng, truth, knobs["form"]),
             "notes.wav": render_wav(rng, truth, knobs["wav"]),
             "sensor.csv": render_csv(rng, truth, knobs["csv"])}
    return files, truth


def expected(truth):
    numbers, matched = truth["numbers"], truth["matched"]
    confirmed = sum(matched)
    flags = [f"AUDIO_ONLY:{u}" for u, ok in zip(numbers, matched) if not ok]
    flags += [f"SEQUENCE_GAP:{u}" for u in range(1, max(numbers) + 1) if u not in numbers]
    if truth["extra"]:
        flags.append(f"SENSOR_ONLY:{truth['extra']}")
    if truth["form_units"] != confirmed:
        flags.append("FORM_COUNT")
    return {
        "case_id": truth["case_id"], "site": truth["site"], "start": hms(truth["start"]),
        "form_units": truth["form_units"], "audio_offset_s": truth["audio_offset"],
        "sensor_offset_s": truth["sensor_offset"], "audio_units": list(numbers),
        "sensor_pulses": confirmed + truth["extra"],
        "events": [{"unit": u, "t": round(tm, 2), "sensor": ok} for u, tm, ok in zip(numbers, truth["times"], matched)],
        "confirmed_units": confirmed, "flags": sorted(flags),
    }


CONFLICTS = [(), ("lost_pulse",), ("stray_pulse",), ("form_count",), ("skip",),
             ("lost_pulse", "form_count"), ("skip", "stray_pulse")]


def public_cases():
    """Three bundled sample cases (mild): name -> (files, expected)."""
    out = {}
    for i, conf in enumerate([(), ("lost_pulse",), ("form_count",)]):
        rng = random.Random(9100 + i)
        files, truth = make_case(rng, 0, conf)
        out[f"case-{i + 1:02d}"] = (files, expected(truth))
    return out


def hidden_cases(seed, count=40):
    """``count`` hidden cases: name -> (files, expected, level); the last quarter is the heaviest."""
    rng = random.Random(f"field-audit/{seed}")
    out = {}
    for i in range(count):
        level = 2 if i >= count * 3 // 4 else 1 + (i % 2)
        conf = CONFLICTS[rng.randrange(len(CONFLICTS))]
        files, truth = make_case(random.Random(rng.randrange(1 << 40)), level, conf)
        name = "".join(rng.choice("abcdefghjkmnpqrstuvwxyz") for _ in range(3)) + f"-{i:03d}"
        out[name] = (files, expected(truth), level)
    return out


def write_archive(cases, root):
    root = Path(root)
    for name, item in cases.items():
        d = root / name
        d.mkdir(parents=True, exist_ok=True)
        for fname, data in item[0].items():
            (d / fname).write_bytes(data)
