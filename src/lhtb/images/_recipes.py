"""How base images are made offline: Debian (debootstrap), Python (on Debian), Ubuntu.

A *recipe* names the images it can make and makes one of them on a Docker
daemon. :func:`recipe_for` picks the recipe of an image (None: not makeable
here), :func:`how_to_get` says what a person can do about an image lhtb cannot
make.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import attrs

from lhtb._util.log import get_logger
from lhtb.errors import BackendUnavailableError
from lhtb.images._build import CancelToken, StreamedBuild

__all__ = [
    "DEBIAN_ALIASES",
    "PYTHON_VERSIONS",
    "UBUNTU_SUITES",
    "Recipe",
    "how_to_get",
    "makeable_images",
    "recipe_for",
]

log = get_logger(__name__)

DEBIAN_MIRROR = "http://deb.debian.org/debian"
UBUNTU_MIRROR = "http://archive.ubuntu.com/ubuntu"
UBUNTU_KEYRING = Path("/usr/share/keyrings/ubuntu-archive-keyring.gpg")
DEBOOTSTRAP_SCRIPTS = Path("/usr/share/debootstrap/scripts")
UBUNTU_COMPONENTS = "main restricted universe multiverse"
"""The components the official ``ubuntu`` images enable (debootstrap enables only main)."""
UBUNTU_SCRIPT = "gutsy"
"""debootstrap's script for every Ubuntu suite since 7.10 (newer suites are links to it)."""
DEBIAN_ALIASES: dict[str, str] = {
    "debian:bookworm": "bookworm",
    "debian:bookworm-slim": "bookworm",
    "debian:12": "bookworm",
    "debian:12-slim": "bookworm",
    "debian:trixie": "trixie",
    "debian:trixie-slim": "trixie",
    "debian:13": "trixie",
    "debian:13-slim": "trixie",
}
"""Debian images that can be made, and the suite each one is made from."""
PYTHON_VERSIONS: dict[str, str] = {"3.11": "bookworm", "3.13": "trixie"}
"""Python minor versions Debian ships, and the Debian suite that ships each one."""
UBUNTU_SUITES: dict[str, str] = {
    "20.04": "focal",
    "22.04": "jammy",
    "24.04": "noble",
    "focal": "focal",
    "jammy": "jammy",
    "noble": "noble",
}
"""``ubuntu:<tag>`` images that can be made when an Ubuntu archive is reachable."""

DEBOOTSTRAP_TIMEOUT_SEC = 1800.0
IMPORT_TIMEOUT_SEC = 600.0
PROBE_TIMEOUT_SEC = 5.0
_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_WHERE = "lhtb images bootstrap"
_PYTHON_SLIM = """\
FROM {base}
RUN apt-get update \\
 && apt-get install -y --no-install-recommends python3 python3-pip python3-venv \\
      python-is-python3 ca-certificates {extra} \\
 && rm -rf /var/lib/apt/lists/* \\
 && rm -f /usr/lib/python3*/EXTERNALLY-MANAGED \\
 && ln -sf /usr/bin/pip3 /usr/local/bin/pip
ENV LANG=C.UTF-8 PYTHON_VERSION={version}
LABEL lhtb.kind=base
CMD ["python3"]
"""
_FULL_EXTRAS = "build-essential git curl wget procps"


@attrs.frozen
class Recipe:
    """How to make ``image``: ``kind`` is debian, python or ubuntu; ``source`` what from."""

    image: str
    kind: str
    source: str

    @property
    def needs(self) -> str | None:
        """Another image this one is built on (made first), if any."""
        return self.source if self.kind == "python" else None


def recipe_for(image: str) -> Recipe | None:
    """The recipe of a normalised ``repo:tag`` image, or None when it cannot be made."""
    repository, _, tag = image.rpartition(":")
    if image in DEBIAN_ALIASES:
        return Recipe(image, "debian", DEBIAN_ALIASES[image])
    if repository == "python":
        version = tag.split("-", 1)[0]
        suite = PYTHON_VERSIONS.get(version)
        if suite is not None and tag[len(version) :] in {
            "",
            "-slim",
            f"-{suite}",
            f"-slim-{suite}",
        }:
            return Recipe(image, "python", f"debian:{suite}-slim")
    if repository == "ubuntu" and tag in UBUNTU_SUITES:
        return Recipe(image, "ubuntu", UBUNTU_SUITES[tag])
    return None


