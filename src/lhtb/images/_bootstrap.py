"""Base images for offline machines: make the images task Dockerfiles start FROM.

Where no registry is reachable, ``docker build`` fails on the first ``FROM``.
:func:`bootstrap_base_images` scans task Dockerfiles for their bases and, for
each one missing locally, tries a short pull; when that fails it makes the
image when it has a recipe (:mod:`lhtb.images._recipes`): Debian releases from
Debian's archive (``debootstrap`` + ``docker import``), ``python:3.X[-slim]``
from Debian's Python packages, ``ubuntu:*`` when an Ubuntu archive answers.
Otherwise the error says exactly which images to load and how. Images already
present are left alone.
"""

from __future__ import annotations

import enum
import functools
import re
import threading
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import attrs

from lhtb._util.log import get_logger
from lhtb.errors import BackendUnavailableError
from lhtb.images._build import CancelToken
from lhtb.images._recipes import DEBIAN_ALIASES, Recipe, how_to_get, make, recipe_for

__all__ = [
    "DEBIAN_ALIASES",
    "BaseImageAction",
    "BaseImageResult",
    "BootstrapReport",
    "DockerfileImages",
    "bootstrap_base_images",
    "dockerfile_bases",
    "dockerfile_images",
    "ensure_base_images",
    "find_dockerfiles",
    "make_available",
    "make_images_available",
    "normalise_image",
]

log = get_logger(__name__)

PULL_TIMEOUT_SEC = 30.0
_FROM = re.compile(r"^\s*FROM\s+(?P<rest>.+)$", re.IGNORECASE)
_COPY_FROM = re.compile(r"^\s*COPY\s.*--from=(?P<image>\S+)", re.IGNORECASE)
_ARG = re.compile(r"^\s*ARG\s+(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:=(?P<value>\S*))?", re.I)
_COMPOSE = "docker-compose.yaml"
_COMPOSE_IMAGE = re.compile(r"^\s*image:\s*(?P<image>\S+)\s*(?:#.*)?$", re.MULTILINE)
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


def _task_dirs(paths: Iterable[Path | str]) -> list[Path]:
    """Each task directory given, or under a collection directory given."""
    found: list[Path] = []
    for path in map(Path, paths):
        if (path / "task.toml").is_file():
            found.append(path)
        elif path.is_dir():
            found.extend(sorted(p.parent for p in path.glob("*/task.toml")))
    return found


def _other_images(task_dir: Path) -> list[str]:
    """Images a task names outside its Dockerfile: compose ``image:`` lines (without
    ``${...}`` variables) and ``[environment].docker_image``."""
    images: list[str] = []
    compose = task_dir / "environment" / _COMPOSE
    if compose.is_file():
        for match in _COMPOSE_IMAGE.finditer(compose.read_text(encoding="utf-8")):
            image = match.group("image").strip("'\"")
            if "$" not in image:
                images.append(image)
    try:
        with (task_dir / "task.toml").open("rb") as handle:
            prebuilt = tomllib.load(handle).get("environment", {}).get("docker_image")
    except (OSError, tomllib.TOMLDecodeError):
        prebuilt = None
    if isinstance(prebuilt, str) and prebuilt:
        images.append(prebuilt)
    return images


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


@attrs.frozen
class DockerfileImages:
    """The external images a Dockerfile needs: ``FROM`` bases and ``COPY --from`` sources."""

    bases: tuple[str, ...]
    copy_sources: tuple[str, ...]

    @property
    def all(self) -> tuple[str, ...]:
        """Bases first, then copy sources, without duplicates."""
        return tuple(dict.fromkeys((*self.bases, *self.copy_sources)))


def dockerfile_images(text: str) -> DockerfileImages:
    """The external images of a Dockerfile, in order, without duplicates.

    ``FROM <earlier stage>`` / ``COPY --from=<stage or index>`` and ``FROM scratch``
    are skipped; ``ARG`` defaults declared before a ``FROM`` are substituted.
    """
    args: dict[str, str] = {}
    stages: list[str] = []
    bases: list[str] = []
    copies: list[str] = []
    for line in _logical_lines(text):
        arg = _ARG.match(line)
        if arg:
            args.setdefault(arg.group("name"), arg.group("value") or "")
            continue
        copy = _COPY_FROM.match(line)
        if copy:
            source = _VAR.sub(lambda m: args.get(m.group(1), ""), copy.group("image"))
            if source.lower() not in stages and not source.isdigit() and source not in copies:
                copies.append(source)
            continue
        match = _FROM.match(line)
        if not match:
            continue
        words = [w for w in match.group("rest").split() if not w.startswith("--")]
        if not words:
            continue
        image = _VAR.sub(lambda m: args.get(m.group(1), ""), words[0])
        if len(words) >= 3 and words[1].lower() == "as":
            stages.append(words[2].lower())
        if image.lower() in stages or image.lower() == "scratch" or not image:
            continue
        if image not in bases:
            bases.append(image)
    return DockerfileImages(tuple(bases), tuple(c for c in copies if c not in bases))


def dockerfile_bases(text: str) -> list[str]:
    """The external ``FROM`` images of a Dockerfile (see :func:`dockerfile_images`)."""
    return list(dockerfile_images(text).bases)


def normalise_image(image: str) -> str:
    """``repo:tag`` as the daemon names it (``docker.io/library/`` dropped, ``:latest`` added)."""
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


