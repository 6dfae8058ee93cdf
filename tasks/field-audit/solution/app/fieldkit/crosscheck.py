"""Reconcile the keyed units with the probe pulses (docs/PROCEDURE.md, "The report")."""

from . import config


def match(units, pulses_ref, before=None, after=None):
    """Index of the confirming pulse per unit (or None), matching in keyed order."""
    before = config.MATCH_BEFORE if before is None else before
    after = config.MATCH_AFTER if after is None else after
    used, hits = set(), []
    for _, t in units:
        hit = None
        for i, p in enumerate(pulses_ref):
            if i not in used and t - before <= p <= t + after:
                hit = i
                break
        if hit is not None:
            used.add(hit)
        hits.append(hit)
    return hits


def conflict_flags(form_units, units, hits, n_pulses):
    """The report's flags, sorted."""
    flags = [f"AUDIO_ONLY:{u}" for (u, _), h in zip(units, hits) if h is None]
    numbers = [u for u, _ in units]
    if numbers:
        flags += [f"SEQUENCE_GAP:{u}" for u in range(1, max(numbers) + 1) if u not in numbers]
    stray = n_pulses - sum(h is not None for h in hits)
    if stray:
        flags.append(f"SENSOR_ONLY:{stray}")
    if form_units != n_pulses - stray:
        flags.append("FORM_COUNT")
    return sorted(flags)


def reconcile(form_units, units, pulses_ref):
    """units: [(unit, t)], pulses_ref: [t] (both seconds after START) -> (events, confirmed, flags)."""
    hits = match(units, pulses_ref)
    events = [{"unit": u, "t": round(t, config.TIME_DECIMALS), "sensor": h is not None}
              for (u, t), h in zip(units, hits)]
    confirmed = sum(e["sensor"] for e in events)
    return events, confirmed, conflict_flags(form_units, units, hits, len(pulses_ref))
