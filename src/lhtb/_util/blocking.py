"""Running lhtb's async API from synchronous code, including inside a running event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import anyio

__all__ = ["run_blocking"]

T = TypeVar("T")


def run_blocking(main: Callable[[], Awaitable[T]]) -> T:
    """Run ``main()`` to its end and return its result.

    Where this thread already runs an event loop (a Jupyter cell, an async
    framework calling sync code), ``main`` runs on a worker thread with its own
    loop, and this thread waits for it.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return anyio.run(main)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="lhtb-blocking") as pool:
        return pool.submit(anyio.run, main).result()
