"""The play relay's output side: private requests taken out, lhtb's bytes kept whole."""

from __future__ import annotations

import os

import pytest

from lhtb.session._play_output import OutputFilter, TerminalWriter, at_rest

REQUEST = b"\x1b]lhtb-play;t0k;submit\x07"


def test_a_request_is_taken_out_and_one_with_another_token_is_dropped() -> None:
    shown, requests = OutputFilter("t0k").feed(b"a" + REQUEST + b"b\x1b]lhtb-play;evil;submit\x07c")
    assert (shown, requests) == (b"abc", ["submit"])


def test_a_request_split_across_chunks_is_held_until_whole() -> None:
    output = OutputFilter("t0k")
    shown = []
    for cut in (b"x\x1b", b"]lht", b"b-play;t0k;sta", b"tus\x07y"):
        text, requests = output.feed(cut)
        shown.append(text)
    assert (b"".join(shown), requests) == (b"xy", ["status"])
    assert output.feed(b"\x1b]lhtb-")[0] == b""  # held
    assert output.feed(b"")[0] == b"\x1b]lhtb-"  # the end of the stream flushes it


def test_other_escape_sequences_pass_through() -> None:
    colour = b"\x1b[31mred\x1b[0m\x1b]2;title\x07"
    assert OutputFilter("t0k").feed(colour) == (colour, [])


@pytest.mark.parametrize(
    ("output", "rest"),
    [
        (b"plain", True),
        (b"", True),
        (b"\x1b[31m", True),
        (b"\x1b]2;t\x07", True),
        (b"\x1b(B", True),
        (b"\x1b7", True),
        ("é".encode(), True),
        (b"\x1b[3", False),
        (b"\x1b", False),
        (b"\x1b]2;t", False),
        (b"\x1bP1$r", False),
        ("é".encode()[:1], False),
        ("€".encode()[:2], False),
    ],
)
def test_at_rest_only_between_sequences_and_characters(output: bytes, rest: bool) -> None:
    assert at_rest(output) is rest


def test_injected_bytes_wait_for_the_output_to_be_at_rest() -> None:
    read, write = os.pipe()
    try:
        writer = TerminalWriter(write)
        writer.output(b"\x1b[3")
        writer.inject(b"<lhtb>")
        writer.title("old")
        writer.title("new")
        writer.output(b"1m")
        writer.inject(b"<now>")
        writer.close()
        writer.output(b"after close")
        assert os.read(read, 100) == b"\x1b[31m<lhtb>\x1b]2;new\x07<now>"
    finally:
        os.close(read)
        os.close(write)
