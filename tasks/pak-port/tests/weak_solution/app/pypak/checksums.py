"""Checksums used by the pak formats."""

MASK32 = 0xFFFFFFFF


def _crc32_table():
    table = []
    for index in range(256):
        crc = index << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else (crc << 1)
            crc &= MASK32
        table.append(crc)
    return table


def _crc16_table():
    table = []
    for index in range(256):
        crc = index << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
        table.append(crc)
    return table


_CRC32 = _crc32_table()
_CRC16 = _crc16_table()


def crc32(data, crc=MASK32):
    """CRC-32, MSB-first, polynomial 0x04C11DB7, initial value all ones, no final xor."""
    table = _CRC32
    for byte in data:
        crc = ((crc << 8) & MASK32) ^ table[(crc >> 24) ^ byte]
    return crc


def crc16(data, crc=0xFFFF):
    """CRC-16, MSB-first, polynomial 0x1021, initial value 0xFFFF."""
    table = _CRC16
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc


def sum16(data):
    """Format 1's check value: the byte sum modulo 65536."""
    return sum(data) & 0xFFFF


def fnv1a32(data):
    value = 0x811C9DC5
    for byte in data:
        value ^= byte
        value = (value * 0x01000193) & MASK32
    return value
