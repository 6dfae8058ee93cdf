"""Typed, strict access to the tables of a parsed TOML file.

A :class:`Reader` collects :class:`~lhtb.errors.TaskFormatError` s instead of
raising on the first one, so a user sees every problem of a file at once. A
:class:`Section` is one table of the file: building it rejects unknown keys,
and its getters check types and ranges, record an error and fall back to the
default when a value is wrong.
"""

from __future__ import annotations

import difflib
import enum
import math
import re
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from lhtb.errors import TaskFormatError, UnsupportedFeatureError
from lhtb.task._model import _TEMPLATE
from lhtb.task._toml_lines import KeyPath, dotted, line_of

__all__ = ["Reader", "Section", "closest", "describe"]

_D = TypeVar("_D")
_E = TypeVar("_E", bound=enum.Enum)

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def closest(word: str, choices: Collection[str]) -> str | None:
    """The valid choice nearest to a misspelt ``word`` (difflib), if any is close."""
    matches = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return matches[0] if matches else None


def describe(value: object) -> str:
    """``string "3600"``, ``boolean true``: a value as the user wrote it, with its TOML type."""
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"integer {value}"
    if isinstance(value, float):
        return f"float {value}"
    if isinstance(value, str):
        return f'string "{value}"'
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"{type(value).__name__} {value}"


def _section_label(path: KeyPath) -> str:
    if not path:
        return "the top level of task.toml"
    return dotted(path) if isinstance(path[-1], int) else f"[{dotted(path)}]"


class Reader:
    """Error collection and line lookup for one TOML file."""

    def __init__(
        self,
        file: Path,
        lines: Mapping[KeyPath, int],
        homes: Mapping[str, Collection[str]] | None = None,
    ) -> None:
        self.file = file
        self.lines = lines
        self.homes = homes or {}
        self.errors: list[TaskFormatError] = []

    def fail(self, what: str, path: KeyPath, fix: str | None = None) -> None:
        """Record a problem with the key at ``path``."""
        self.errors.append(
            TaskFormatError(
                what,
                path=self.file,
                line=line_of(self.lines, path),
                key=dotted(path) or None,
                fix=fix,
            )
        )

    def section(self, data: Mapping[str, Any], path: KeyPath, allowed: Collection[str]) -> Section:
        """A checked view of ``data``; unknown keys are reported right away."""
        return Section(self, data, path, allowed)


