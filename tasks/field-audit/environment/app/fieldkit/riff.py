"""RIFF container walking: the chunks of a file and the tags of a LIST/INFO chunk."""

import struct
from pathlib import Path


class RiffError(ValueError):
    """A file that is not a RIFF container of the expected form."""


def chunks(data, start=12):
    """``[(tag, offset of the body, body)]`` for the chunks from ``start`` on, in file order."""
    out, pos = [], start
    while pos + 8 <= len(data):
        tag = data[pos:pos + 4]
        (size,) = struct.unpack("<I", data[pos + 4:pos + 8])
        body = data[pos + 8:pos + 8 + size]
        out.append((tag, pos + 8, body))
        pos += 8 + size
    return out


def info_tags(body):
    """``{tag: text}`` of a LIST chunk body whose list type is INFO (empty otherwise)."""
    if body[:4] != b"INFO":
        return {}
    tags, p = {}, 4
    while p + 8 <= len(body):
        tag = body[p:p + 4].decode("latin-1")
        (n,) = struct.unpack("<I", body[p + 4:p + 8])
        tags[tag] = body[p + 8:p + 8 + n].split(b"\0")[0].decode("latin-1")
        p += 8 + n
    return tags


def open_riff(path, form=b"WAVE"):
    """The bytes of a RIFF file of the given form type."""
    data = Path(path).read_bytes()
    if data[:4] != b"RIFF" or data[8:12] != form:
        raise RiffError(f"{path}: not a RIFF/{form.decode()} file")
    (declared,) = struct.unpack("<I", data[4:8])
    if declared + 8 < len(data):
        data = data[:declared + 8]
    return data


def listing(path):
    """One line per chunk, for inspecting a file by hand."""
    data = open_riff(path)
    lines = []
    for tag, offset, body in chunks(data):
        line = f"{offset - 8:8d}  {tag.decode('latin-1')!r:8} {len(body):8d} bytes"
        if tag == b"LIST":
            line += "  " + " ".join(f"{k}={v!r}" for k, v in info_tags(body).items())
        lines.append(line)
    return lines
