"""Base images for offline machines: make the images task Dockerfiles start FROM.

Owns finding the base images task Dockerfiles name, pulling them when a registry
answers, and making them when none does (``lhtb images``; the Docker backend asks
here before a build).

- ``_bootstrap``: scanning Dockerfiles, pulling, making, reporting what is missing.
- ``_recipes``: how an image is made offline (Debian, Python on Debian, Ubuntu).
- ``_build``: Docker builds another thread can stop at once (Ctrl-C during a build).

May import: :mod:`lhtb.errors` and :mod:`lhtb._util` (it knows no task or sandbox).
"""

from lhtb.images._bootstrap import (
    DEBIAN_ALIASES,
    BaseImageAction,
    BaseImageResult,
    BootstrapReport,
    DockerfileImages,
    bootstrap_base_images,
    dockerfile_bases,
    dockerfile_images,
    ensure_base_images,
    find_dockerfiles,
    make_available,
    make_images_available,
    normalise_image,
)

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
