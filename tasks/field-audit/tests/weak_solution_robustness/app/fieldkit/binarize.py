"""Turn a scanned page into an ink mask."""

import numpy as np


def median3(img):
    pad = np.pad(img, 1, mode="edge")
    h, w = img.shape
    stack = [pad[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)]
    return np.median(np.stack(stack), axis=0)


def ink_mask(img):
    """Boolean mask of ink pixels."""
    return median3(img) < 128
