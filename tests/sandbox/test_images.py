"""Offline base images: Dockerfile scanning (pure) and bootstrapping (real Docker)."""

from __future__ import annotations

import contextlib
import http.server
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lhtb.cli import main
from lhtb.errors import BackendUnavailableError
from lhtb.images import BaseImageAction, bootstrap_base_images, dockerfile_bases, find_dockerfiles
from lhtb.images import _bootstrap as images
from lhtb.images import _recipes as _base_recipes


def test_bases_skip_stages_and_scratch() -> None:
    text = (
        "# syntax=docker/dockerfile:1\n"
        "ARG BASE=debian:12-slim\n"
        "FROM --platform=linux/amd64 ${BASE} AS build\n"
        "RUN make\n"
        "FROM build AS test\n"
        "FROM scratch\n"
        "from python:3.12 \\\n"
        "  as py\n"
        "FROM debian:12-slim\n"
        "COPY --from=build /out /out\n"
    )
    assert dockerfile_bases(text) == ["debian:12-slim", "python:3.12"]


def test_find_dockerfiles_accepts_task_and_collection_dirs(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / "tasks" / name / "environment").mkdir(parents=True)
        (tmp_path / "tasks" / name / "environment" / "Dockerfile").write_text("FROM x\n")
    single = tmp_path / "tasks" / "a"
    assert len(find_dockerfiles([tmp_path / "tasks"])) == 2
    assert find_dockerfiles([single]) == [single / "environment" / "Dockerfile"]


def _task(root: Path, name: str, base: str) -> Path:
    environment = root / name / "environment"
    environment.mkdir(parents=True)
    (environment / "Dockerfile").write_text(f"FROM {base}\nRUN true\n")
    return root / name


@pytest.mark.docker
def test_present_images_are_left_alone(tmp_path: Path, docker_client: Any) -> None:
    _task(tmp_path, "t1", "debian:bookworm-slim")
    report = bootstrap_base_images([tmp_path], client=docker_client)
    assert [(r.image, r.action) for r in report.results] == [
        ("debian:bookworm-slim", BaseImageAction.PRESENT)
    ]
    assert not report.changed


