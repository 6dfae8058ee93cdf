"""Errors and exit statuses of the pak tool."""

EXIT_OK = 0
EXIT_IO = 1
EXIT_FORMAT = 2
EXIT_DATA = 3
EXIT_UNSAFE = 4
EXIT_KEY = 5
EXIT_USAGE = 64


class PakError(Exception):
    """A fatal error: ``message`` goes to stderr (after ``pak: ``), ``code`` is the exit status."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class BadData(Exception):
    """An entry's payload cannot be decoded (wrong length, corrupt stream)."""