class Section:
    """One table of the file, with getters that validate as they read."""

    def __init__(
        self, reader: Reader, data: Mapping[str, Any], path: KeyPath, allowed: Collection[str]
    ) -> None:
        self.reader = reader
        self.data = data
        self.path = path
        for key in data:
            if key not in allowed:
                self._unknown(key, allowed)

    def _unknown(self, key: str, allowed: Collection[str]) -> None:
        where = _section_label(self.path)
        hints: list[str] = []
        suggestion = closest(key, allowed)
        if suggestion is not None:
            hints.append(f"Did you mean `{suggestion}` (the closest valid key)?")
        homes = [home for home in self.reader.homes.get(key, ()) if home != dotted(self.path)]
        if homes:
            places = " or ".join(f"[{home}]" if home else "the top level" for home in homes)
            hints.append(f"`{key}` is valid in {places}; move it there.")
        hints.append(f"Valid keys in {where}: {', '.join(sorted(allowed))}")
        in_where = f"in {where}" if self.path else "at the top level of task.toml"
        self.reader.fail(f"unknown key `{key}` {in_where}", (*self.path, key), " ".join(hints))

    def key(self, key: str) -> KeyPath:
        """The full path of ``key`` in this section."""
        return (*self.path, key)

    def fail(self, key: str, what: str, fix: str | None = None) -> None:
        """Record a problem with ``key`` of this section."""
        self.reader.fail(what, self.key(key), fix)

    def unsupported(self, key: str, what: str, fix: str) -> NoReturn:
        """Raise that ``key`` of this section asks for ``what``, which lhtb does not run.

        Raises:
            UnsupportedFeatureError: always (the task is skipped, not broken).
        """
        raise UnsupportedFeatureError(
            f"{what} ({dotted(self.key(key))}) is not supported",
            path=self.reader.file,
            line=line_of(self.reader.lines, self.key(key)),
            key=dotted(self.key(key)),
            fix=fix,
        )

    def has(self, key: str) -> bool:
        """Whether the file sets ``key`` in this section."""
        return key in self.data

    def _wrong_type(self, key: str, expected: str, value: object, fix: str) -> None:
        name = dotted(self.key(key))
        self.fail(key, f"`{name}` must be {expected}, got {describe(value)}", fix)

    # -- scalars -------------------------------------------------------------------------------

    def string(self, key: str, default: _D, *, required: bool = False) -> str | _D:
        """A non-empty string."""
        if key not in self.data:
            if required:
                self.fail(
                    key,
                    f"missing required key `{dotted(self.key(key))}`",
                    f'Add {key} = "..." to {_section_label(self.path)}',
                )
            return default
        value = self.data[key]
        if not isinstance(value, str):
            self._wrong_type(key, "a string", value, f'Quote it: {key} = "{value}"')
            return default
        if not value.strip():
            self.fail(
                key, f"`{dotted(self.key(key))}` is empty", f"Give {key} a value or remove it"
            )
            return default
        return value

    def boolean(self, key: str, default: bool) -> bool:
        """``true`` or ``false``."""
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            self._wrong_type(key, "true or false", value, f"Write {key} = true or {key} = false")
            return default
        return value

    def number(
        self,
        key: str,
        default: _D,
        *,
        minimum: float = 0.0,
        inclusive: bool = False,
        maximum: float | None = None,
        unit: str = "",
    ) -> float | _D:
        """A finite int or float above ``minimum`` (or equal to it when ``inclusive``)."""
        if key not in self.data:
            return default
        value = self.data[key]
        expected = f"a number{unit}"
        if isinstance(value, bool) or not isinstance(value, int | float):
            fix = f"Write a bare number, e.g. {key} = {600 if unit else 1}"
            if isinstance(value, str) and _is_number(value):
                fix = f"Remove the quotes: {key} = {value.strip()}"
            self._wrong_type(key, expected, value, fix)
            return default
        return self._in_range(key, value, default, minimum, inclusive, maximum)

    def integer(
        self, key: str, default: _D, *, minimum: int = 1, maximum: int | None = None
    ) -> int | _D:
        """A whole number >= ``minimum``."""
        if key not in self.data:
            return default
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int):
            fix = f"Write a whole number, e.g. {key} = {max(minimum, 1)}"
            if isinstance(value, float) and value.is_integer():
                fix = f"Drop the decimal point: {key} = {int(value)}"
            elif isinstance(value, str) and value.strip().isdigit():
                fix = f"Remove the quotes: {key} = {value.strip()}"
            self._wrong_type(key, "a whole number (integer)", value, fix)
            return default
        in_range = self._in_range(key, value, None, minimum, True, maximum)
        return default if in_range is None else value

    def _in_range(
        self,
        key: str,
        value: float,
        default: _D,
        minimum: float,
        inclusive: bool,
        maximum: float | None,
    ) -> float | _D:
        name = dotted(self.key(key))
        if not math.isfinite(value):
            self.fail(
                key, f"`{name}` must be a finite number, got {value}", f"Set {key} to a number"
            )
            return default
        too_low = value < minimum if inclusive else value <= minimum
        if too_low:
            bound = f">= {_num(minimum)}" if inclusive else f"> {_num(minimum)}"
            self.fail(
                key, f"`{name}` must be {bound}, got {_num(value)}", f"Set {key} to a value {bound}"
            )
            return default
        if maximum is not None and value > maximum:
            self.fail(
                key,
                f"`{name}` must be <= {_num(maximum)}, got {_num(value)}",
                f"Set {key} to a value <= {_num(maximum)}",
            )
            return default
        return value

    def choice(
        self, key: str, enum_type: type[_E], default: _D, *, ignore_case: bool = False
    ) -> _E | _D:
        """One of the values of ``enum_type``."""
        if key not in self.data:
            return default
        value = self.data[key]
        values = [str(member.value) for member in enum_type]
        listing = ", ".join(f'"{item}"' for item in values)
        if not isinstance(value, str):
            self._wrong_type(key, f"one of {listing}", value, f'Write e.g. {key} = "{values[0]}"')
            return default
        wanted = value.lower() if ignore_case else value
        for member in enum_type:
            if member.value == wanted:
                return member
        suggestion = closest(wanted, values)
        fix = f'Did you mean "{suggestion}"?' if suggestion else f"Use one of {listing}"
        self.fail(key, f'`{dotted(self.key(key))}` must be one of {listing}, got "{value}"', fix)
        return default

    def user(self, key: str) -> str | int | None:
        """An OS user: a name or a numeric uid."""
        if key not in self.data:
            return None
        value = self.data[key]
        if isinstance(value, int) and not isinstance(value, bool):
            return self.integer(key, None, minimum=0)
        if not isinstance(value, str):
            self._wrong_type(
                key, "a user name or a numeric uid", value, f'Write e.g. {key} = "agent"'
            )
            return None
        return self.string(key, None)

    # -- collections ---------------------------------------------------------------------------

    def string_list(self, key: str, default: _D) -> tuple[str, ...] | _D:
        """An array of non-empty strings."""
        if key not in self.data:
            return default
        value = self.data[key]
        if not isinstance(value, list):
            self._wrong_type(key, "an array of strings", value, f'Write {key} = ["..."]')
            return default
        for index, item in enumerate(value):
            if not isinstance(item, str) or not item.strip():
                self.reader.fail(
                    f"`{dotted((*self.key(key), index))}` must be a non-empty string, "
                    f"got {describe(item)}",
                    (*self.key(key), index),
                    f'Write every entry of {key} as a quoted string, e.g. "{item}"',
                )
                return default
        return tuple(value)

    def env(self, key: str) -> dict[str, str]:
        """A table of environment variables; ``${VAR}`` templates are checked, not resolved."""
        table = self.table(key, None)
        if table is None:
            return {}
        result: dict[str, str] = {}
        for name, value in table.data.items():
            path = table.key(name)
            if not _ENV_NAME.match(name):
                self.reader.fail(
                    f"`{dotted(path)}`: {name!r} is not a valid environment variable name",
                    path,
                    "Use letters, digits and underscores, not starting with a digit",
                )
            elif not isinstance(value, str):
                table._wrong_type(name, "a string", value, f'Quote the value: {name} = "{value}"')
            elif (bad := _malformed_template(value)) is not None:
                self.reader.fail(
                    f"`{dotted(path)}` has a malformed template {bad!r} in {value!r}",
                    path,
                    "Write ${VAR} or ${VAR:-default}, where VAR starts with a letter or "
                    "underscore and holds only letters, digits and underscores",
                )
            else:
                result[name] = value
        return result

    def table(self, key: str, allowed: Collection[str] | None) -> Section | None:
        """The sub-table ``key`` (any keys when ``allowed`` is None), or None when absent."""
        if key not in self.data:
            return None
        value = self.data[key]
        if not isinstance(value, dict):
            name = dotted(self.key(key))
            self._wrong_type(key, "a table", value, f"Write it as a [{name}] section")
            return None
        return Section(
            self.reader, value, self.key(key), value.keys() if allowed is None else allowed
        )

    def tables(self, key: str, allowed: Collection[str]) -> list[Section]:
        """The array of tables ``key`` (``[[key]]``), empty when absent."""
        if key not in self.data:
            return []
        value = self.data[key]
        name = dotted(self.key(key))
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            self._wrong_type(key, "an array of tables", value, f"Write each entry as [[{name}]]")
            return []
        return [
            Section(self.reader, item, (*self.key(key), index), allowed)
            for index, item in enumerate(value)
        ]


def _malformed_template(value: str) -> str | None:
    """The first ``${...`` in ``value`` that is not a well-formed template, if any."""
    start = value.find("${")
    while start >= 0:
        match = _TEMPLATE.match(value, start)
        if match is None:
            end = value.find("}", start)
            return value[start : end + 1] if end >= 0 else value[start:]
        start = value.find("${", match.end())
    return None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
