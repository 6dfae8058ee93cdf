"""The Dockerfile subset the local backend provisions from.

Honoured: ``FROM`` (recorded; the host's filesystem stands in for the base
image), ``ARG``, ``ENV``, ``WORKDIR``, ``USER``, ``RUN`` (shell and exec form),
``COPY``/``ADD`` of files from the build context (``--chown``, ``--chmod``).
Ignored because they only describe how a container is launched: ``LABEL``,
``MAINTAINER``, ``EXPOSE``, ``CMD``, ``ENTRYPOINT``, ``STOPSIGNAL``. Anything
else (multi-stage builds, ``COPY --from``, ``ADD`` of URLs or archives,
``SHELL``, ``VOLUME``, ``HEALTHCHECK``, ``ONBUILD``, heredocs) is an
:class:`~lhtb.errors.UnsupportedFeatureError` naming the line.
"""

from __future__ import annotations

import io
import json
import posixpath
import re
import shlex
import tarfile
from collections.abc import Mapping
from pathlib import Path

import attrs

from lhtb.errors import UnsupportedFeatureError

__all__ = ["Instruction", "build_context_tar", "parse_dockerfile", "substitute"]

IGNORED = frozenset({"LABEL", "MAINTAINER", "EXPOSE", "CMD", "ENTRYPOINT", "STOPSIGNAL"})
SUPPORTED = frozenset({"FROM", "ARG", "ENV", "WORKDIR", "USER", "RUN", "COPY", "ADD"})
_ARCHIVE_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".zip")
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))")
_FIX = "Use the Docker backend (`--backend docker`) for this task"


@attrs.frozen
class Instruction:
    """One Dockerfile instruction: keyword (upper case), raw arguments, 1-based line."""

    keyword: str
    args: str
    line: int


def _unsupported(path: Path, line: int, what: str) -> UnsupportedFeatureError:
    return UnsupportedFeatureError(
        f"{what} is not supported by the local backend", path=path, line=line, fix=_FIX
    )


def parse_dockerfile(path: Path) -> list[Instruction]:
    """Split a Dockerfile into instructions, checking each against the subset.

    Raises:
        UnsupportedFeatureError: an instruction or form outside the subset (names the line).
    """
    instructions: list[Instruction] = []
    pending = ""
    start = 0
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if pending and stripped.startswith("#"):
            continue
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        text = (pending + stripped).strip()
        pending = ""
        if not text:
            continue
        keyword, _, args = text.partition(" ")
        instructions.append(Instruction(keyword.upper(), args.strip(), start))
    if pending.strip():
        keyword, _, args = pending.strip().partition(" ")
        instructions.append(Instruction(keyword.upper(), args.strip(), start))
    _check(path, instructions)
    return instructions


def _check(path: Path, instructions: list[Instruction]) -> None:
    seen_from = False
    for item in instructions:
        if item.keyword in IGNORED:
            continue
        if item.keyword not in SUPPORTED:
            raise _unsupported(path, item.line, f"the {item.keyword} instruction")
        if "<<" in item.args and item.keyword in {"RUN", "COPY", "ADD"}:
            raise _unsupported(path, item.line, "a heredoc")
        if item.keyword == "FROM":
            if seen_from:
                raise _unsupported(path, item.line, "a multi-stage build (a second FROM)")
            seen_from = True
        if item.keyword in {"COPY", "ADD"}:
            flags, sources, _ = split_copy(item.args)
            if any(flag.startswith("--from") for flag in flags):
                raise _unsupported(path, item.line, "COPY --from")
            unknown = [f for f in flags if not f.startswith(("--chown", "--chmod"))]
            if unknown:
                raise _unsupported(path, item.line, f"the {item.keyword} flag {unknown[0]}")
            if item.keyword == "ADD":
                for source in sources:
                    if "://" in source or source.startswith("git@"):
                        raise _unsupported(path, item.line, "ADD of a URL")
                    if source.endswith(_ARCHIVE_SUFFIXES):
                        raise _unsupported(path, item.line, "ADD of an archive (auto-extraction)")


def split_copy(args: str) -> tuple[list[str], list[str], str]:
    """``(flags, sources, destination)`` of a COPY/ADD (shell or JSON form)."""
    words: list[str] = json.loads(args) if args.startswith("[") else shlex.split(args)
    flags = [w for w in words if w.startswith("--")]
    rest = [w for w in words if not w.startswith("--")]
    if len(rest) < 2:
        return flags, rest, ""
    return flags, rest[:-1], rest[-1]


def substitute(text: str, variables: Mapping[str, str]) -> str:
    """Expand ``$VAR``, ``${VAR}`` and ``${VAR:-default}`` like Docker does in instructions."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(3)
        if name in variables:
            return variables[name]
        return match.group(2) or ""

    return _VARIABLE.sub(replace, text)


def parse_env(args: str) -> dict[str, str]:
    """``ENV a=b c="d e"`` or the legacy ``ENV key value`` form."""
    words = shlex.split(args)
    if words and "=" not in words[0]:
        key, _, value = args.partition(" ")
        return {key.strip(): value.strip()}
    return dict(word.split("=", 1) for word in words if "=" in word)


def build_context_tar(
    context: Path, sources: list[str], destination: str, workdir: str, *, where: str
) -> bytes:
    """A tar (names relative to ``/``) with COPY semantics for ``sources`` -> ``destination``.

    Raises:
        UnsupportedFeatureError: a source escapes the build context or matches nothing.
    """
    root = context.resolve()
    target = posixpath.normpath(posixpath.join(workdir or "/", destination))
    into_dir = destination.endswith("/") or len(sources) > 1
    matches: list[Path] = []
    for pattern in sources:
        found = (
            sorted(root.glob(pattern.lstrip("/")))
            if any(c in pattern for c in "*?[")
            else [root / pattern.lstrip("/")]
        )
        for candidate in found:
            resolved = candidate.resolve()
            if resolved != root and root not in resolved.parents:
                raise UnsupportedFeatureError(
                    f"COPY source {pattern!r} is outside the build context",
                    path=Path(where),
                    fix="Keep COPY sources inside environment/",
                )
            if not candidate.exists():
                raise UnsupportedFeatureError(
                    f"COPY source {pattern!r} does not exist in the build context",
                    path=Path(where),
                )
            matches.append(candidate)
    if not matches:
        raise UnsupportedFeatureError(f"COPY sources {sources} match nothing", path=Path(where))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        if into_dir:
            _add_parents(tar, target)
        for source in matches:
            if source.is_dir():
                _add_parents(tar, target)
                _add_tree(tar, source, target)
            else:
                name = posixpath.join(target, source.name) if into_dir else target
                _add_parents(tar, posixpath.dirname(name))
                tar.add(source, arcname=name.lstrip("/"), recursive=False, filter=_as_root)
    return buffer.getvalue()


def _as_root(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    return info


def _add_parents(tar: tarfile.TarFile, directory: str) -> None:
    if directory in {"", "/"}:
        return
    info = tarfile.TarInfo(directory.lstrip("/"))
    info.type = tarfile.DIRTYPE
    info.mode = 0o755
    tar.addfile(info)


def _add_tree(tar: tarfile.TarFile, source: Path, base: str) -> None:
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source).as_posix()
        tar.add(path, arcname=f"{base.strip('/')}/{relative}", recursive=False, filter=_as_root)