def makeable_images() -> list[str]:
    """Examples of every image family lhtb can make, for messages."""
    python = [f"python:{v}[-slim][-{suite}]" for v, suite in PYTHON_VERSIONS.items()]
    ubuntu = [f"ubuntu:{tag}" for tag in UBUNTU_SUITES if tag[0].isdigit()]
    return [*DEBIAN_ALIASES, *python, *(f"{u} (needs an Ubuntu archive)" for u in ubuntu)]


def how_to_get(images: list[str], *, reason: str = "") -> str:
    """What a person can do to make ``images`` available on a machine without a registry."""
    names = " ".join(images)
    pulls = " and ".join(f"`docker pull {image}`" for image in images)
    why = f" ({reason})" if reason else ""
    return (
        f"lhtb cannot make {', '.join(images)}{why}. On a machine with registry access run "
        f"{pulls}, then `docker save -o bases.tar {names}`; copy bases.tar here "
        "and run `docker load -i bases.tar`; or point dockerd at a registry mirror "
        '(`"registry-mirrors": ["https://<mirror>"]` in /etc/docker/daemon.json, then restart '
        "dockerd) and run again. Images lhtb makes offline: "
        f"{', '.join(makeable_images())}"
    )


def make(client: Any, recipe: Recipe, *, cancel: CancelToken | None = None) -> None:
    """Make ``recipe.image`` on the daemon of ``client``; ``cancel`` stops it at once.

    Raises:
        BackendUnavailableError: a tool or archive is missing, or a step failed.
    """
    if recipe.kind == "python":
        _build_python(client, recipe, cancel)
    elif recipe.kind == "ubuntu":
        if not ubuntu_archive_reachable(recipe.source):
            raise BackendUnavailableError(
                f"cannot make {recipe.image}: the Ubuntu archive {UBUNTU_MIRROR} is not reachable",
                where=_WHERE,
                fix=how_to_get([recipe.image], reason="no Ubuntu archive"),
            )
        if not UBUNTU_KEYRING.is_file():
            raise BackendUnavailableError(
                f"cannot make {recipe.image}: the Ubuntu archive keyring {UBUNTU_KEYRING} "
                "is missing",
                where=_WHERE,
                fix=(
                    "Install it (`apt-get install ubuntu-keyring` on Ubuntu; on Debian, extract "
                    "usr/share/keyrings/ubuntu-archive-keyring.gpg from the ubuntu-keyring .deb "
                    f"in {UBUNTU_MIRROR}/pool/main/u/ubuntu-keyring/ with `dpkg -x`) and run again"
                ),
            )
        _debootstrap(
            client,
            recipe,
            UBUNTU_MIRROR,
            [
                "--keyring",
                str(UBUNTU_KEYRING),
                f"--components={UBUNTU_COMPONENTS.replace(' ', ',')}",
            ],
            cancel,
            script=_ubuntu_script(recipe.source),
            sources=_ubuntu_sources(recipe.source),
        )
    else:
        _debootstrap(client, recipe, DEBIAN_MIRROR, [], cancel)


def ubuntu_archive_reachable(suite: str) -> bool:
    """True when the Ubuntu archive serves ``suite``'s Release file within a few seconds.

    The file, not a directory listing: package caches and mirrors often serve files only.
    """
    url = f"{UBUNTU_MIRROR}/dists/{suite}/Release"
    try:
        urllib.request.urlopen(url, timeout=PROBE_TIMEOUT_SEC).close()
    except (urllib.error.URLError, OSError):
        return False
    return True


def _ubuntu_sources(suite: str) -> str:
    """``/etc/apt/sources.list`` as the official image has it: updates, backports, security."""
    pockets = ["", "-updates", "-backports", "-security"]
    return "".join(f"deb {UBUNTU_MIRROR} {suite}{p} {UBUNTU_COMPONENTS}\n" for p in pockets)


def _ubuntu_script(suite: str) -> Path | None:
    """The debootstrap script for ``suite``: None when debootstrap knows the suite."""
    if (DEBOOTSTRAP_SCRIPTS / suite).exists():
        return None
    return DEBOOTSTRAP_SCRIPTS / UBUNTU_SCRIPT


