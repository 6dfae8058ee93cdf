"""The images of a compose project: made present first, built ones named by a cache key."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from lhtb.errors import SetupError
from lhtb.images._recipes import how_to_get
from lhtb.sandbox._environment import environment_hash
from lhtb.sandbox.docker._images import ENV_IMAGE_REPO, build_key, image_id, sanitise_name

if TYPE_CHECKING:
    from lhtb.sandbox.docker._backend import DockerBackend

__all__ = ["built_images"]


async def built_images(
    backend: DockerBackend, services: dict[str, dict[str, Any]], *, repository: str, where: str
) -> dict[str, str]:
    """Cached image names of the services built from a Dockerfile, keyed on the build
    context's files and the ids of the images the Dockerfile uses.

    Every image the project needs (bases of built services, images of the others) is
    made present first: pulled, or made offline (see :mod:`lhtb.images`).

    Raises:
        SetupError: images are missing and nothing can make them (all named at once).
    """
    from lhtb.images._bootstrap import (  # noqa: PLC0415
        dockerfile_images,
        make_images_available,
        normalise_image,
    )

    needed: dict[str, list[str]] = {}
    contexts: dict[str, Path] = {}
    for name, service in services.items():
        build = service.get("build")
        if isinstance(build, dict) and "context" in build:
            contexts[name] = Path(str(build["context"]))
            dockerfile = contexts[name] / str(build.get("dockerfile") or "Dockerfile")
            if dockerfile.is_file():
                text = dockerfile.read_text(encoding="utf-8")
                needed[name] = list(dockerfile_images(text).all)
        elif isinstance(service.get("image"), str):
            image = str(service["image"])
            if not image.startswith(f"{ENV_IMAGE_REPO}/"):  # ${MAIN_IMAGE_NAME}: built here
                needed[name] = [image]
    wanted = [image for images in needed.values() for image in images]
    _, missing = await make_images_available(wanted, client=backend.client)
    if missing:
        users = {
            image: [
                name for name, images in needed.items() if image in map(normalise_image, images)
            ]
            for image in missing
        }
        listing = "; ".join(f"{image} (service {', '.join(users[image])})" for image in missing)
        raise SetupError(
            f"image(s) this compose project needs are not on this machine, and no registry "
            f"answers: {listing}",
            where=where,
            fix=how_to_get(missing),
        )
    names: dict[str, str] = {}
    for name, context in contexts.items():
        found = [
            await anyio.to_thread.run_sync(image_id, backend.client, image)
            for image in needed.get(name, [])
        ]
        content = await anyio.to_thread.run_sync(environment_hash, context)
        key = build_key(content, [i or "" for i in found])
        names[name] = f"{repository}-{sanitise_name(name)}:{key[:12]}"
    return names
