"""Docker builds that another thread can stop at once (Ctrl-C during a build).

The docker SDK streams a build's output over one HTTP response and gives no handle
on it. :class:`StreamedBuild` catches that response with a ``requests`` hook (only
for the thread that started the build) so that :meth:`StreamedBuild.abort` can shut
its socket from any thread; the daemon then stops the build. :class:`CancelToken`
carries such aborts (and process kills) from an async caller into blocking code.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lhtb._util.log import get_logger

__all__ = ["CancelToken", "StreamedBuild"]

log = get_logger(__name__)
_BUILD_LOG_TAIL = 30


class CancelToken:
    """Stop callbacks registered by blocking code, run once when the caller cancels."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []
        self.cancelled = False

    def on_cancel(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` on :meth:`cancel` (at once when already cancelled)."""
        with self._lock:
            if not self.cancelled:
                self._callbacks.append(callback)
                return
        callback()

    def cancel(self) -> None:
        """Run every registered callback (errors are ignored: this is cleanup)."""
        with self._lock:
            self.cancelled = True
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            with contextlib.suppress(Exception):
                callback()


_capture = threading.local()
_HOOKED: weakref.WeakSet[Any] = weakref.WeakSet()


def _remember_response(response: Any, *args: Any, **kwargs: Any) -> Any:
    """A requests hook: hand the build's streaming response to the thread that started it."""
    holder = getattr(_capture, "holder", None)
    if holder is not None:
        holder.append(response)
    return response


class StreamedBuild:
    """One streaming build on a worker thread, which another thread may abort."""

    def __init__(
        self,
        client: Any,
        directory: Path,
        *,
        tag: str,
        labels: dict[str, str],
        timeout: float,
        cancel: CancelToken | None = None,
    ) -> None:
        self._client = client
        self._directory = directory
        self._tag = tag
        self._labels = labels
        self._timeout = timeout
        self._responses: list[Any] = []
        self._aborted = threading.Event()
        self.error: str | None = None
        self.tail: list[str] = []
        if cancel is not None:
            cancel.on_cancel(self.abort)

    def run(self) -> None:
        api = self._client.api
        if api not in _HOOKED:
            api.hooks["response"].append(_remember_response)
            _HOOKED.add(api)
        started = time.monotonic()
        _capture.holder = self._responses
        try:
            stream = api.build(
                path=str(self._directory),
                tag=self._tag,
                labels=self._labels,
                rm=True,
                forcerm=True,
                pull=False,
                decode=True,
                timeout=self._timeout,
            )
        finally:
            _capture.holder = None
        if self._aborted.is_set():
            self.abort()
        try:
            for event in stream:
                text = event.get("stream") or event.get("status") or ""
                if text.strip():
                    self.tail = [*self.tail[-_BUILD_LOG_TAIL:], text.rstrip()]
                if "error" in event:
                    self.error = str(event["error"]).strip()
                if time.monotonic() - started > self._timeout:
                    self.error = f"build ran past {self._timeout:.0f}s"
                    break
        except Exception as error:
            if not self._aborted.is_set():
                raise
            log.debug("image_build_aborted", tag=self._tag, error=str(error))
        finally:
            self.abort()

    def abort(self) -> None:
        """Shut the build's connection (safe from any thread, and more than once):
        the daemon stops the build and removes its intermediate container."""
        self._aborted.set()
        for response in self._responses:
            connection = getattr(response.raw, "connection", None)
            sock = getattr(connection, "sock", None)
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(Exception):
                response.close()
