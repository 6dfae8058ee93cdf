"""Whether a pass refuses a sandbox whose working directory the agent broke.

Messages are those the two backends' exec paths give (the Docker channel helper and
the local init both say ``chdir`` when the working directory is the failure).
"""

from __future__ import annotations

from typing import Any, cast

import pytest

from lhtb.errors import ExecError
from lhtb.sandbox.base import ManagedSandbox
from lhtb.task import IsolationMode
from lhtb.verifier import _workdir_usable

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
    ("failure", "mode", "usable"),
    [
        (None, IsolationMode.SNAPSHOT, True),
        (None, IsolationMode.SHARED, True),
        (CHDIR, IsolationMode.SNAPSHOT, False),
        (CHDIR, IsolationMode.SHARED, False),
        # every pid slot held: the snapshot is graded in a new sandbox, so it goes ahead
        (NO_SLOT, IsolationMode.SNAPSHOT, True),
        # shared runs the tests in this sandbox: nothing starts there
        (NO_SLOT, IsolationMode.SHARED, False),
    ],
)
async def test_only_a_failed_chdir_refuses_a_snapshot(
    failure: str | None, mode: IsolationMode, usable: bool
) -> None:
    sandbox = _Sandbox(failure)
    assert await _workdir_usable(cast(ManagedSandbox, sandbox), mode) is usable
    assert sandbox.calls == 1  # the probe ran
