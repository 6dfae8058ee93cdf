"""Base images for offline machines: make the images task Dockerfiles start FROM.

Where no registry is reachable, ``docker build`` fails on the first ``FROM``.
:func:`bootstrap_base_images` scans task Dockerfiles for their bases and, for
each one missing locally, tries a short pull; when that fails and the base is a
Debian release it knows, it builds the image from Debian's package archive
(``debootstrap --variant=minbase`` + ``docker import``) and tags it under every
name the tasks use. Images already present are left alone.
"""

from __future__ import annotations

import enum
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import attrs

from lhtb._log import get_logger
from lhtb.errors import BackendUnavailableError

__all__ = [
    "DEBIAN_ALIASES",
    "BaseImageAction",
    "BaseImageResult",
    "BootstrapReport",
    "bootstrap_base_images",
    "dockerfile_bases",
    "find_dockerfiles",
]

log = get_logger(__name__)

DEBIAN_MIRROR = "http://deb.debian.org/debian"
DEBIAN_ALIASES: dict[str, str] = {
    "debian:bookworm": "bookworm",
    "debian:bookworm-slim": "bookworm",
    "debian:12": "bookworm",
    "debian:12-slim": "bookworm",
}
"""Bases this module can build, and the Debian suite each one is made from."""

PULL_TIMEOUT_SEC = 30.0
DEBOOTSTRAP_TIMEOUT_SEC = 1800.0
IMPORT_TIMEOUT_SEC = 600.0
_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_FROM = re.compile(r"^\s*FROM\s+(?P<rest>.+)$", re.IGNORECASE)
_ARG = re.compile(r"^\s*ARG\s+(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:=(?P<value>\S*))?", re.I)
_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


class BaseImageAction(enum.StrEnum):
    """What bootstrapping did for one base image."""

    PRESENT = "present"
    PULLED = "pulled"
    BUILT = "built"
    TAGGED = "tagged"


@attrs.frozen
class BaseImageResult:
    """One base image: what was done, and from which suite or image when it was made."""

    image: str
    action: BaseImageAction
    source: str | None = None


@attrs.frozen
class BootstrapReport:
    """Everything :func:`bootstrap_base_images` found and did."""

    dockerfiles: tuple[Path, ...]
    results: tuple[BaseImageResult, ...]

    @property
    def changed(self) -> bool:
        """True when an image was pulled, built or tagged."""
        return any(r.action is not BaseImageAction.PRESENT for r in self.results)


def find_dockerfiles(paths: Iterable[Path]) -> list[Path]:
    """``environment/Dockerfile`` of each task dir, or of each task under a collection dir."""
    found: list[Path] = []
    for path in paths:
        direct = path / "environment" / "Dockerfile"
        if direct.is_file():
            found.append(direct)
        elif path.is_dir():
            found.extend(sorted(path.glob("*/environment/Dockerfile")))
    return found


def _logical_lines(text: str) -> list[str]:
    lines: list[str] = []
    current = ""
    for raw in text.splitlines():
        if raw.lstrip().startswith("#"):
            continue
        if raw.rstrip().endswith("\\"):
            current += raw.rstrip()[:-1] + " "
            continue
        lines.append(current + raw)
        current = ""
    if current:
        lines.append(current)
    return lines


def dockerfile_bases(text: str) -> list[str]:
    """The external base images of a Dockerfile, in order, without duplicates.

    ``FROM <earlier stage>`` and ``FROM scratch`` are skipped; ``ARG`` defaults
    declared before a ``FROM`` are substituted.
    """
    args: dict[str, str] = {}
    stages: set[str] = set()
    bases: list[str] = []
    for line in _logical_lines(text):
        arg = _ARG.match(line)
        if arg:
            args.setdefault(arg.group("name"), arg.group("value") or "")
            continue
        match = _FROM.match(line)
        if not match:
            continue
        words = [w for w in match.group("rest").split() if not w.startswith("--")]
        if not words:
            continue
        image = _VAR.sub(lambda m: args.get(m.group(1), ""), words[0])
        if len(words) >= 3 and words[1].lower() == "as":
            stages.add(words[2].lower())
        if image.lower() in stages or image.lower() == "scratch" or not image:
            continue
        if image not in bases:
            bases.append(image)
    return bases


def _normalise(image: str) -> str:
    for prefix in ("docker.io/library/", "library/"):
        image = image.removeprefix(prefix)
    name = image.rsplit("/", 1)[-1]
    return image if ":" in name or "@" in name else f"{image}:latest"


def _present(client: Any, image: str) -> bool:
    import docker.errors  # noqa: PLC0415

    try:
        client.images.get(image)
    except docker.errors.ImageNotFound:
        return False
    return True


def _try_pull(client: Any, image: str, timeout: float) -> bool:
    outcome: list[bool] = []

    def pull() -> None:
        try:
            client.images.pull(image)
            outcome.append(True)
        except Exception as error:  # any failure means "not pullable"
            log.debug("base_image_pull_failed", image=image, error=str(error))
            outcome.append(False)

    worker = threading.Thread(target=pull, daemon=True)
    worker.start()
    worker.join(timeout)
    return bool(outcome and outcome[0])


