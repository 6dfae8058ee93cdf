"""Turn a scanned page into an ink mask."""

import numpy as np

from . import config


def median3(img):
    """3x3 median filter (edges replicated)."""
    pad = np.pad(img, 1, mode="edge")
    h, w = img.shape
    stack = [pad[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)]
    return np.median(np.stack(stack), axis=0)


def ink_mask(img):
    """Boolean mask of ink pixels."""
    return median3(img) < config.INK_LEVEL


def page_stats(img, ink):
    """A few numbers that describe a scan, for the diagnostics."""
    return {
        "size": [int(img.shape[1]), int(img.shape[0])],
        "grey_mean": round(float(img.mean()), 1),
        "grey_p5": round(float(np.percentile(img, 5)), 1),
        "grey_p95": round(float(np.percentile(img, 95)), 1),
        "ink_share": round(float(ink.mean()), 4),
    }
