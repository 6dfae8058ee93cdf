"""Hidden cases for pak-port, generated from the episode seed.

A case is plain data: the files to put in its working directory, how to build
an archive there (with the reference ``pak``) and how to damage it, and the
command line to compare. ``verify.py`` materialises it, runs the reference
binary and the port on the same inputs and compares everything they produce.
"""

import random

WORDS = ["ledger", "invoice", "payroll", "vendor", "accrual", "journal", "batch", "close",
         "reconcile", "credit", "debit", "memo", "audit", "budget", "region", "north", "south"]
KEYS = ["s3cret", "ledger-2019", "Tr0ub4dor&3", "k", "correct horse", "PAK!pak!", "0000"]
MODES = [0o644, 0o755, 0o444, 0o664]
ARCHIVE_MODES = [0o644, 0o600, 0o755, 0o400, 0o750]


class Case:
    """One comparison. ``files``: (relpath, data, mtime, mode); ``build``: the create argv
    (or None); ``damage``: list of (operation, value); ``argv``: the compared command,
    with ``@ARCHIVE``, ``@OUT`` and ``@DEST`` standing for the paths the verifier picks."""

    def __init__(self, label, files, argv, build=None, damage=(), archive=None):
        self.label = label
        self.archive = archive
        self.files = files
        self.argv = argv
        self.build = build
        self.damage = list(damage)


# -- contents --------------------------------------------------------------------------


def ledger_text(rng, size):
    lines = []
    total = 0
    account = rng.randrange(1000, 9000)
    while total < size:
        line = "2024-%02d-%02d,ACC-%04d,%s %s,%12.2f,%s\n" % (
            rng.randint(1, 12), rng.randint(1, 28), account + rng.randrange(0, 40),
            rng.choice(WORDS), rng.choice(WORDS), rng.uniform(-99999, 99999),
            rng.choice(["EUR", "USD", "CHF", "GBP"]))
        lines.append(line)
        total += len(line)
    return "".join(lines).encode()[:size]


def runs(rng, size):
    out = bytearray()
    alphabet = bytes(rng.sample(range(256), rng.randint(2, 6)))
    while len(out) < size:
        length = rng.choice([1, 1, 2, 2, 3, 4, 5, 17, 127, 128, 129, 130, 200, 300])
        out += bytes((rng.choice(alphabet),)) * length
    return bytes(out[:size])


def noise(rng, size):
    return bytes(rng.getrandbits(8) for _ in range(size))


