"""Feed parsers: one module per feed, each ``parse(text) -> ParseResult``."""

from dataclasses import dataclass, field

from gridtel.parsers import inverter, meter, weather


@dataclass
class ParseResult:
    """Records of one batch and the lines that could not be read (with the reason)."""

    records: list = field(default_factory=list)
    rejected: list = field(default_factory=list)

    def reject(self, number, line, reason):
        self.rejected.append({"line": number, "text": line[:200], "reason": str(reason)})


class FeedError(ValueError):
    """A batch that cannot be read at all (wrong feed, missing header)."""


FEEDS = {
    "meter": meter.parse,
    "inverter": inverter.parse,
    "weather": weather.parse,
}


def parse(feed, text):
    """Parse one batch of ``feed``.

    Raises:
        FeedError: unknown feed, or a batch without its header.
    """
    try:
        parser = FEEDS[feed]
    except KeyError:
        raise FeedError(f"unknown feed {feed!r} (known: {', '.join(sorted(FEEDS))})") from None
    result = ParseResult()
    parser(text, result, FeedError)
    return result
