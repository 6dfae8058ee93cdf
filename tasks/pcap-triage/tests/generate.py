"""Seeded captures for pcap-triage: realistic traffic, format/encapsulation/DNS/HTTP edge
cases, hostile captures, and the large timing capture. Run as a script to write the
bundled public samples:  python3 generate.py OUTDIR"""

import random
import struct
import sys
from pathlib import Path

import packets as P

BASE_TS = 1_700_000_000 * 1_000_000_000
WORDS = [
    "mail",
    "api",
    "cdn",
    "www",
    "static",
    "login",
    "shop",
    "news",
    "img",
    "auth",
    "video",
    "docs",
    "git",
    "chat",
    "pay",
    "edge",
    "files",
    "metrics",
    "ads",
    "time",
]
TLDS = ["example.com", "example.org", "corp.internal", "test.net", "svc.local"]
FEATURES = [
    "vlan",
    "qinq",
    "ipopts",
    "frags",
    "v6ext",
    "v6zeros",
    "dnscase",
    "dnsescape",
    "hostcase",
    "hostspace",
    "tsorder",
    "snap",
    "ties",
]


class Traffic:
    """Accumulates (ts, frame) records for a synthetic network with optional quirks."""

    def __init__(self, rng, features=(), hosts=40, servers=12, raw=False):
        self.rng, self.f, self.raw = rng, set(features), raw
        self.ts = BASE_TS + rng.randrange(10**9) * 1000
        self.records = []
        self.clients4 = [
            P.v4(f"10.{rng.randrange(4)}.{rng.randrange(256)}.{rng.randrange(1, 255)}")
            for _ in range(hosts)
        ]
        self.servers4 = [
            P.v4(
                f"{rng.choice([93, 151, 172, 203])}.{rng.randrange(256)}."
                f"{rng.randrange(256)}.{rng.randrange(1, 255)}"
            )
            for _ in range(servers)
        ]
        self.clients6 = [self.addr6() for _ in range(hosts // 2)]
        self.servers6 = [self.addr6() for _ in range(servers // 2)]
        self.names = [
            f"{rng.choice(WORDS)}{rng.randrange(30)}.{rng.choice(TLDS)}" for _ in range(25)
        ]

    def addr6(self):
        rng = self.rng
        if "v6zeros" in self.f:
            groups = [
                rng.choice([0, 0, 0, rng.randrange(1, 65536), rng.randrange(1, 16)])
                for _ in range(8)
            ]
            groups[0] = rng.choice([0x2001, 0xFE80, 0, 0xFD00])
        else:
            groups = [
                0x2001,
                0xDB8,
                rng.randrange(65536),
                rng.randrange(1, 65536),
                0,
                0,
                rng.randrange(65536),
                rng.randrange(1, 65536),
            ]
        return struct.pack(">8H", *groups)

    def tick(self):
        self.ts += self.rng.randrange(1, 40_000_000)
        ts = self.ts
        if "tsorder" in self.f and self.rng.random() < 0.05:
            ts -= self.rng.randrange(1, 3_000_000_000)
        return ts

    def frame(self, l3, ethertype):
        if self.raw:
            return l3
        vlans = ()
        if "vlan" in self.f and self.rng.random() < 0.4:
            vlans = ((0x8100, self.rng.randrange(1, 4095)),)
        if "qinq" in self.f and self.rng.random() < 0.4:
            vlans = (
                (self.rng.choice([0x88A8, 0x9100]), self.rng.randrange(1, 4095)),
                (0x8100, self.rng.randrange(1, 4095)),
            )
        return P.eth(l3, ethertype, vlans=vlans)

    def emit(self, frame, orig=None):
        rec = (self.tick(), frame) if orig is None else (self.tick(), frame, orig)
        if "snap" in self.f and len(frame) > 80 and self.rng.random() < 0.3:
            cut = self.rng.randrange(60, len(frame))
            rec = (rec[0], frame[:cut], len(frame))
        self.records.append(rec)

    def ip(self, six, src, dst, proto, payload):
        rng = self.rng
        if six:
            ext = ()
            if "v6ext" in self.f and rng.random() < 0.4:
                ext = tuple(
                    rng.choice(
                        [
                            (0, P.ext_opts(rng.randrange(2))),
                            (60, P.ext_opts(rng.randrange(3), 1)),
                            (43, P.ext_opts(rng.randrange(2), 0)),
                        ]
                    )
                    for _ in range(rng.randrange(1, 4))
                )
            return self.frame(P.ipv6(src, dst, proto, payload, ext=ext), P.ETH_IPV6)
        opts = b""
        if "ipopts" in self.f and rng.random() < 0.4:
            opts = bytes([1]) * (4 * rng.randrange(1, 11))
        l3 = P.ipv4(src, dst, proto, payload, options=opts, ident=rng.randrange(65536))
        return self.frame(l3, P.ETH_IPV4)

    def pick(self, six):
        if six:
            return self.rng.choice(self.clients6), self.rng.choice(self.servers6)
        return self.rng.choice(self.clients4), self.rng.choice(self.servers4)

    def tcp_session(self):
        rng = self.rng
        six = rng.random() < 0.3
        c, s = self.pick(six)
        cp = rng.randrange(1024, 65536)
        sp = rng.choice([80, 443, 8080, 22, 25, 993])
        odd = rng.random()
        if odd < 0.04:  # refused: the server answers the SYN with RST+ACK
            self.emit(self.ip(six, c, s, 6, P.tcp(cp, sp, 0x02)))
            self.emit(self.ip(six, s, c, 6, P.tcp(sp, cp, 0x14)))
            return
        if odd < 0.07:  # unanswered: SYN retransmissions
            for _ in range(rng.randrange(1, 4)):
                self.emit(self.ip(six, c, s, 6, P.tcp(cp, sp, 0x02)))
            return
        if odd < 0.11:  # picked up mid-stream
            for _ in range(rng.randrange(1, 5)):
                self.emit(
                    self.ip(
                        six,
                        s,
                        c,
                        6,
                        P.tcp(
                            sp,
                            cp,
                            rng.choice([0x10, 0x18, 0x11]),
                            bytes(rng.choice([0, 100, 1400])),
                        ),
                    )
                )
            return
        if odd < 0.13:  # a SYN and an ACK but no SYN+ACK (simultaneous open seen halfway)
            self.emit(self.ip(six, c, s, 6, P.tcp(cp, sp, 0x02)))
            self.emit(self.ip(six, s, c, 6, P.tcp(sp, cp, 0x10)))
            self.emit(self.ip(six, c, s, 6, P.tcp(cp, sp, 0x11)))
            return
        self.emit(self.ip(six, c, s, 6, P.tcp(cp, sp, 0x02)))
        self.emit(self.ip(six, s, c, 6, P.tcp(sp, cp, 0x12)))
        self.emit(self.ip(six, c, s, 6, P.tcp(cp, sp, 0x10)))
        if sp in (80, 8080):
            self.emit(self.ip(six, c, s, 6, P.tcp(cp, sp, 0x18, self.http_request())))
        for _ in range(rng.randrange(0, 6)):
            size = rng.choice([0, 40, 200, 536, 1200, 1400])
            src, dst, a, b = (s, c, sp, cp) if rng.random() < 0.6 else (c, s, cp, sp)
            self.emit(self.ip(six, src, dst, 6, P.tcp(a, b, 0x10, bytes(size))))
        if rng.random() < 0.2:
            self.emit(self.ip(six, c, s, 6, P.tcp(cp, sp, 0x04 | 0x10)))
        else:
            self.emit(self.ip(six, c, s, 6, P.tcp(cp, sp, 0x11)))
            self.emit(self.ip(six, s, c, 6, P.tcp(sp, cp, 0x11)))

    def http_request(self):
        rng = self.rng
        host = rng.choice(self.names)
        if rng.random() < 0.2:
            host += f":{rng.choice([8080, 8443])}"
        header = "Host"
        if "hostcase" in self.f:
            header = rng.choice(["host", "HOST", "hOsT", "Host"])
            host = "".join(ch.upper() if rng.random() < 0.3 else ch for ch in host)
        sep = ": "
        if "hostspace" in self.f:
            sep = rng.choice([":", ":\t", ":  "])
            host += rng.choice(["", " ", "\t", "  "])
        extra = [rng.choice(["User-Agent: curl/8.4", "Accept: */*", "X-Hosted-By: edge"])]
        if rng.random() < 0.5:
            extra.insert(0, "Accept-Encoding: gzip")
        return P.http(
            rng.choice(["GET", "GET", "POST", "HEAD"]),
            host,
            host_header=header,
            sep=sep,
            extra=extra,
            path=f"/{rng.choice(WORDS)}/{rng.randrange(1000)}",
        )

    def dns_name(self):
        rng = self.rng
        name = rng.choice(self.names)
        parts = [p.encode() for p in name.split(".")]
        if "dnscase" in self.f:
            parts = [
                bytes(ch ^ 0x20 if 97 <= ch <= 122 and rng.random() < 0.4 else ch for ch in p)
                for p in parts
            ]
        if "dnsescape" in self.f and rng.random() < 0.5:
            i = rng.randrange(len(parts))
            weird = bytes([rng.choice([0x20, 0x2E, 0x5C, 0x00, 0x7F, 0xC3, 0xFF, 0x09])])
            parts[i] = parts[i][:2] + weird + parts[i][2:]
        return P.labels(parts)

    def dns_exchange(self):
        rng = self.rng
        six = rng.random() < 0.25
        c, s = self.pick(six)
        cp = rng.randrange(1024, 65536)
        wire = self.dns_name()
        ident = rng.randrange(65536)
        self.emit(self.ip(six, c, s, 17, P.udp(cp, 53, P.dns(wire, ident=ident))))
        if rng.random() < 0.9:
            answer = b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 300, 4) + bytes(4)
            self.emit(
                self.ip(
                    six,
                    s,
                    c,
                    17,
                    P.udp(53, cp, P.dns(wire, response=True, ident=ident, body=answer)),
                )
            )

    def misc(self):
        rng = self.rng
        kind = rng.random()
        if kind < 0.3:
            c, s = self.pick(False)
            self.emit(self.ip(False, c, s, 1, P.icmp(8)))
            self.emit(self.ip(False, s, c, 1, P.icmp(0)))
        elif kind < 0.4:  # an error quoting the packet that caused it
            c, s = self.pick(False)
            proto = rng.choice([6, 17, 17, 1, 47])
            inner = {
                6: P.tcp(rng.randrange(1024, 65536), rng.choice([80, 443]), 2),
                17: P.udp(rng.randrange(1024, 65536), rng.choice([53, 123, 161])),
                1: P.icmp(8),
            }.get(proto, bytes(8))
            opts = bytes([1]) * 4 * rng.choice([0, 0, 1, 2]) if "ipopts" in self.f else b""
            quote = P.ipv4(c, s, proto, inner, options=opts)[: 20 + len(opts) + 8]
            router = self.rng.choice(self.servers4)
            self.emit(
                self.ip(
                    False,
                    router,
                    c,
                    1,
                    P.icmp(rng.choice([3, 3, 11]), rng.randrange(4), body=quote),
                )
            )
        elif kind < 0.6:
            c, s = self.pick(True)
            self.emit(self.ip(True, c, s, 58, P.icmp(rng.choice([128, 129, 1, 3, 135]))))
        elif kind < 0.75 and not self.raw:
            self.emit(self.frame(P.arp(), P.ETH_ARP))
        elif kind < 0.85 and not self.raw:
            self.emit(self.frame(bytes(46), 0x88CC))
        elif kind < 0.88:  # a packet from an address to itself
            c, _ = self.pick(rng.random() < 0.3)
            six = len(c) == 16
            port = rng.randrange(1, 65536)
            self.emit(self.ip(six, c, c, 17, P.udp(port, rng.choice([port, 7]), bytes(20))))
        else:
            c, s = self.pick(rng.random() < 0.3)
            six = len(c) == 16
            self.emit(self.ip(six, c, s, rng.choice([47, 50, 132]), bytes(rng.randrange(8, 64))))

    def fragments(self):
        rng = self.rng
        six = rng.random() < 0.4 and "v6ext" in self.f
        c, s = self.pick(six)
        body = P.udp(
            rng.randrange(1024, 65536),
            rng.choice([53, 4500, 5004]),
            bytes(rng.randrange(1500, 3000)),
        )
        size = 1232
        pieces = [body[i : i + size] for i in range(0, len(body), size)]
        ident = rng.randrange(1 << 16)
        for k, piece in enumerate(pieces):
            more = k < len(pieces) - 1
            if six:
                l3 = P.ipv6(c, s, 17, piece, ext=[(44, P.ext_frag(k * size // 8, more, ident))])
                self.emit(self.frame(l3, P.ETH_IPV6))
            else:
                l3 = P.ipv4(c, s, 17, piece, frag_offset=k * size // 8, more=more, ident=ident)
                self.emit(self.frame(l3, P.ETH_IPV4))

    def ties(self):
        """Several flows with exactly the same packet and byte counts."""
        rng = self.rng
        size = rng.randrange(100, 400)
        for _ in range(rng.randrange(3, 6)):
            c, s = self.pick(rng.random() < 0.5)
            six = len(c) == 16
            sp, dp = rng.randrange(1024, 65536), rng.randrange(1, 1024)
            for _ in range(40):
                self.emit(self.ip(six, c, s, 17, P.udp(sp, dp, bytes(size - (48 if six else 28)))))

    def fill(self, count):
        rng = self.rng
        if "ties" in self.f:
            self.ties()
        while len(self.records) < count:
            r = rng.random()
            if r < 0.45:
                self.tcp_session()
            elif r < 0.75:
                self.dns_exchange()
            elif r < 0.92:
                self.misc()
            elif "frags" in self.f:
                self.fragments()
        return self.records


def traffic_capture(rng, features, count, **kw):
    raw = kw.pop("raw", False)
    t = Traffic(rng, features, raw=raw)
    return P.pcap(t.fill(count), **kw)


# -- hidden categories ------------------------------------------------------------------------


def traffic_cases(seed, n=8):
    rng = random.Random(seed * 7919 + 1)
    out = []
    for i in range(n):
        feats = rng.sample(FEATURES, 3)
        out.append((f"traffic-{i}-{'+'.join(feats)}", traffic_capture(rng, feats, 1500), 10))
    return out


def format_cases(seed, n=8):
    rng = random.Random(seed * 7919 + 2)
    base = lambda **kw: traffic_capture(rng, [], 300, **kw)  # noqa: E731

    def orig_short():
        t = Traffic(rng)
        recs = t.fill(200)
        return P.pcap([(r[0], r[1], max(0, len(r[1]) - rng.randrange(0, 30))) for r in recs])

    def big_fraction():
        t = Traffic(rng)
        recs = []
        for ts, data, *_ in t.fill(150):
            sec, rem = divmod(ts, 10**9)
            frac = rem // 1000 + rng.choice([0, 0, 1_000_000, 3_999_999])
            recs.append((sec, frac, data, len(data), len(data)))
        return P.pcap(recs)

    def cut(kind):
        data = base()
        if kind == "header":
            return data + struct.pack("<II", 1, 2)
        if kind == "body":
            return data + struct.pack("<IIII", 1_700_000_100, 5, 100, 100) + bytes(30)
        return data + struct.pack("<IIII", 1_700_000_100, 5, 300_000, 300_000) + bytes(64)

    variants = {
        "be-us": lambda: base(big_endian=True),
        "le-ns": lambda: base(nanosecond=True),
        "be-ns": lambda: base(big_endian=True, nanosecond=True),
        "raw-ip": lambda: traffic_capture(rng, ["frags"], 300, raw=True, linktype=101),
        "unknown-link": lambda: base(linktype=rng.choice([113, 127, 228])),
        "orig-short": orig_short,
        "usec-overflow": big_fraction,
        "ts-order": lambda: traffic_capture(rng, ["tsorder"], 300),
        "cut-header": lambda: cut("header"),
        "cut-body": lambda: cut("body"),
        "damaged": lambda: cut("damaged"),
        "empty": lambda: P.pcap([], snaplen=rng.choice([96, 262144])),
        "snaplen": lambda: traffic_capture(rng, ["snap"], 300, snaplen=128),
    }
    names = rng.sample(sorted(variants), n)
    return [(f"format-{k}", variants[k](), rng.choice([5, 10])) for k in names]


def encapsulation_cases(seed, n=8):
    rng = random.Random(seed * 7919 + 3)
    groups = [
        ["vlan"],
        ["qinq"],
        ["vlan", "qinq"],
        ["ipopts"],
        ["frags"],
        ["v6ext"],
        ["v6zeros"],
        ["frags", "v6ext"],
        ["ties"],
        ["ipopts", "frags"],
    ]
    out = []
    for i, feats in enumerate(rng.sample(groups, n)):
        out.append((f"encap-{i}-{'+'.join(feats)}", traffic_capture(rng, feats, 400), 12))
    return out


def _dns_only(rng, messages, six=False):
    t = Traffic(rng)
    recs = []
    for msg in messages:
        c, s = t.pick(six)
        recs.append(
            (
                t.tick(),
                P.eth(P.ipv4(c, s, 17, P.udp(rng.randrange(1024, 65536), 53, msg)), P.ETH_IPV4),
            )
        )
    return P.pcap(recs)


def dns_messages(rng, kind):
    lab = lambda n: bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz0123456789-") for _ in range(n))  # noqa: E731
    if kind == "case":
        return [
            P.dns(
                P.labels(
                    [
                        bytes(
                            c ^ (0x20 if rng.random() < 0.5 and 97 <= c <= 122 else 0)
                            for c in lab(rng.randrange(3, 9))
                        ),
                        b"Example",
                        b"COM",
                    ]
                )
            )
            for _ in range(30)
        ]
    if kind == "escape":
        return [
            P.dns(P.labels([lab(3) + bytes([rng.randrange(256)]) + lab(2), b"test"]))
            for _ in range(30)
        ]
    if kind == "root":
        return [P.dns(b"\0"), P.dns(b"\0", response=True)] * 5 + [P.dns(P.labels("a.b"))] * 3
    if kind == "long":
        msgs = []
        for _ in range(20):
            parts = [lab(63), lab(63), lab(63), lab(rng.choice([58, 61, 62]))]
            msgs.append(P.dns(P.labels(parts)))
        return msgs
    if kind == "header-pointer":
        # a question name made of a pointer into the header: labels read from header bytes
        msgs = []
        for _ in range(12):
            head = struct.pack(">HHHHHH", 0x0361, 0x6263, 1, 0, 0, 0)
            msgs.append(head + b"\xc0\x00" + struct.pack(">HH", 1, 1))
            msgs.append(P.dns(b"\x02hi\xc0\x0c"))  # points at its own run start: bad
        return msgs
    if kind == "labels":
        return [
            P.dns(bytes([0x40 | rng.randrange(63)]) + b"abc\0"),
            P.dns(bytes([0x80]) + b"\0"),
            P.dns(P.labels("ok.example")),
            P.dns(P.labels("x.example"), qdcount=0),
            b"\x00" * 11,
            b"",
        ] * 4
    if kind == "mixed":
        return [
            P.dns(P.labels(f"{rng.choice(WORDS)}.{rng.choice(TLDS)}"), response=rng.random() < 0.5)
            for _ in range(60)
        ]
    # "tie": names with equal counts, sorted by text
    names = [f"{w}.example.com" for w in rng.sample(WORDS, 12)]
    return [P.dns(P.labels(n)) for n in names for _ in range(3)]


def dns_cases(seed, n=8):
    rng = random.Random(seed * 7919 + 4)
    kinds = ["case", "escape", "root", "long", "header-pointer", "labels", "mixed", "tie"]
    return [(f"dns-{k}", _dns_only(rng, dns_messages(rng, k)), 8) for k in rng.sample(kinds, n)]


def http_cases(seed, n=6):
    rng = random.Random(seed * 7919 + 5)
    out = []
    mixes = [
        ["hostcase"],
        ["hostspace"],
        ["hostcase", "hostspace"],
        ["hostcase", "snap"],
        ["hostspace", "vlan"],
        ["hostcase", "ipopts"],
    ]
    for i, feats in enumerate(mixes):
        t = Traffic(rng, feats)
        for _ in range(120):
            t.tcp_session()
        # odd requests: no Host, empty Host, header block cut, LF-only lines, long host
        c, s = t.pick(False)
        odd = [
            b"GET / HTTP/1.1\r\nAccept: */*\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost:   \r\n\r\n",
            b"POST /x HTTP/1.1\r\nHost: cut.example",
            b"GET / HTTP/1.0\nHOST: lf.example\n\n",
            b"DELETE /y HTTP/1.1\r\nX-Host: no.example\r\nHost: yes.example\r\n\r\n",
            b"GET / HTTP/1.1\r\n\r\nHost: body.example\r\n",
            b"OPTIONS * HTTP/1.1\r\nHost: " + bytes([rng.randrange(33, 127)]) * 200 + b"\r\n\r\n",
            b"PUT / HTTP/1.1\r\nHost: " + b"l" * 256 + b"\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: sp ace\x01.example\r\n\r\n",
            b"get / HTTP/1.1\r\nHost: lower.example\r\n\r\n",
        ]
        for payload in rng.sample(odd, 6):
            t.emit(t.ip(False, c, s, 6, P.tcp(40000 + i, 80, 0x18, payload)))
        out.append((f"http-{i}-{'+'.join(feats)}", P.pcap(t.records), 10))
    return out[:n]


# -- hostile ----------------------------------------------------------------------------------


def hostile_packets(rng, kind):
    """Frames (or raw records) crafted to hit unchecked lengths and offsets."""
    c, s = P.v4("10.9.8.7"), P.v4("192.0.2.33")
    c6, s6 = P.v6("2001:db8::7"), P.v6("2001:db8::33")
    e4 = lambda l3: P.eth(l3, P.ETH_IPV4)  # noqa: E731
    e6 = lambda l3: P.eth(l3, P.ETH_IPV6)  # noqa: E731
    if kind == "short-eth":
        return [bytes(rng.randrange(0, 14)) for _ in range(3)]
    if kind == "vlan-cut":
        return [
            P.mac(1) + P.mac(2) + b"\x81\x00",
            P.mac(1) + P.mac(2) + b"\x88\xa8\x00\x05",
            P.mac(1) + P.mac(2) + b"\x81\x00\x00\x01\x81\x00\x00",
        ]
    if kind == "ihl-long":
        return [e4(P.ipv4(c, s, 6, b"", ihl=15)[:24]), e4(P.ipv4(c, s, 17, b"", ihl=12))]
    if kind == "ihl-short":
        return [e4(P.ipv4(c, s, 6, P.tcp(1, 2, 2), ihl=rng.randrange(0, 5)))]
    if kind == "total-short":
        return [e4(P.ipv4(c, s, 17, P.udp(5, 53, b"x" * 20), total=rng.randrange(0, 20)))]
    if kind == "v4-version":
        return [e4(P.ipv4(c, s, 6, P.tcp(1, 2, 2), version=rng.choice([0, 5, 6, 15])))]
    if kind == "tcp-doff":
        return [
            e4(P.ipv4(c, s, 6, P.tcp(1234, 80, 0x18, b"GET / HTTP/1.1\r\n", doff=15)[:30])),
            e4(P.ipv4(c, s, 6, P.tcp(1234, 80, 0x18, b"", doff=rng.randrange(0, 5)))),
        ]
    if kind == "tcp-short":
        return [e4(P.ipv4(c, s, 6, P.tcp(1, 80, 2)[: rng.randrange(1, 20)]))]
    if kind == "udp-short":
        return [e4(P.ipv4(c, s, 17, P.udp(53, 53)[: rng.randrange(1, 8)]))]
    if kind == "v6-short":
        return [e6(P.ipv6(c6, s6, 6, b"")[: rng.randrange(1, 40)])]
    if kind == "v6-ext-cut":
        return [
            e6(P.ipv6(c6, s6, 17, b"", ext=[(0, P.ext_opts(30))])[:60]),
            e6(P.ipv6(c6, s6, 17, b"", ext=[(60, P.ext_opts(0))])[:41]),
            e6(P.ipv6(c6, s6, 6, P.tcp(1, 2, 2), ext=[(44, P.ext_frag(0))])[:45]),
        ]
    if kind == "dns-loop":
        return [
            e4(P.ipv4(c, s, 17, P.udp(999, 53, P.dns(b"\xc0\x0c")))),
            e4(P.ipv4(c, s, 17, P.udp(999, 53, P.dns(b"\x01a\xc0\x0e")))),
            e4(P.ipv4(c, s, 17, P.udp(999, 53, P.dns(b"\x01a\x01b\xc0\x0c")))),
        ]
    if kind == "dns-pointer-out":
        return [
            e4(P.ipv4(c, s, 17, P.udp(999, 53, P.dns(b"\x03abc\xff\xff")))),
            e4(P.ipv4(c, s, 17, P.udp(999, 53, P.dns(b"\x03abc\xc0")[:18]))),
        ]
    if kind == "dns-label-out":
        return [
            e4(P.ipv4(c, s, 17, P.udp(999, 53, P.dns(b"\x3fabc")[:20]))),
            e4(P.ipv4(c, s, 17, P.udp(999, 53, b"\x12\x34\x01\x00\x00\x01"))),
        ]
    if kind == "dns-escapes":
        weird = bytes(rng.choice([0, 1, 0x2E, 0x5C, 0x80, 0xFF]) for _ in range(63))
        return [e4(P.ipv4(c, s, 17, P.udp(999, 53, P.dns(P.labels([weird] * 3 + [weird[:58]])))))]
    if kind == "http-long-host":
        host = bytes(rng.choice(b"abcdefghij.") for _ in range(rng.randrange(130, 256)))
        return [
            e4(
                P.ipv4(
                    c, s, 6, P.tcp(4321, 80, 0x18, b"GET / HTTP/1.1\r\nHost: " + host + b"\r\n\r\n")
                )
            )
        ]
    if kind == "icmp-quote-cut":
        quote = P.ipv4(s, c, 17, P.udp(5000, 53))
        return [
            e4(P.ipv4(c, s, 1, P.icmp(3, 1, body=quote[: rng.randrange(20, 27)]))),
            e4(P.ipv4(c, s, 1, P.icmp(11, 0, body=P.ipv4(s, c, 6, b"", ihl=15)[:40]))),
        ]
    if kind == "http-no-eol":
        return [
            e4(P.ipv4(c, s, 6, P.tcp(4321, 80, 0x18, b"GET /" + b"a" * rng.randrange(1, 40)))),
            e4(P.ipv4(c, s, 6, P.tcp(4321, 80, 0x18, b"GET / HTTP/1.1\r\nHost: x"))),
        ]
    raise ValueError(kind)


HOSTILE_KINDS = [
    "short-eth",
    "vlan-cut",
    "ihl-long",
    "ihl-short",
    "total-short",
    "v4-version",
    "tcp-doff",
    "tcp-short",
    "udp-short",
    "v6-short",
    "v6-ext-cut",
    "dns-loop",
    "dns-pointer-out",
    "dns-label-out",
    "dns-escapes",
    "http-long-host",
    "http-no-eol",
    "huge-record",
    "ts-high",
    "icmp-quote-cut",
]


def hostile_capture(rng, kinds):
    t = Traffic(rng)
    t.fill(40)
    recs = list(t.records)
    tail = b""
    for kind in kinds:
        if kind == "huge-record":
            tail = struct.pack(
                "<IIII", 1_700_000_500, 0, rng.choice([0x7FFFFFF0, 0xFFFFFFF0, 300_000]), 64
            ) + bytes(64)
        elif kind == "ts-high":
            sec = rng.choice([0x80000000, 0xF0000000, 0xFFFFFFFF])
            recs.append(
                (sec, rng.choice([0, 0xFFFFFFFF]), recs[0][1], len(recs[0][1]), len(recs[0][1]))
            )
        else:
            for frame in hostile_packets(rng, kind):
                recs.insert(rng.randrange(len(recs) + 1), (t.tick(), frame))
    return P.pcap(recs, tail=tail)


def hostile_cases(seed, n=16):
    rng = random.Random(seed * 7919 + 6)
    kinds = rng.sample(HOSTILE_KINDS, n)
    out = []
    for kind in kinds:
        extra = rng.sample([k for k in HOSTILE_KINDS if k not in ("huge-record",)], 1)
        out.append((f"hostile-{kind}+{extra[0]}", hostile_capture(rng, [kind, *extra]), 10))
    return out


# -- timing -----------------------------------------------------------------------------------


def perf_capture(seed, packets=400_000, flows=120_000):
    """A large capture: many short flows, every quirk present but rare."""
    rng = random.Random(seed * 7919 + 7)
    t = Traffic(
        rng, ["vlan", "ipopts", "v6ext", "dnscase", "hostcase", "frags"], hosts=3000, servers=800
    )
    t.names = [f"{rng.choice(WORDS)}{i}.{rng.choice(TLDS)}" for i in range(20000)]
    recs = t.fill(4000)  # every kind of packet, with the quirks
    frames = []
    # the bulk: templated UDP/TCP packets over many endpoints, patched in place
    tpl4 = bytearray(P.eth(P.ipv4(bytes(4), bytes(4), 17, P.udp(1, 2, bytes(32))), P.ETH_IPV4))
    tpl_dns = [
        bytes(P.eth(P.ipv4(bytes(4), bytes(4), 17, P.udp(1, 53, P.dns(P.labels(n)))), P.ETH_IPV4))
        for n in t.names
    ]
    ts = t.ts
    per_flow = max(1, (packets - len(recs)) // flows)
    for i in range(packets - len(recs)):
        flow = (i // per_flow) if rng.random() < 0.8 else rng.randrange(flows)
        ts += rng.randrange(1, 200_000)
        frame = bytearray(tpl_dns[rng.randrange(len(tpl_dns))] if i % 7 == 0 else tpl4)
        frame[26:30] = struct.pack(">I", 0x0A000000 + (flow % 50000))
        frame[30:34] = struct.pack(">I", 0xC6336400 + flow // 50000)
        frame[34:36] = struct.pack(">H", 1024 + flow % 60000)
        if i % 7:
            frame[36:38] = struct.pack(">H", 1 + (flow * 7) % 1000)
        frames.append((ts, bytes(frame)))
    recs = recs + frames
    return P.pcap(recs)


# -- public samples -----------------------------------------------------------------------------

SAMPLE_SEED = 20240611


def sample_capture():
    rng = random.Random(SAMPLE_SEED)
    return traffic_capture(rng, ["vlan", "dnscase"], 600)


def sample_hostile():
    rng = random.Random(SAMPLE_SEED + 1)
    return hostile_capture(rng, ["dns-loop", "short-eth"])


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    (out / "sample.pcap").write_bytes(sample_capture())
    (out / "hostile-sample.pcap").write_bytes(sample_hostile())


def perf_tail(seed, k):
    """Records appended to the large capture for race run k (a distinct input per run)."""
    rng = random.Random(seed * 7919 + 100 + k)
    recs = []
    for i in range(50 + k):
        c = P.v4(f"172.{16 + k}.{rng.randrange(256)}.{rng.randrange(1, 255)}")
        s = P.v4(f"198.18.{k}.{rng.randrange(1, 255)}")
        recs.append(
            (
                BASE_TS + 10**12 + i * 1000,
                P.eth(P.ipv4(c, s, 6, P.tcp(rng.randrange(1024, 65536), 443, 0x02)), P.ETH_IPV4),
            )
        )
    return P.pcap(recs)[24:]
