"""Short-time tone powers of a signal at a handful of frequencies."""

import numpy as np


def frame_starts(length, win, step):
    """Start indices of the full frames of a signal."""
    n = max(0, (length - win) // step + 1)
    return step * np.arange(n)


def tone_powers(x, rate, freqs, window, step):
    """Power of each frequency per frame, and the frame energy scaled to the same units.

    Returns ``(powers[frames, freqs], energy[frames])``; a pure tone at one of
    ``freqs`` has ``powers`` close to ``energy``.
    """
    win, hop = int(window * rate), int(step * rate)
    if len(x) < win:
        return np.zeros((0, len(freqs))), np.zeros(0)
    frames = np.lib.stride_tricks.sliding_window_view(x, win)[::hop] * np.hanning(win)[None, :]
    t = np.arange(win) / rate
    phase = 2 * np.pi * np.outer(freqs, t)
    re, im = frames @ np.cos(phase).T, frames @ np.sin(phase).T
    powers = re ** 2 + im ** 2
    energy = np.einsum("ij,ij->i", frames, frames) * win / 4 + 1e-12
    return powers, energy


def rms(x):
    """Root mean square of a signal."""
    return float(np.sqrt(np.mean(np.square(x)))) if len(x) else 0.0


def dominant_frequency(x, rate):
    """The strongest frequency of a signal (Hz), for the diagnostics."""
    if len(x) < 2:
        return 0.0
    spec = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    return float(np.fft.rfftfreq(len(x), 1.0 / rate)[int(spec.argmax())])