def _try_pull(client: Any, image: str, timeout: float, cancel: CancelToken | None) -> bool:
    outcome: list[bool] = []
    finished = threading.Event()

    def pull() -> None:
        try:
            client.images.pull(image)
            outcome.append(True)
        except Exception as error:  # any failure means "not pullable"
            log.debug("base_image_pull_failed", image=image, error=str(error))
            outcome.append(False)
        finally:
            finished.set()

    if cancel is not None:
        cancel.on_cancel(finished.set)  # stop waiting; the pull thread is a daemon
    threading.Thread(target=pull, daemon=True).start()
    finished.wait(timeout)
    return bool(outcome and outcome[0])


def bootstrap_base_images(
    task_dirs: Sequence[Path | str],
    *,
    client: Any | None = None,
    pull_timeout: float = PULL_TIMEOUT_SEC,
) -> BootstrapReport:
    """Make every image the tasks use available: their Dockerfiles' bases and ``COPY
    --from`` sources, the ``image:`` lines of their ``docker-compose.yaml`` and their
    ``[environment].docker_image``.

    ``task_dirs`` are task directories or directories of tasks.

    Raises:
        BackendUnavailableError: no Docker daemon; an image is missing, cannot be
            pulled and has no recipe (the message says how to load it); or making
            one failed.
    """
    if client is None:
        try:
            import docker  # noqa: PLC0415

            client = docker.from_env(timeout=600)
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
        wanted.extend(dockerfile_images(dockerfile.read_text(encoding="utf-8")).all)
    for task_dir in _task_dirs(task_dirs):
        wanted.extend(_other_images(task_dir))
    results = ensure_base_images(
        list(dict.fromkeys(wanted)), client=client, pull_timeout=pull_timeout
    )
    return BootstrapReport(dockerfiles=tuple(dockerfiles), results=tuple(results))


def ensure_base_images(
    bases: Sequence[str], *, client: Any, pull_timeout: float = PULL_TIMEOUT_SEC
) -> list[BaseImageResult]:
    """Make each of ``bases`` present: already there, pulled, or made offline.

    Every image that can be made is made before the error about the others.

    Raises:
        BackendUnavailableError: an image is missing, cannot be pulled and has no
            recipe (the fix says exactly how to load it); or making one failed.
    """
    results, missing = make_available(bases, client=client, pull_timeout=pull_timeout)
    if missing:
        raise BackendUnavailableError(
            f"image(s) {', '.join(missing)} are missing here and cannot be pulled",
            where="lhtb images bootstrap",
            fix=how_to_get(missing),
        )
    return results


def make_available(
    images: Sequence[str],
    *,
    client: Any,
    pull_timeout: float = PULL_TIMEOUT_SEC,
    cancel: CancelToken | None = None,
) -> tuple[list[BaseImageResult], list[str]]:
    """Like :func:`ensure_base_images`, but return the images nothing could make.

    ``cancel`` stops a build or debootstrap under way (for a caller that was cancelled).

    Raises:
        BackendUnavailableError: making an image that has a recipe failed.
    """
    results: list[BaseImageResult] = []
    missing: list[str] = []
    for image in dict.fromkeys(normalise_image(name) for name in images):
        if cancel is not None and cancel.cancelled:
            break
        made = _ensure_one(client, image, pull_timeout, cancel)
        if made is None:
            missing.append(image)
        else:
            results.extend(r for r in made if r not in results)
    return results, missing


def _ensure_one(
    client: Any, image: str, pull_timeout: float, cancel: CancelToken | None
) -> list[BaseImageResult] | None:
    """How ``image`` became present (images it needed first); None: nothing could make it."""
    if _present(client, image):
        return [BaseImageResult(image, BaseImageAction.PRESENT)]
    if _try_pull(client, image, pull_timeout, cancel):
        return [BaseImageResult(image, BaseImageAction.PULLED)]
    recipe = recipe_for(image)
    if recipe is None or (cancel is not None and cancel.cancelled):
        return None
    first = _ensure_one(client, recipe.needs, pull_timeout, cancel) if recipe.needs else []
    return [*(first or []), _make(client, recipe, cancel)]


def _make(client: Any, recipe: Recipe, cancel: CancelToken | None) -> BaseImageResult:
    image = recipe.image
    repository, _, tag = image.rpartition(":")
    if recipe.kind == "debian":
        for alias, alias_suite in DEBIAN_ALIASES.items():
            if alias_suite == recipe.source and alias != image and _present(client, alias):
                client.images.get(alias).tag(repository, tag)
                log.info("base_image_tagged", image=image, source=alias)
                return BaseImageResult(image, BaseImageAction.TAGGED, source=alias)
    make(client, recipe, cancel=cancel)
    log.info("base_image_built", image=image, kind=recipe.kind, source=recipe.source)
    source = recipe.source if recipe.kind == "python" else f"debootstrap {recipe.source}"
    return BaseImageResult(image, BaseImageAction.BUILT, source=source)


async def make_images_available(
    images: Sequence[str], *, client: Any
) -> tuple[list[BaseImageResult], list[str]]:
    """:func:`make_available` in a worker thread; cancelling it (Ctrl-C) stops a pull
    wait, a build or a debootstrap under way at once."""
    cancel = CancelToken()
    try:
        return await anyio.to_thread.run_sync(
            functools.partial(make_available, images, client=client, cancel=cancel),
            abandon_on_cancel=True,
        )
    except BaseException:
        cancel.cancel()
        raise