def periodic(rng, size):
    period = rng.randint(1, 40)
    unit = noise(rng, period)
    out = bytearray(unit * (size // period + 1))[:size]
    for _ in range(size // 97):
        out[rng.randrange(size)] = rng.getrandbits(8)
    return bytes(out)


def records(rng, size):
    out = bytearray()
    while len(out) < size:
        out += b"REC" + rng.getrandbits(16).to_bytes(2, "big") + bytes(rng.randint(0, 9)) + \
            rng.choice(WORDS).encode().ljust(12, b" ")
    return bytes(out[:size])


def break_even(rng, size):
    """Runs of three and a single byte: rle output exactly as long as the input."""
    out = bytearray()
    while len(out) < size:
        run, single = rng.sample(range(256), 2)
        out += bytes((run, run, run, single))
    return bytes(out[:size - size % 4])


def mixed(rng, size):
    parts = []
    left = size
    while left > 0:
        chunk = min(left, rng.randint(200, 3000))
        parts.append(rng.choice([ledger_text, runs, noise, periodic, records])(rng, chunk))
        left -= chunk
    return b"".join(parts)


KINDS = [ledger_text, runs, noise, periodic, records, mixed, break_even]


def content(rng, size=None, kinds=KINDS):
    if size is None:
        size = rng.choice([0, 1, 2, 7, 300, 1500, 4096, 5000, 9000, 20000])
    return rng.choice(kinds)(rng, size)


def member_names(rng, count, odd=False):
    names = []
    while len(names) < count:
        style = rng.randrange(5 if odd else 3)
        if style == 0:
            name = "batch/%04d-%02d.csv" % (rng.randint(2015, 2025), rng.randint(1, 12))
        elif style == 1:
            name = "%s_%d.txt" % (rng.choice(WORDS), rng.randrange(100))
        elif style == 2:
            name = "scans/%s/img%03d.bin" % (rng.choice(WORDS), rng.randrange(1000))
        elif style == 3:
            name = "notes \u00e9t\u00e9 %d.txt" % rng.randrange(10)
        else:
            name = "tab\tname%d.dat" % rng.randrange(10)
        if name not in names:
            names.append(name)
    return names


def make_files(rng, count, odd=False, sizes=None, kinds=KINDS, modes=MODES):
    files = []
    for name in member_names(rng, count, odd):
        size = rng.choice(sizes) if sizes else None
        files.append((name, content(rng, size, kinds), rng.randint(0, 2**31 - 1), rng.choice(modes)))
    return files


def create_argv(rng, fmt, method=None, key=None, block=None):
    argv = ["c"]
    options = []
    if fmt is not None:
        options.append(["-f", str(fmt)])
    if method is not None:
        options.append(["-m", method])
    if key is not None:
        options.append(["-k", key])
    if block is not None:
        options.append(["-b", str(block)])
    rng.shuffle(options)
    for pair in options:
        argv += pair
    return argv + ["@OUT"]


def archive_spec(rng, fmt=None, key=None, odd=False, count=None, modes=ARCHIVE_MODES):
    """Files plus the create argv of a valid archive."""
    if fmt is None:
        fmt = rng.choice([1, 2, 3, 3, 3, 3])
    method = rng.choice(["store", "rle"] if fmt == 1 else ["store", "rle", "lz", "lz", "lz"])
    block = rng.choice([None, 512, 1024, 4096, 16384]) if fmt == 3 else None
    files = make_files(rng, count or rng.randint(1, 5), odd=odd, modes=modes)
    argv = create_argv(rng, None if fmt == 3 and rng.random() < 0.3 else fmt,
                       None if method == "lz" and fmt != 1 and rng.random() < 0.3 else method,
                       key, block)
    return files, argv + [name for name, _, _, _ in files]


def read_argv(command, key=None):
    argv = [command]
    if key is not None:
        argv += ["-k", key]
    argv.append("@ARCHIVE")
    if command == "x":
        argv.append("@DEST")
    return argv


# -- categories --------------------------------------------------------------------------


def list_archives(rng):
    cases = []
    for i in range(8):
        key = rng.choice(KEYS) if i % 3 == 2 else None
        fmt = 3 if key else [3, 1, 3, 3, 3, 3, 2, 3][i]
        files, build = archive_spec(rng, fmt=fmt, key=key, odd=i % 4 == 1)
        cases.append(Case("list", files, read_argv("l"), build))
    return cases


def extract_archives(rng):
    return [Case("extract", *spec[:1], read_argv("x"), spec[1])
            for spec in (archive_spec(rng, fmt=[3, 3, 1, 3, 3, 3][i]) for i in range(6))]


def encrypted_archives(rng):
    cases = []
    plan = [("t", "right"), ("x", "right"), ("x", "right"), ("t", "wrong"), ("x", "none"),
            ("t", "right")]
    for command, which in plan:
        key = rng.choice(KEYS)
        files, build = archive_spec(rng, fmt=rng.choice([2, 3, 3, 3]), key=key)
        given = {"right": key, "wrong": key + "x", "none": None}[which]
        cases.append(Case("encrypted-%s-%s" % (command, which), files, read_argv(command, given),
                          build))
    return cases


def create_formats(rng):
    cases = []
    for fmt, method in [(1, "rle"), (2, "rle"), (3, "rle"), (3, "store"), (3, "rle"),
                        (3, rng.choice(["rle", "store"]))]:
        files = make_files(rng, rng.randint(1, 4), sizes=[0, 1, 2, 3, 130, 700, 3000, 9000],
                           kinds=[runs, ledger_text, noise, records, break_even, break_even])
        cases.append(Case("create-f%d-%s" % (fmt, method), files,
                          create_argv(rng, fmt, method) + [n for n, _, _, _ in files]))
    return cases


def create_lz(rng):
    cases = []
    for i in range(6):
        fmt = 2 if i in (1, 4) else None
        files = make_files(rng, rng.randint(1, 3), sizes=[4000, 12000, 30000],
                           kinds=[ledger_text, periodic, records, mixed])
        cases.append(Case("create-lz", files,
                          create_argv(rng, fmt, "lz" if i % 3 else None) + [n for n, _, _, _ in files]))
    return cases


def create_blocks(rng):
    cases = []
    for i in range(6):
        key = rng.choice(KEYS) if i % 2 else None
        block = rng.choice([512, 1024, 2048, 8192, 65536])
        files = make_files(rng, rng.randint(1, 4), sizes=[0, 511, 512, 513, 3000, 9000, 20000],
                           kinds=[mixed, ledger_text, noise, runs], odd=i == 4)
        cases.append(Case("create-f3-blocks", files,
                          create_argv(rng, 3, rng.choice(["lz", "rle", None]), key, block)
                          + [n for n, _, _, _ in files]))
    return cases


DAMAGE = ["truncate", "flip_head", "flip_any", "flip_head", "trailing", "version", "ff_run",
          "flip_tail", "zero_run", "truncate"]


def malformed_archives(rng):
    cases = []
    for operation in DAMAGE:
        key = rng.choice(KEYS) if rng.random() < 0.25 else None
        fmt = rng.choice([2, 3, 3]) if key else rng.choice([1, 2, 3, 3, 3, 3, 3, 3])
        files, build = archive_spec(rng, fmt=fmt, key=key, count=rng.randint(1, 3))
        value = {"truncate": rng.random(), "flip_head": (rng.randrange(4, 48), rng.randint(1, 255)),
                 "flip_any": (rng.random(), rng.randint(1, 255)),
                 "version": rng.choice([0, 4, 9, 0x33]), "trailing": noise(rng, rng.randint(1, 20)),
                 "ff_run": (rng.randrange(4, 40), rng.randint(2, 8)),
                 "flip_tail": (rng.randint(1, 8), rng.randint(1, 255)),
                 "zero_run": (rng.random(), rng.randint(2, 12))}[operation]
        command = rng.choice(["l", "t", "x"])
        cases.append(Case("malformed-%s-%s" % (operation, command), files,
                          read_argv(command, None if command == "l" else key), build,
                          [(operation, value)]))
    return cases


def damaged_members(rng):
    cases = []
    for i in range(6):
        command = "x" if i % 2 else "t"
        if i == 5:
            files = make_files(rng, 3)
            files.append(("evil.txt", b"should never be extracted\n", 1_600_000_000, 0o644))
            names = [n for n, _, _, _ in files[:3]] + ["sub/../evil.txt"]
            files.append(("sub/keep", b"", 1_600_000_000, 0o644))
            files.append(("back\\slash.txt", b"\\", 1_600_000_000, 0o644))
            names.insert(rng.randrange(len(names) + 1), "back\\slash.txt")
            build = create_argv(rng, None, "lz") + names
            cases.append(Case("unsafe-name", files, read_argv("x"), build))
            continue
        files, build = archive_spec(rng, fmt=rng.choice([1, 2, 3, 3, 3, 3, 3, 3]),
                                    count=rng.randint(2, 4))
        flips = [(rng.uniform(0.35, 0.999), rng.randint(1, 255)) for _ in range(rng.randint(1, 2))]
        cases.append(Case("damaged-%s" % command, files, read_argv(command), build,
                          [("flip_any", flip) for flip in flips]))
    return cases


def cli_errors(rng):
    files = make_files(rng, 2, sizes=[300, 2000])
    names = [n for n, _, _, _ in files]
    scenarios = [
        ["c", "-f", rng.choice(["4", "0", "two", "33"]), "@OUT"] + names,
        ["c", "-m", rng.choice(["zip", "LZ", "deflate", ""]), "@OUT"] + names,
        ["c", "-b", rng.choice(["1000", "256", "131072", "-512", "4k", "0x200"]), "@OUT"] + names,
        ["c", "-f", "1", "-m", "lz", "@OUT"] + names,
        ["c", "-f", "1", "-k", rng.choice(KEYS), "@OUT"] + names,
        ["c", "-m", "rle", "-f", "1", "-k", "key", "-b", "999", "@OUT"] + names,
        ["c", "@OUT", names[0], "missing-%d.csv" % rng.randrange(100)],
        ["c", "@OUT", names[0], "./" + names[0]],
        ["c", "@OUT", "./"],
        ["c", "-z", "@OUT"] + names,
        ["c", "-f"],
        ["c", "@OUT"],
        ["q", "@OUT"],
        [],
        ["x", "-k", "", "@OUT", "@DEST"],
        ["l", "-k", "key", "@OUT"],
        ["t", "-k"],
        ["c", "-m", "rle", "--", "@OUT"] + names,
    ]
    picks = rng.sample(scenarios[:-1], 5) + [scenarios[-1]]
    return [Case("cli", files, argv) for argv in picks]


CATEGORIES = {
    "list_archives": (2, list_archives),
    "extract_archives": (2, extract_archives),
    "encrypted_archives": (2, encrypted_archives),
    "create_formats": (2, create_formats),
    "create_lz": (4, create_lz),
    "create_blocks": (4, create_blocks),
    "malformed_archives": (3, malformed_archives),
    "damaged_members": (2, damaged_members),
    "cli_errors": (1, cli_errors),
}


def public_samples():
    """The bundled samples (/app/samples): {archive name: (files, create argv)}."""
    rng = random.Random("pak-port/public")
    samples = {}
    for name, fmt, method in [("ledger-2016.pak", 1, "rle"), ("ledger-2021.pak", 2, "lz")]:
        files = []
        for rel, kind, size in [("summary.txt", ledger_text, 900), ("batch/2016-03.csv", ledger_text, 6000),
                                ("batch/2016-04.csv", records, 2500), ("scans/blank.bin", runs, 1200)]:
            rel = rel.replace("2016", name[7:11])
            files.append((rel, kind(rng, size), 1450000000 + rng.randrange(10**8), 0o644))
        samples[name] = (files, create_argv(rng, fmt, method) + [rel for rel, _, _, _ in files])
    return samples


def public_cases():
    samples = public_samples()
    return {
        "public_listing": [Case("public-l", files, read_argv("l"), build, archive=name)
                           for name, (files, build) in samples.items()],
        "public_extract": [Case("public-x", files, read_argv("x"), build, archive=name)
                           for name, (files, build) in samples.items()],
    }


def hidden_cases(seed):
    """{category: [Case, ...]}, a fixed function of ``seed``."""
    out = {}
    for index, (name, (_, make)) in enumerate(CATEGORIES.items()):
        out[name] = make(random.Random("pak-port/%d/%d" % (seed, index)))
    return out


def apply_damage(data, damage):
    data = bytearray(data)
    for operation, value in damage:
        n = len(data)
        if operation == "truncate":
            data = data[:int(value * n)]
        elif operation == "flip_head":
            pos, mask = value
            if n:
                data[min(pos, n - 1)] ^= mask
        elif operation == "flip_any":
            frac, mask = value
            if n:
                data[min(int(frac * n), n - 1)] ^= mask
        elif operation == "version":
            data[3] = value
        elif operation == "trailing":
            data += value
        elif operation == "ff_run":
            pos, length = value
            data[pos:pos + length] = b"\xff" * length
        elif operation == "flip_tail":
            pos, mask = value
            if n >= pos:
                data[n - pos] ^= mask
        elif operation == "zero_run":
            frac, length = value
            pos = int(frac * n)
            data[pos:pos + length] = bytes(len(data[pos:pos + length]))
    return bytes(data)
