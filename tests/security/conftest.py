"""Fixtures of the red-team suite: every backend, the attack task, leftover checks.

Backends: Docker always (skipped without a daemon, failed under CI=true), and
the local backend when it imports and this host can run it (again: failed,
not skipped, under CI=true).
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import lhtb
from lhtb.sandbox.archive import ArchiveLimits
from lhtb.sandbox.base import SandboxBackend

from ._attack import MARK, write_attack_task, write_results

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
LIMITS = ArchiveLimits(max_total_bytes=64 * 1024**2, max_members=2000)
"""Lowered caps, so that over-cap artifacts are quick to make."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "security" in str(item.fspath):
            item.add_marker(pytest.mark.slow)


def _unavailable(name: str, error: object) -> None:
    message = f"the {name} backend cannot run here: {error}"
    if IN_CI:
        pytest.fail(f"{message} (CI=true: every backend must run)")
    pytest.skip(message)


def make_backend(name: str, **overrides: object) -> SandboxBackend:
    """A backend with the suite's lowered limits (``overrides`` go to its settings)."""
    if name == "docker":
        from lhtb.sandbox.docker import DockerBackend, DockerSettings

        docker = {"pids_limit": 256, "max_snapshot_bytes": 2 * 1024**3}
        settings = DockerSettings(**{"archive_limits": LIMITS, **docker, **overrides})  # type: ignore[arg-type]
        return DockerBackend(settings=settings)
    from lhtb.sandbox.local import LocalBackend, LocalSettings

    return LocalBackend(LocalSettings(**{"archive_limits": LIMITS, **overrides}))  # type: ignore[arg-type]


def available(name: str, request: pytest.FixtureRequest) -> None:
    if name == "docker":
        request.getfixturevalue("docker_client")
        return
    try:
        from lhtb.sandbox.local import check_host
    except ImportError as error:
        _unavailable(name, error)
        return
    try:
        check_host()
    except Exception as error:
        _unavailable(name, error)


@pytest.fixture(scope="session", params=["docker", "local"])
def backend(request: pytest.FixtureRequest) -> SandboxBackend:
    available(request.param, request)
    return make_backend(request.param)


@pytest.fixture(scope="session")
def attack_task(tmp_path_factory: pytest.TempPathFactory) -> lhtb.Task:
    return lhtb.load_task(write_attack_task(tmp_path_factory.mktemp("sec") / "attack"))


def _owner(pid: int) -> tuple[str, str] | None:
    """(backend, sandbox id) of the sandbox a host process runs in, from its cgroup."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        path = line.split(":", 2)[-1]
        match = re.search(r"docker[/-]([0-9a-f]{64})", path)
        if match:
            return "docker", match.group(1)
        match = re.search(r"/lhtb/(lb-[0-9a-f]+)", path)
        if match:
            return "local", match.group(1)
    return None


def _run_of(owner: tuple[str, str]) -> str | None:
    """The run id of a sandbox; ``None`` when the sandbox is gone (its processes are strays)."""
    backend, ident = owner
    if backend == "docker":
        try:
            import docker

            container = docker.from_env(timeout=10).containers.get(ident)
        except Exception:
            return None
        return str(container.labels.get("lhtb.run"))
    from lhtb.sandbox.local import LocalBackend

    record = LocalBackend().sandboxes_dir / ident / "sandbox.json"
    try:
        return str(json.loads(record.read_text()).get("run_id"))
    except (OSError, ValueError):
        return None


def _marked_pids(run_id: str) -> list[int]:
    """Attack processes of ``run_id``, or of no sandbox at all (other runs' are theirs)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if MARK.encode() not in cmdline:
            continue
        owner = _owner(int(entry.name))
        if owner is None:
            continue  # not in a sandbox we can attribute
        if _run_of(owner) in {run_id, None}:
            found.append(int(entry.name))
    return found


def leftovers(run_id: str) -> list[str]:
    """Containers, snapshot images, local sandboxes and attack processes of ``run_id``."""
    found: list[str] = []
    try:
        import docker

        client = docker.from_env(timeout=10)
        label = {"label": f"lhtb.run={run_id}"}
        found += [f"container {c.name}" for c in client.containers.list(all=True, filters=label)]
        found += [f"image {i.tags}" for i in client.images.list(filters=label)]
    except Exception:  # no daemon: nothing of Docker's to leave behind
        pass
    from lhtb.sandbox.local import LocalBackend

    backend = LocalBackend()
    for kind, pattern, record in (
        ("local sandbox", "lb-*", "sandbox.json"),
        ("local snapshot", "snap-*", "image.json"),
    ):
        root = backend.sandboxes_dir if kind == "local sandbox" else backend.images_dir
        for path in root.glob(pattern):
            try:
                text = (path / record).read_text(errors="ignore")
            except FileNotFoundError:
                continue  # removed (or not yet written) meanwhile: not a leftover of this run
            if run_id in text:
                found.append(f"{kind} {path}")
    return found


@pytest.fixture
def run_id() -> Iterator[str]:
    """A run id per test; nothing may be left under it, and no attack process may live on."""
    value = f"sec-{uuid.uuid4().hex[:10]}"
    yield value
    deadline = time.monotonic() + 10
    while _marked_pids(value) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _marked_pids(value) == [], "attack processes outlived their sandbox"
    assert leftovers(value) == []


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    write_results()
