"""Align the key log and the probe trace to the form's clock and reconcile them."""

BEFORE, AFTER = 0.5, 1.5
CALIBRATION = 7.0


def reconcile(form_units, units, pulses_ref):
    """units: [(unit, t)], pulses_ref: [t] (both seconds after START)."""
    used, events = set(), []
    for unit, t in units:
        hit = None
        for i, p in enumerate(pulses_ref):
            if i not in used and t - BEFORE <= p <= t + AFTER:
                hit = i
                break
        if hit is not None:
            used.add(hit)
        events.append({"unit": unit, "t": round(t, 2), "sensor": hit is not None})
    confirmed = sum(e["sensor"] for e in events)
    flags = [f"AUDIO_ONLY:{e['unit']}" for e in events if not e["sensor"]]
    numbers = [u for u, _ in units]
    if numbers:
        flags += [f"SEQUENCE_GAP:{u}" for u in range(1, max(numbers) + 1) if u not in numbers]
    stray = len(pulses_ref) - len(used)
    if stray:
        flags.append(f"SENSOR_ONLY:{stray}")
    if form_units != confirmed:
        flags.append("FORM_COUNT")
    return events, confirmed, sorted(flags)
