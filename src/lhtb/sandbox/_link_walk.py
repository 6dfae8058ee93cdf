"""Resolve symbolic links of an archive the way the kernel will after extraction.

A lexical check (``normpath``) is not enough: with ``a -> .`` in an archive,
``answer -> a/../tests/x`` reads as ``<root>/tests/x`` but the kernel follows
``a`` first, lands in ``<root>``'s parent and opens ``/tests/x``. Here each
link is followed component by component through the archive's own links
(``..`` goes to the parent of the directory reached so far), and the walk must
never leave the root.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping

__all__ = ["MAX_LINK_HOPS", "escapes"]

MAX_LINK_HOPS = 40
"""The kernel's limit on links followed in one lookup (``ELOOP`` beyond)."""


def _parts(path: str) -> list[str]:
    return [p for p in path.split("/") if p not in {"", "."}]


def escapes(link: str, target: str, links: Mapping[str, str], root: str) -> str | None:
    """Why following the link at ``link`` (to ``target``) leaves ``root``; ``None`` when
    it stays inside.

    ``link`` and ``root`` are absolute paths of the extracted tree; ``links``
    maps the absolute path of every symbolic link in the archive to its target.
    Components the archive does not hold are taken as directories: whatever
    the destination already has there is not the archive's to redirect.
    """
    base = _parts(root)
    current = [] if target.startswith("/") else _parts(posixpath.dirname(link))
    pending = _parts(target)
    hops = 1
    while pending:
        part = pending.pop(0)
        if part == "..":
            current = current[:-1]
        else:
            current = [*current, part]
            found = links.get("/" + "/".join(current))
            if found is not None:
                hops += 1
                if hops > MAX_LINK_HOPS:
                    return f"more than {MAX_LINK_HOPS} links in a row"
                pending = _parts(found) + pending
                if found.startswith("/"):
                    current = []
                    continue  # judged once the walk takes its next step down
                current = current[:-1]
        if current[: len(base)] != base:
            return f"it resolves through {'/' + '/'.join(current)!r}"
    if current[: len(base)] != base:
        return f"it resolves to {'/' + '/'.join(current)!r}"
    return None
