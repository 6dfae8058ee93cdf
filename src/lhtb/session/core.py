"""A session: an episode whose agent is outside lhtb's process.

:class:`Session` is the one place the protocol's operations are carried out;
the socket server and the MCP server are front ends to it. Its agent,
:class:`SessionAgent`, is an ordinary :class:`~lhtb.agents.Agent`: ``run(turn)``
opens the turn to the client and returns when the client stops (``submit`` or
a disconnect). Everything else (budget, passes, freeze, feedback, records) is
``run_episode``'s own.
"""

from __future__ import annotations

import json
from typing import Any

import anyio

from lhtb.agents._protocol import Turn
from lhtb.episode._record import Episode
from lhtb.errors import LhtbError, SandboxUnavailableError
from lhtb.session.protocol import (
    MAX_FILE_BYTES,
    MAX_OUTPUT_BYTES,
    ProtocolError,
    Request,
    decode_content,
    encode_content,
    parse_request,
)

__all__ = ["PUBLIC_EVENTS", "Session", "SessionAgent", "SessionAgents"]

PUBLIC_EVENTS = {
    "agent_turn_started": ("turn", "remaining_sec"),
    "agent_turn_finished": ("turn", "end"),
    "verifier_pass_started": ("pass_no", "final"),
    "verifier_pass_finished": ("pass_no",),
    "episode_finished": ("outcome", "reward", "passes"),
}
"""The events a client sees, with the fields it may see (no interim rewards)."""


class Session:
    """The state a session's front ends and its agent share."""

    def __init__(self, task_name: str, instruction: str) -> None:
        self.task_name = task_name
        self.instruction = instruction
        self.turn: Turn | None = None
        self.turns = 0
        self.deadline: float | None = None
        self.feedback: str | None = None
        self.passes = 0
        self.episode: Episode | None = None
        self.events: list[dict[str, Any]] = []
        self._stop = anyio.Event()
        self._changed = anyio.Event()

    # -- the agent's side ----------------------------------------------------------------

    async def serve_turn(self, turn: Turn) -> None:
        """Open ``turn`` to the client; return when the client stops."""
        self._stop = anyio.Event()
        self.turn, self.turns, self.deadline = turn, turn.number, turn.deadline
        self.feedback = turn.feedback
        self._notify()
        try:
            await self._stop.wait()
        finally:
            self.turn = None
            self._notify()

    def stop(self) -> None:
        """The client stopped (submit or disconnect): end the current turn, if any."""
        self._stop.set()

    def finish(self, episode: Episode) -> None:
        """The episode ended; waiting ``submit`` calls get its outcome."""
        self.episode = episode
        self._notify()

    def on_event(self, name: str, fields: dict[str, Any]) -> None:
        """``run_episode``'s event callback: keep the public part of each event."""
        if name == "verifier_pass_finished":
            self.passes += 1
        if name in PUBLIC_EVENTS:
            kept = {k: fields[k] for k in PUBLIC_EVENTS[name] if k in fields}
            self.events.append({"event": name, **kept})
            self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def changed(self) -> None:
        """Wait for the next change: a turn opening or ending, an event, the end."""
        await self._changed.wait()

    # -- the client's side ---------------------------------------------------------------

    async def handle(self, request: Request) -> dict[str, Any]:
        """Carry out one checked request and return its result.

        Raises:
            ProtocolError: the request cannot be carried out now (``not_in_turn``,
                ``sandbox_error``, ``file_error``, ``too_large``).
        """
        args = request.args
        if request.op not in ("status", "events"):
            while self.turn is None and self.episode is None and not self.turns:
                await self._changed.wait()  # the sandbox is still being made
        if request.op == "hello":
            return {"instruction": self.instruction, **self.status()}
        if request.op == "status":
            return self.status()
        if request.op == "events":
            since: int = args.get("since", 0)
            return {"events": self.events[since:], "next": len(self.events)}
        if request.op == "submit":
            return await self.submit()
        turn = self._current_turn()
        try:
            return await _sandbox_op(turn, request)
        except SandboxUnavailableError as exc:
            raise ProtocolError("not_in_turn", f"the turn is over ({exc.what})") from None
        except LhtbError as exc:
            raise ProtocolError("sandbox_error", str(exc)) from None
        except OSError as exc:  # a missing file, a directory, no permission
            raise ProtocolError("file_error", f"{type(exc).__name__}: {exc}") from None

    async def call(self, op: str, **args: Any) -> dict[str, Any]:
        """Check and carry out ``op`` with ``args`` (``None`` values left out), in-process.

        Raises:
            ProtocolError: as :meth:`handle`, or ``bad_request``.
        """
        given = {k: v for k, v in args.items() if v is not None}
        return await self.handle(parse_request(json.dumps({"op": op, **given}).encode("utf-8")))

    def status(self) -> dict[str, Any]:
        """Turn, remaining time, passes so far, and whether the episode ended."""
        remaining = None
        if self.deadline is not None:
            remaining = round(max(0.0, self.deadline - anyio.current_time()), 3)
        status: dict[str, Any] = {
            "task": self.task_name,
            "turn": self.turns or None,
            "in_turn": self.turn is not None,
            "remaining_sec": remaining,
            "passes": self.passes,
            "feedback": self.feedback,
            "finished": self.episode is not None,
        }
        if self.episode is not None:
            status |= _final(self.episode)
        return status

    async def submit(self) -> dict[str, Any]:
        """Stop, wait for the verifier pass, and return its feedback (or the final result)."""
        if self.episode is not None:
            return {"passed": self.episode.solved, "final": True, **_final(self.episode)}
        if self.turn is None:
            raise ProtocolError("not_in_turn", "no turn is open (a verifier pass is running)")
        number = self.turn.number
        self.stop()
        while self.episode is None and (self.turn is None or self.turn.number == number):
            await self._changed.wait()
        if self.episode is not None:
            return {"passed": self.episode.solved, "final": True, **_final(self.episode)}
        return {"passed": False, "final": False, "feedback": self.feedback, **self.status()}

    def _current_turn(self) -> Turn:
        if self.turn is None:
            what = "the episode has ended" if self.episode is not None else "no turn is open"
            raise ProtocolError("not_in_turn", what)
        return self.turn