def _build_python(client: Any, recipe: Recipe, cancel: CancelToken | None) -> None:
    """Python from Debian's packages, with ``python`` and ``pip`` as the official image has."""
    version = recipe.image.split(":", 1)[1].split("-", 1)[0]
    full = "slim" not in recipe.image.split(":", 1)[1]
    dockerfile = _PYTHON_SLIM.format(
        base=recipe.source, version=version, extra=_FULL_EXTRAS if full else ""
    )
    log.info("python_base_build_started", image=recipe.image, source=recipe.source)
    with tempfile.TemporaryDirectory(prefix="lhtb-python-base-") as context:
        (Path(context) / "Dockerfile").write_text(dockerfile)
        build = StreamedBuild(
            client,
            Path(context),
            tag=recipe.image,
            labels={"lhtb.kind": "base"},
            timeout=DEBOOTSTRAP_TIMEOUT_SEC,
            cancel=cancel,
        )
        build.run()
    if cancel is not None and cancel.cancelled:
        raise BackendUnavailableError(f"making {recipe.image} was cancelled", where=_WHERE)
    if build.error is not None:
        tail = "\n".join(build.tail[-10:])
        raise BackendUnavailableError(
            f"cannot make {recipe.image} from {recipe.source}: {build.error}\n{tail}".rstrip(),
            where=_WHERE,
            fix=f"Check that containers can reach {DEBIAN_MIRROR} (apt-get), then run again",
        )


def _debootstrap(
    client: Any,
    recipe: Recipe,
    mirror: str,
    options: list[str],
    cancel: CancelToken | None,
    *,
    script: Path | None = None,
    sources: str | None = None,
) -> None:
    """Build ``recipe.image`` from a Debian-style archive with debootstrap and docker import.

    ``script`` is the debootstrap script to use for a suite newer than the installed
    debootstrap (None: debootstrap's own); ``sources``, when given, replaces the image's
    ``/etc/apt/sources.list``.
    """
    tool = shutil.which("debootstrap")
    if tool is None:
        raise BackendUnavailableError(
            f"cannot build {recipe.image}: debootstrap is not installed",
            where=_WHERE,
            fix="Install it (`apt-get install debootstrap`) and run again",
        )
    with tempfile.TemporaryDirectory(prefix="lhtb-debootstrap-") as scratch:
        root = Path(scratch) / "root"
        archive = Path(scratch) / "rootfs.tar"
        log.info("debootstrap_started", suite=recipe.source, tag=recipe.image)
        command = [tool, "--variant=minbase", *options, recipe.source, str(root), mirror]
        if script is not None:
            command.append(str(script))
        try:
            _run_cancellable(command, cancel, timeout=DEBOOTSTRAP_TIMEOUT_SEC)
            if sources is not None:
                (root / "etc" / "apt" / "sources.list").write_text(sources)
            subprocess.run(
                ["tar", "--numeric-owner", "-C", str(root), "-cf", str(archive), "."],
                check=True,
                capture_output=True,
                timeout=IMPORT_TIMEOUT_SEC,
            )
        except subprocess.CalledProcessError as error:
            detail = (error.stderr or b"").decode(errors="replace").strip()[-800:]
            raise BackendUnavailableError(
                f"cannot build {recipe.image}: `{' '.join(error.cmd[:3])}` failed: {detail}",
                where=_WHERE,
                fix=f"Check that {mirror} is reachable and that you are root",
            ) from error
        except subprocess.TimeoutExpired as error:
            raise BackendUnavailableError(
                f"cannot build {recipe.image}: `{error.cmd[0]}` ran past {error.timeout:.0f}s",
                where=_WHERE,
                fix="Retry on a faster connection to the package archive",
            ) from error
        repository, _, version = recipe.image.rpartition(":")
        changes = ['CMD ["bash"]', f"ENV PATH={_PATH}", "LABEL lhtb.kind=base"]
        client.api.import_image_from_file(
            str(archive), repository=repository, tag=version, changes=changes
        )


def _run_cancellable(command: list[str], cancel: CancelToken | None, *, timeout: float) -> None:
    """``subprocess.run(check=True)`` that ``cancel`` kills at once.

    Raises:
        subprocess.CalledProcessError, subprocess.TimeoutExpired: as ``subprocess.run``.
    """
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        if cancel is not None:
            cancel.on_cancel(process.kill)
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise
    if process.returncode != 0:
        raise subprocess.CalledProcessError(process.returncode, command, stdout, stderr)
