"""The run manifest (``run.json``): what a benchmark run is, so a resume can check it.

The manifest holds the run's configuration (tasks and their checksums, agents,
attempts, budget, feedback and the other settings that change scores), its
hash, the run id that labels every sandbox, and one history entry per
invocation. Operational settings (concurrency, retries, progress) are not part
of the configuration: they may change between invocations.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lhtb.errors import LhtbError, RunConfigChangedError, RunLockedError
from lhtb.verify._seeds import random_seed

__all__ = [
    "MANIFEST_NAME",
    "config_hash",
    "describe_changes",
    "hold_lock",
    "open_manifest",
]

MANIFEST_NAME = "run.json"
LOCK_NAME = ".run.lock"
MANIFEST_VERSION = 1


def config_hash(config: Mapping[str, Any]) -> str:
    """A stable SHA-256 of the configuration (canonical JSON)."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _fmt(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def describe_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Human-readable differences between two configurations, task by task."""
    changes: list[str] = []
    for key in sorted(set(old) | set(new)):
        before, after = old.get(key), new.get(key)
        if before == after:
            continue
        if key == "tasks" and isinstance(before, dict) and isinstance(after, dict):
            added = sorted(set(after) - set(before))
            removed = sorted(set(before) - set(after))
            edited = sorted(k for k in set(before) & set(after) if before[k] != after[k])
            if added:
                changes.append(f"tasks added: {', '.join(added)}")
            if removed:
                changes.append(f"tasks removed: {', '.join(removed)}")
            if edited:
                changes.append(f"task files changed (checksum): {', '.join(edited)}")
            continue
        changes.append(f"{key}: {_fmt(before)} -> {_fmt(after)}")
    return changes


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, sort_keys=True, default=str)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        Path(name).replace(path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def read_manifest(directory: Path) -> dict[str, Any] | None:
    """The manifest in ``directory``, or None when there is none."""
    path = directory / MANIFEST_NAME
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LhtbError(
            f"cannot read the run manifest: {exc}",
            where=str(path),
            fix="restore run.json, or choose a new output directory",
        ) from exc
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict):
        raise LhtbError(
            "the run manifest has no 'config' object",
            where=str(path),
            fix="restore run.json, or choose a new output directory",
        )
    return data


def open_manifest(
    directory: Path, config: Mapping[str, Any], run_id: str, *, seed: int | None = None
) -> dict[str, Any]:
    """Create the manifest, or check and extend the one a previous invocation wrote.

    Returns the manifest (with the run id and the run seed to use: a resumed
    run keeps both; ``seed`` is a new run's, default random).

    Raises:
        RunConfigChangedError: the directory holds a run with another configuration.
    """
    seed = random_seed() if seed is None else seed
    directory.mkdir(parents=True, exist_ok=True)
    now = datetime.now(UTC).isoformat()
    entry = {"started_at": now, "pid": os.getpid()}
    existing = read_manifest(directory)
    digest = config_hash(config)
    if existing is None:
        manifest: dict[str, Any] = {
            "version": MANIFEST_VERSION,
            "run_id": run_id,
            "created_at": now,
            "config_hash": digest,
            "config": dict(config),
            "seed": seed,
            "invocations": [entry],
        }
    else:
        old = existing["config"]
        if existing.get("config_hash") != digest or config_hash(old) != digest:
            changes = describe_changes(old, json.loads(json.dumps(config, default=str)))
            raise RunConfigChangedError(directory, changes or ["settings differ"])
        manifest = existing
        manifest.setdefault("seed", seed)
        manifest.setdefault("invocations", []).append(entry)
    _write_json(directory / MANIFEST_NAME, manifest)
    return manifest


def finish_manifest(directory: Path, manifest: dict[str, Any], **summary: Any) -> None:
    """Record how this invocation ended in its history entry."""
    manifest["invocations"][-1].update(ended_at=datetime.now(UTC).isoformat(), **summary)
    _write_json(directory / MANIFEST_NAME, manifest)


@contextlib.contextmanager
def hold_lock(directory: Path) -> Iterator[None]:
    """Hold an exclusive lock on the run directory (released by the kernel on a kill).

    Raises:
        RunLockedError: another process holds it.
    """
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / LOCK_NAME
    with path.open("a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            raise RunLockedError(
                f"another lhtb process (pid {holder}) is running into this directory",
                where=str(directory),
                fix="wait for it to finish or stop it; two runs must not share a directory",
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
