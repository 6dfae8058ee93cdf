"""Episodes driven through the session socket by scripted clients, on each backend."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lhtb.episode import TurnEnd
from lhtb.episode._feedback import BINARY_SENTENCE
from lhtb.errors import LhtbError
from lhtb.sandbox.base import SandboxBackend
from lhtb.session import SessionClient, SessionRequestError

from .session_helpers import drive, write_task

pytestmark = pytest.mark.anyio


async def test_a_client_solves_the_task(sandbox_backend: SandboxBackend, tmp_path: Path) -> None:
    def client(path: Path) -> dict[str, Any]:
        with SessionClient(path) as session:
            hello = session.request("hello", client="test")
            assert hello["instruction"] == "Write 42 to /app/answer.txt.\n"
            assert hello["turn"] == 1
            assert hello["in_turn"] is True
            session.request("write_file", path="/app/answer.txt", content="42")
            shown = session.request("exec", cmd="cat /app/answer.txt; echo oops >&2; exit 3")
            assert shown["stdout"] == "42"
            assert shown["stderr"] == "oops\n"
            assert shown["exit_code"] == 3
            assert session.request("read_file", path="/app/answer.txt")["content"] == "42"
            return session.request("submit")

    episode, verdict = await drive(
        write_task(tmp_path / "task"), sandbox_backend, tmp_path / "ep", client
    )
    assert verdict == {"passed": True, "final": True, "outcome": "solved", "reward": 1.0}
    assert (str(episode.outcome), episode.reward, len(episode.passes)) == ("solved", 1.0, 1)
    assert episode.config.agent == "scripted"
    assert episode.turns[0].end is TurnEnd.RETURNED


async def test_wrong_then_right_after_a_binary_rejection(
    sandbox_backend: SandboxBackend, tmp_path: Path
) -> None:
    def client(path: Path) -> list[dict[str, Any]]:
        with SessionClient(path) as session:
            session.request("hello")
            session.request("write_file", path="/app/answer.txt", content="41")
            rejected = session.request("submit")
            status = session.request("status")
            session.request("write_file", path="/app/answer.txt", content="42")
            events = session.request("events", since=0)
            return [rejected, status, session.request("submit"), events]

    episode, (rejected, status, solved, events) = await drive(
        write_task(tmp_path / "task"), sandbox_backend, tmp_path / "ep", client
    )
    assert rejected["passed"] is False
    assert rejected["final"] is False
    assert rejected["feedback"].startswith(BINARY_SENTENCE.split(" (")[0])
    assert "reward" not in rejected  # binary: the interim reward is not told
    assert (status["turn"], status["passes"], status["in_turn"]) == (2, 1, True)
    assert status["remaining_sec"] > 0
    assert solved["passed"] is True
    assert [e["event"] for e in events["events"]][:4] == [
        "agent_turn_started",
        "agent_turn_finished",
        "verifier_pass_started",
        "verifier_pass_finished",
    ]
    assert all("reward" not in e for e in events["events"])
    assert (str(episode.outcome), [p.reward for p in episode.passes]) == ("solved", [0.0, 1.0])


async def test_an_idle_client_is_cut_off_at_the_budget(
    sandbox_backend: SandboxBackend, tmp_path: Path
) -> None:
    def client(path: Path) -> str:
        with SessionClient(path) as session:
            assert session.request("hello")["in_turn"] is True
            with pytest.raises(LhtbError) as ended:
                session.receive()  # nothing asked: the next line is the end of the stream
            return ended.value.what

    episode, ended = await drive(
        write_task(tmp_path / "task"), sandbox_backend, tmp_path / "ep", client, budget=3
    )
    assert "closed the connection" in ended
    assert str(episode.outcome) == "unsolved"
    assert [t.end for t in episode.turns] == [TurnEnd.DEADLINE]
    assert episode.passes[-1].final


async def test_a_disconnect_mid_turn_is_a_stop(
    sandbox_backend: SandboxBackend, tmp_path: Path
) -> None:
    def client(path: Path) -> None:
        session = SessionClient(path)
        session.request("hello")
        session.request("write_file", path="/app/answer.txt", content="42")
        session.send_raw(b'{"op": "exec", "cmd": "sleep 600"}\n')
        session.close()  # without waiting for the command

    episode, _ = await drive(
        write_task(tmp_path / "task"), sandbox_backend, tmp_path / "ep", client
    )
    assert [t.end for t in episode.turns] == [TurnEnd.RETURNED]  # not the 120 s deadline
    assert (str(episode.outcome), episode.reward) == ("solved", 1.0)


async def test_a_second_client_is_refused_and_bad_requests_get_typed_errors(
    sandbox_backend: SandboxBackend, tmp_path: Path
) -> None:
    def client(path: Path) -> list[str]:
        codes = []
        with SessionClient(path) as first:
            first.request("hello")
            with SessionClient(path) as second:
                answer = second.receive()
                assert answer["ok"] is False
                codes.append(answer["error"]["code"])
            for op, args in [
                ("launch", {}),
                ("exec", {"cmd": []}),
                ("exec", {"cmd": "true", "timeout": -1}),
                ("write_file", {"path": "relative.txt", "content": ""}),
                ("write_file", {"path": "/app/x", "content": "%%", "encoding": "base64"}),
                ("read_file", {"path": "/no/such/file"}),
                ("status", {"extra": 1}),
            ]:
                with pytest.raises(SessionRequestError) as refused:
                    first.request(op, **args)
                codes.append(refused.value.code)
            first.send_raw(b"not json\n")
            codes.append(first.receive()["error"]["code"])
            first.request("write_file", path="/app/answer.txt", content="42")
            first.request("submit")
        return codes

    episode, codes = await drive(
        write_task(tmp_path / "task"), sandbox_backend, tmp_path / "ep", client
    )
    assert codes == ["busy", *["bad_request"] * 5, "file_error", "bad_request", "bad_request"]
    assert str(episode.outcome) == "solved"