class SessionAgent:
    """The agent of a session: each turn is served to the external client."""

    def __init__(self, session: Session) -> None:
        self.session = session

    async def run(self, turn: Turn) -> None:
        """Serve ``turn`` until the client submits or disconnects."""
        await self.session.serve_turn(turn)


class SessionAgents:
    """Makes the session's agent (a fresh one per turn in ``restart`` mode); names it."""

    def __init__(self, session: Session, name: str) -> None:
        self.session = session
        self.name = name

    def __call__(self) -> SessionAgent:
        return SessionAgent(self.session)


def _final(episode: Episode) -> dict[str, Any]:
    return {"outcome": str(episode.outcome), "reward": episode.reward}


async def _sandbox_op(turn: Turn, request: Request) -> dict[str, Any]:
    args = request.args
    if request.op == "exec":
        return await _exec(turn, args)
    if request.op == "read_file":
        data = await turn.sandbox.read_file(args["path"])
        if len(data) > MAX_FILE_BYTES:
            raise ProtocolError(
                "too_large",
                f"{args['path']} has {len(data)} bytes; the limit is {MAX_FILE_BYTES} "
                "(read it in parts with exec)",
            )
        return encode_content(data)
    await turn.sandbox.write_file(args["path"], decode_content(args), mode=args.get("mode"))
    return {}


async def _exec(turn: Turn, args: dict[str, Any]) -> dict[str, Any]:
    timeout = min(args.get("timeout") or turn.remaining_sec, turn.remaining_sec)
    result = await turn.sandbox.exec(
        args["cmd"],
        timeout=max(timeout, 0.001),
        cwd=args.get("cwd"),
        stdin=args.get("stdin"),
        output_limit=MAX_OUTPUT_BYTES,
    )
    return {
        "exit_code": result.exit_code,
        "stdout": result.stdout_text,
        "stderr": result.stderr_text,
        "stdout_truncated": result.stdout_truncated,
        "stderr_truncated": result.stderr_truncated,
        "timed_out": result.timed_out,
    }
