"""Building pcap captures and the packets in them (stdlib only)."""

import struct

ETH_IPV4, ETH_IPV6, ETH_ARP = 0x0800, 0x86DD, 0x0806
MAGIC_US, MAGIC_NS = 0xA1B2C3D4, 0xA1B23C4D


def pcap(
    records,
    *,
    big_endian=False,
    nanosecond=False,
    linktype=1,
    snaplen=65535,
    version=(2, 4),
    tail=b"",
):
    """A capture file. records: (ts_ns, data) or (ts_ns, data, orig_len) or
    (sec, frac, data, orig_len, incl_len) raw tuples; tail is appended verbatim."""
    e = ">" if big_endian else "<"
    out = [
        struct.pack(
            e + "IHHiIII",
            MAGIC_NS if nanosecond else MAGIC_US,
            version[0],
            version[1],
            0,
            0,
            snaplen,
            linktype,
        )
    ]
    for rec in records:
        if len(rec) == 5:
            sec, frac, data, orig, incl = rec
        else:
            ts, data = rec[0], rec[1]
            orig = rec[2] if len(rec) > 2 else len(data)
            incl = len(data)
            sec, rem = divmod(ts, 1_000_000_000)
            frac = rem if nanosecond else rem // 1000
        out.append(struct.pack(e + "IIII", sec, frac, incl, orig))
        out.append(data)
    out.append(tail)
    return b"".join(out)


def mac(n):
    return bytes([2, 0, 0, (n >> 16) & 255, (n >> 8) & 255, n & 255])


def eth(payload, ethertype, *, vlans=(), src=1, dst=2):
    head = mac(dst) + mac(src)
    for tpid, vid in vlans:
        head += struct.pack(">HH", tpid, vid)
    return head + struct.pack(">H", ethertype) + payload


def v4(text):
    return bytes(int(x) for x in text.split("."))


def v6(text):
    head, _, tail = text.partition("::")
    hg = [int(x, 16) for x in head.split(":") if x]
    tg = [int(x, 16) for x in tail.split(":") if x] if "::" in text else []
    groups = hg + [0] * (8 - len(hg) - len(tg)) + tg
    return struct.pack(">8H", *groups)


def ipv4(
    src,
    dst,
    proto,
    payload,
    *,
    options=b"",
    frag_offset=0,
    more=False,
    ttl=64,
    ident=0,
    total=None,
    ihl=None,
    version=4,
):
    hlen = 20 + len(options)
    ihl = hlen // 4 if ihl is None else ihl
    total = hlen + len(payload) if total is None else total
    flags = (0x2000 if more else 0) | (frag_offset & 0x1FFF)
    head = struct.pack(
        ">BBHHHBBH4s4s",
        (version << 4) | (ihl & 15),
        0,
        total & 0xFFFF,
        ident,
        flags,
        ttl,
        proto,
        0,
        src,
        dst,
    )
    return head + options + payload


def ipv6(src, dst, nh, payload, *, ext=(), plen=None):
    """ext: [(type, body)], each body without its next-header byte (ext_opts and ext_frag
    build bodies with the right length); plen overrides the payload length field."""
    chain = b""
    types = [t for t, _ in ext] + [nh]
    for i, (_, body) in enumerate(ext):
        chain += bytes([types[i + 1]]) + body
    first = types[0]
    data = chain + payload
    plen = len(data) if plen is None else plen
    return struct.pack(">IHBB16s16s", 0x60000000, plen & 0xFFFF, first, 64, src, dst) + data


def ext_opts(units=0, fill=0):
    """A hop-by-hop/routing/destination options body: length byte + padding ((units+1)*8 - 1)."""
    return bytes([units]) + bytes([fill]) * ((units + 1) * 8 - 2)


def ext_frag(offset_units, more=False, ident=1):
    return bytes([0]) + struct.pack(">HI", (offset_units << 3) | (1 if more else 0), ident)


def tcp(sport, dport, flags, payload=b"", *, doff=5, opts=None):
    opts = bytes(max(0, doff - 5) * 4) if opts is None else opts
    return (
        struct.pack(">HHIIBBHHH", sport, dport, 1, 0, (doff & 15) << 4, flags, 65535, 0, 0)
        + opts
        + payload
    )


def udp(sport, dport, payload=b""):
    return struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload


def icmp(kind=8, code=0, body=b"abcdefgh"):
    return struct.pack(">BBHHH", kind, code, 0, 1, 1) + body


def arp():
    return (
        struct.pack(">HHBBH", 1, 0x0800, 6, 4, 1)
        + mac(1)
        + v4("10.0.0.1")
        + mac(0)
        + v4("10.0.0.2")
    )


def labels(name):
    """Wire form of a dotted name (or a list of raw label bytes)."""
    parts = name if isinstance(name, list) else [p.encode() for p in name.split(".") if p]
    return b"".join(bytes([len(p)]) + p for p in parts) + b"\0"


def dns(qname_wire, *, response=False, ident=0x1234, qdcount=1, body=b""):
    flags = 0x8180 if response else 0x0100
    head = struct.pack(">HHHHHH", ident, flags, qdcount, 1 if response else 0, 0, 0)
    return head + qname_wire + (struct.pack(">HH", 1, 1) if qdcount else b"") + body


def http(method, host, *, host_header="Host", path="/", extra=(), eol=b"\r\n", sep=": "):
    lines = [f"{method} {path} HTTP/1.1".encode()]
    if host is not None:
        lines.append(
            host_header.encode()
            + sep.encode()
            + (host if isinstance(host, bytes) else host.encode())
        )
    lines += [x.encode() for x in extra]
    return eol.join(lines) + eol + eol
