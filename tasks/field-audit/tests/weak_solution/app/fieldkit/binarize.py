"""Turn a scanned page into an ink mask: despeckle, flatten the lighting, threshold."""

import numpy as np


def despeckle(ink):
    """Drop isolated ink pixels and fill isolated holes, keeping stroke ends."""
    pad = np.pad(ink, 1).astype(np.int8)
    h, w = ink.shape
    around = sum(pad[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)) - ink
    return np.where(ink, around >= 2, around >= 6)


def median3(img):
    """3x3 median filter (edges replicated)."""
    pad = np.pad(img, 1, mode="edge")
    h, w = img.shape
    stack = [pad[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)]
    return np.median(np.stack(stack), axis=0)


def flatten(img):
    """Remove a linear lighting gradient fitted to the paper."""
    h, w = img.shape
    yy, xx = np.mgrid[0:h, 0:w]
    bright = img > np.median(img) - 1 if np.median(img) > img.mean() else img < np.median(img) + 1
    a = np.stack([xx[bright], yy[bright], np.ones(bright.sum())], axis=1)
    coef, *_ = np.linalg.lstsq(a.astype(float), img[bright], rcond=None)
    return img - (coef[0] * xx + coef[1] * yy)


def otsu(img):
    """Otsu's threshold of a grey image."""
    hist, edges = np.histogram(img, bins=256)
    p = hist / hist.sum()
    mids = (edges[:-1] + edges[1:]) / 2
    w0 = np.cumsum(p)
    m0 = np.cumsum(p * mids)
    mt = m0[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (mt * w0 - m0) ** 2 / (w0 * (1 - w0))
    return mids[np.nanargmax(between)]


def ink_mask(img):
    """Boolean mask of ink pixels, whatever the polarity of the scan."""
    flat = flatten(img)
    t = otsu(median3(flat))
    dark = flat < t
    return despeckle(dark if dark.mean() < 0.5 else ~dark)


def page_stats(img, ink):
    """A few numbers that describe a scan, for the diagnostics."""
    return {
        "size": [int(img.shape[1]), int(img.shape[0])],
        "grey_mean": round(float(img.mean()), 1),
        "grey_p5": round(float(np.percentile(img, 5)), 1),
        "grey_p95": round(float(np.percentile(img, 95)), 1),
        "ink_share": round(float(ink.mean()), 4),
    }
