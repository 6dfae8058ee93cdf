"""The run-length method (method 1): PackBits-style control bytes."""

from .errors import BadData

MAX_RUN = 128
MIN_RUN = 3


def encode(data):
    out = bytearray()
    n = len(data)
    i = 0
    while i < n:
        run = 1
        while i + run < n and run < MAX_RUN and data[i + run] == data[i]:
            run += 1
        if run >= MIN_RUN:
            out.append(257 - run)
            out.append(data[i])
            i += run
            continue
        start = i
        count = 0
        while i < n and count < MAX_RUN:
            if i + 2 < n and data[i] == data[i + 1] == data[i + 2]:
                break
            i += 1
            count += 1
        out.append(count - 1)
        out += data[start:start + count]
    return bytes(out)


def decode(data, size):
    out = bytearray()
    n = len(data)
    i = 0
    while i < n:
        control = data[i]
        i += 1
        if control < 128:
            count = control + 1
            if i + count > n:
                raise BadData("literal past the end")
            out += data[i:i + count]
            i += count
        elif control > 128:
            if i >= n:
                raise BadData("run past the end")
            out += bytes((data[i],)) * (257 - control)
            i += 1
        if len(out) > size:
            raise BadData("too long")
    if len(out) != size:
        raise BadData("wrong length")
    return bytes(out)