@pytest.mark.docker
def test_missing_debian_alias_is_tagged_from_a_present_one(
    tmp_path: Path, docker_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    alias = "debian:12-slim"
    if any(alias in image.tags for image in docker_client.images.list(name="debian")):
        pytest.skip(f"{alias} already exists on this machine")
    _task(tmp_path, "t1", alias)
    monkeypatch.setattr(images, "_try_pull", lambda *args: False)
    try:
        report = bootstrap_base_images([tmp_path], client=docker_client)
        assert report.results[0].action is BaseImageAction.TAGGED
        assert report.results[0].source == "debian:bookworm-slim"
        assert (
            docker_client.images.get(alias).id
            == docker_client.images.get("debian:bookworm-slim").id
        )
    finally:
        docker_client.images.remove(alias)


@pytest.mark.docker
def test_unknown_missing_base_is_a_clear_error(
    tmp_path: Path, docker_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _task(tmp_path, "t1", "lhtb-test/never-made:1")
    monkeypatch.setattr(images, "_try_pull", lambda *args: False)
    with pytest.raises(BackendUnavailableError, match="lhtb-test/never-made:1") as caught:
        bootstrap_base_images([tmp_path], client=docker_client)
    assert "docker load" in str(caught.value)


def test_missing_debootstrap_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_base_recipes.shutil, "which", lambda name: None)
    recipe = _base_recipes.recipe_for("debian:bookworm")
    assert recipe is not None
    with pytest.raises(BackendUnavailableError, match="apt-get install debootstrap"):
        _base_recipes.make(object(), recipe)


@pytest.fixture
def release_only_archive(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A real HTTP archive serving noble's Release file but, like package caches, no listings."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            found = self.path == "/ubuntu/dists/noble/Release"
            self.send_response(200 if found else 404)
            self.end_headers()
            self.wfile.write(b"Suite: noble\n" if found else b"")

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setattr(
        _base_recipes, "UBUNTU_MIRROR", f"http://127.0.0.1:{server.server_port}/ubuntu"
    )
    yield
    server.shutdown()
    thread.join()


@pytest.mark.usefixtures("release_only_archive")
def test_ubuntu_archive_is_reachable_when_it_serves_the_suite() -> None:
    with urllib.request.urlopen(f"{_base_recipes.UBUNTU_MIRROR}/dists/noble/Release") as answer:
        assert answer.status == 200
    assert _base_recipes.ubuntu_archive_reachable("noble")
    assert not _base_recipes.ubuntu_archive_reachable("jammy")


def test_ubuntu_suites_newer_than_debootstrap_use_its_ubuntu_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "jammy").write_text("# debootstrap script\n")
    monkeypatch.setattr(_base_recipes, "DEBOOTSTRAP_SCRIPTS", tmp_path)
    assert _base_recipes._ubuntu_script("jammy") is None
    assert _base_recipes._ubuntu_script("noble") == tmp_path / "gutsy"


def test_ubuntu_sources_match_the_official_image() -> None:
    lines = _base_recipes._ubuntu_sources("noble").splitlines()
    suites = [line.split()[2] for line in lines]
    assert suites == ["noble", "noble-updates", "noble-backports", "noble-security"]
    assert all(line.endswith("main restricted universe multiverse") for line in lines)


@pytest.mark.docker
def test_cli_bootstrap_prints_what_it_did(tmp_path: Path, docker_client: Any) -> None:
    _task(tmp_path, "t1", "debian:bookworm-slim")
    result = CliRunner().invoke(main, ["images", "bootstrap", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "debian:bookworm-slim: already present" in result.output


@pytest.mark.docker
@pytest.mark.anyio
async def test_prepare_makes_a_missing_debian_base_offline(
    docker_client: Any, tmp_path: Path
) -> None:
    import lhtb
    from lhtb.sandbox.docker import DockerBackend

    alias = "debian:12"
    if images._present(docker_client, alias):
        docker_client.images.remove(alias, noprune=True)
    task_dir = tmp_path / "task"
    (task_dir / "environment").mkdir(parents=True)
    (task_dir / "tests").mkdir()
    (task_dir / "environment" / "Dockerfile").write_text(f"FROM {alias}\nRUN mkdir -p /app\n")
    (task_dir / "tests" / "test.sh").write_text("#!/bin/sh\n")
    (task_dir / "instruction.md").write_text("x\n")
    (task_dir / "task.toml").write_text(f'[task]\nname = "lhtb/base-{tmp_path.name[-8:]}"\n')
    backend = DockerBackend(docker_client)
    try:
        tag = await backend.prepare(lhtb.load_task(task_dir))
        assert images._present(docker_client, alias)
        assert images._present(docker_client, tag)
    finally:
        docker_client.images.remove(alias, noprune=True)
        with contextlib.suppress(Exception):
            docker_client.images.remove(tag)


def test_copy_from_images_are_not_bases() -> None:
    text = (
        "FROM debian:bookworm-slim AS build\n"
        "FROM python:3.11-slim\n"
        "COPY --from=build /a /a\n"
        "COPY --from=0 /b /b\n"
        "COPY --link --from=ghcr.io/astral-sh/uv:0.5 /uv /bin/uv\n"
    )
    found = images.dockerfile_images(text)
    assert found.bases == ("debian:bookworm-slim", "python:3.11-slim")
    assert found.copy_sources == ("ghcr.io/astral-sh/uv:0.5",)


@pytest.mark.parametrize(
    ("image", "kind"),
    [
        ("debian:12-slim", "debian"),
        ("python:3.11-slim", "python"),
        ("python:3.11", "python"),
        ("python:3.11-slim-bookworm", "python"),
        ("python:3.13-slim-trixie", "python"),
        ("debian:13", "debian"),
        ("python:3.13-slim-bookworm", None),
        ("ubuntu:22.04", "ubuntu"),
        ("ubuntu:noble", "ubuntu"),
        ("python:3.12-slim", None),
        ("python:3.11-alpine", None),
        ("ubuntu:latest", None),
        ("node:20", None),
    ],
)
def test_recipes_cover_debian_python_and_ubuntu(image: str, kind: str | None) -> None:
    recipe = _base_recipes.recipe_for(image)
    assert (recipe.kind if recipe else None) == kind
    if kind == "python":
        assert recipe is not None
        suite = "trixie" if image.startswith("python:3.13") else "bookworm"
        assert recipe.needs == f"debian:{suite}-slim"


def test_unreachable_ubuntu_archive_says_what_to_load(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_base_recipes, "ubuntu_archive_reachable", lambda suite: False)
    recipe = _base_recipes.recipe_for("ubuntu:24.04")
    assert recipe is not None
    with pytest.raises(BackendUnavailableError) as caught:
        _base_recipes.make(object(), recipe)
    message = str(caught.value)
    assert "archive.ubuntu.com" in message
    assert "docker pull ubuntu:24.04" in message
    assert "docker load -i bases.tar" in message
    assert "registry-mirrors" in message


@pytest.mark.docker
def test_cli_names_images_it_cannot_make_and_makes_the_rest(
    tmp_path: Path, docker_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(images, "_try_pull", lambda *args: False)
    _task(tmp_path, "t1", "debian:bookworm-slim")
    _task(tmp_path, "t2", "lhtb-test/never-made:3")
    result = CliRunner().invoke(main, ["images", "bootstrap", str(tmp_path)])
    assert result.exit_code != 0
    assert "lhtb-test/never-made:3" in result.output
    assert "docker load -i bases.tar" in result.output
    assert "python:3.11[-slim][-bookworm]" in result.output


@pytest.mark.docker
def test_bootstrap_also_names_compose_and_prebuilt_images(
    tmp_path: Path, docker_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(images, "_try_pull", lambda *args: False)
    task = _task(tmp_path, "t1", "debian:bookworm-slim")
    (task / "task.toml").write_text('[environment]\ndocker_image = "lhtb-test/prebuilt:9"\n')
    (task / "environment" / "docker-compose.yaml").write_text(
        "services:\n  main:\n    image: ${MAIN_IMAGE_NAME}\n"
        "  db:\n    image: 'lhtb-test/sidecar:8'  # a database\n"
    )
    with pytest.raises(BackendUnavailableError) as caught:
        bootstrap_base_images([tmp_path], client=docker_client)
    assert "lhtb-test/sidecar:8, lhtb-test/prebuilt:9 are missing" in str(caught.value)
