"""What a parsed archive holds."""

METHODS = {0: "store", 1: "rle", 2: "lz"}
METHOD_IDS = {name: number for number, name in METHODS.items()}
MAX_ENTRY_SIZE = 64 * 1024 * 1024
FLAG_ENCRYPTED = 0x01


class Entry:
    """One member. Formats 1 and 2 have one payload; format 3 has a list of blocks."""

    def __init__(self, name):
        self.name = name
        self.mtime = None
        self.mode = None
        self.method = 0
        self.size = 0
        self.check = 0
        self.payload = b""
        self.blocks = None

    def packed(self):
        if self.blocks is None:
            return len(self.payload)
        return sum(len(payload) for _, payload in self.blocks)


class Archive:
    def __init__(self, version):
        self.version = version
        self.flags = 0
        self.block_exp = 0
        self.pwcheck = None
        self.entries = []
        self.trailer_ok = None
        self.trailing = 0

    @property
    def encrypted(self):
        return bool(self.flags & FLAG_ENCRYPTED)

    @property
    def block_size(self):
        return 1 << self.block_exp


def display_name(name):
    """Names as the tool prints them: control and non-ASCII bytes become '?'."""
    return "".join(chr(b) if 0x20 <= b < 0x7F else "?" for b in name)