def _debootstrap(client: Any, suite: str, tag: str) -> None:
    """Build ``tag`` from Debian ``suite`` with debootstrap and docker import."""
    tool = shutil.which("debootstrap")
    if tool is None:
        raise BackendUnavailableError(
            f"cannot build {tag}: debootstrap is not installed",
            where="lhtb images bootstrap",
            fix="Install it (`apt-get install debootstrap`) and run again",
        )
    with tempfile.TemporaryDirectory(prefix="lhtb-debootstrap-") as scratch:
        root = Path(scratch) / "root"
        archive = Path(scratch) / "rootfs.tar"
        log.info("debootstrap_started", suite=suite, tag=tag)
        command = [tool, "--variant=minbase", suite, str(root), DEBIAN_MIRROR]
        try:
            subprocess.run(
                command, check=True, capture_output=True, timeout=DEBOOTSTRAP_TIMEOUT_SEC
            )
            subprocess.run(
                ["tar", "--numeric-owner", "-C", str(root), "-cf", str(archive), "."],
                check=True,
                capture_output=True,
                timeout=IMPORT_TIMEOUT_SEC,
            )
        except subprocess.CalledProcessError as error:
            detail = (error.stderr or b"").decode(errors="replace").strip()[-800:]
            raise BackendUnavailableError(
                f"cannot build {tag}: `{' '.join(error.cmd[:3])}` failed: {detail}",
                where="lhtb images bootstrap",
                fix=f"Check that {DEBIAN_MIRROR} is reachable and that you are root",
            ) from error
        except subprocess.TimeoutExpired as error:
            raise BackendUnavailableError(
                f"cannot build {tag}: `{error.cmd[0]}` ran past {error.timeout:.0f}s",
                where="lhtb images bootstrap",
                fix="Retry on a faster connection to the Debian archive",
            ) from error
        repository, _, version = tag.rpartition(":")
        changes = ['CMD ["bash"]', f"ENV PATH={_PATH}", "LABEL lhtb.kind=base"]
        client.api.import_image_from_file(
            str(archive), repository=repository, tag=version, changes=changes
        )


def bootstrap_base_images(
    task_dirs: Sequence[Path | str],
    *,
    client: Any | None = None,
    pull_timeout: float = PULL_TIMEOUT_SEC,
) -> BootstrapReport:
    """Make every base image the tasks' Dockerfiles use available locally.

    ``task_dirs`` are task directories or directories of tasks.

    Raises:
        BackendUnavailableError: no Docker daemon; a base is missing, cannot be
            pulled and is not a Debian release listed in :data:`DEBIAN_ALIASES`;
            or ``debootstrap`` is missing or failed.
    """
    if client is None:
        try:
            import docker  # noqa: PLC0415

            client = docker.from_env(timeout=int(IMPORT_TIMEOUT_SEC))
            client.ping()
        except Exception as error:
            raise BackendUnavailableError(
                f"cannot reach a Docker daemon ({error})",
                where="lhtb images bootstrap",
                fix="Start dockerd (`systemctl start docker`), or set DOCKER_HOST",
            ) from error
    dockerfiles = find_dockerfiles(Path(p) for p in task_dirs)
    wanted: list[str] = []
    for dockerfile in dockerfiles:
        for base in dockerfile_bases(dockerfile.read_text(encoding="utf-8")):
            if base not in wanted:
                wanted.append(base)
    results = ensure_base_images(wanted, client=client, pull_timeout=pull_timeout)
    return BootstrapReport(dockerfiles=tuple(dockerfiles), results=tuple(results))


def ensure_base_images(
    bases: Sequence[str], *, client: Any, pull_timeout: float = PULL_TIMEOUT_SEC
) -> list[BaseImageResult]:
    """Make each of ``bases`` present: already there, pulled, or built offline.

    Raises:
        BackendUnavailableError: a base is missing, cannot be pulled and is not a
            buildable Debian release; or ``debootstrap`` is missing or failed.
    """
    results: list[BaseImageResult] = []
    unmakeable: list[str] = []
    for image in dict.fromkeys(_normalise(base) for base in bases):
        if _present(client, image):
            results.append(BaseImageResult(image, BaseImageAction.PRESENT))
        elif _try_pull(client, image, pull_timeout):
            results.append(BaseImageResult(image, BaseImageAction.PULLED))
        elif image in DEBIAN_ALIASES:
            results.append(_make_debian(client, image))
        else:
            unmakeable.append(image)
    if unmakeable:
        raise BackendUnavailableError(
            f"base image(s) {', '.join(unmakeable)} are missing and cannot be pulled or built "
            f"(buildable offline: {', '.join(DEBIAN_ALIASES)})",
            where="lhtb images bootstrap",
            fix="`docker load` them from a machine that has them, or base the tasks on one of "
            "the buildable Debian images",
        )
    return results


def _make_debian(client: Any, image: str) -> BaseImageResult:
    suite = DEBIAN_ALIASES[image]
    repository, _, tag = image.rpartition(":")
    for alias, alias_suite in DEBIAN_ALIASES.items():
        if alias_suite == suite and alias != image and _present(client, alias):
            client.images.get(alias).tag(repository, tag)
            log.info("base_image_tagged", image=image, source=alias)
            return BaseImageResult(image, BaseImageAction.TAGGED, source=alias)
    _debootstrap(client, suite, image)
    log.info("base_image_built", image=image, suite=suite)
    return BaseImageResult(image, BaseImageAction.BUILT, source=f"debootstrap {suite}")
