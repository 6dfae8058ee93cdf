"""Value codes of the registry extracts (see data/CODEBOOK.md)."""

WAVE1_DISPOSITION = {"1": "home", "2": "transfer", "3": "died", "9": "unknown"}
WAVE2_DISPOSITION = {"HOME": "home", "TRANSFER": "transfer", "DIED": "died", "UNK": "unknown"}

WAVE1_MISSING = {"", "999"}
WAVE2_MISSING = {""}

SEX_CODES = {"M": "male", "F": "female"}


def disposition(wave, code):
    table = WAVE1_DISPOSITION if wave == 1 else WAVE2_DISPOSITION
    return table.get(code.strip(), "unknown")


def is_missing(wave, text):
    missing = WAVE1_MISSING if wave == 1 else WAVE2_MISSING
    return text.strip() in missing


def number(wave, text):
    """A numeric field, or None for a missing-value code."""
    if is_missing(wave, text):
        return None
    return float(text)


def enrolled(wave, text):
    return text.strip() == ("Y" if wave == 1 else "1")


def sex(code):
    return SEX_CODES.get(code.strip(), "unknown")
