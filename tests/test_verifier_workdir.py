"""Whether a pass refuses a sandbox whose working directory the agent broke.

Messages are those the two backends' exec paths give (the Docker channel helper and
the local init both say ``chdir`` when the working directory is the failure).
"""

from __future__ import annotations

from typing import Any, cast

import pytest

from lhtb.errors import ExecError
from lhtb.sandbox.base import ManagedSandbox
from lhtb.verify._verifier import _workdir_usable

pytestmark = pytest.mark.anyio

CHDIR = "command could not start: chdir to cwd ('/app'): Not a directory"
NO_SLOT = "command could not start: failed to run command 'true': Resource temporarily unavailable"


class _Sandbox:
    def __init__(self, failure: str | None) -> None:
        self.failure = failure
        self.calls = 0

    async def exec(self, argv: list[str], **_: Any) -> None:
        self.calls += 1
        if self.failure is not None:
            raise ExecError(self.failure, where="sandbox", fix="-")


@pytest.mark.parametrize(
    ("failure", "usable"),
    [
        (None, True),
        (CHDIR, False),
        # every pid slot held: nothing is known about the directory, the pass goes on
        (NO_SLOT, True),
    ],
)
async def test_only_a_failed_chdir_means_the_workdir_is_unusable(
    failure: str | None, usable: bool
) -> None:
    sandbox = _Sandbox(failure)
    assert await _workdir_usable(cast(ManagedSandbox, sandbox)) is usable
    assert sandbox.calls == 1  # the probe ran
