"""The reference agent's tools: schemas for the model and their execution in the sandbox.

Every tool returns text for the model; nothing a tool call does can crash the
agent except the sandbox disappearing. Malformed arguments (invalid JSON,
missing or mistyped fields, unknown tools) become an error observation that
says how to call the tool correctly.
"""

from __future__ import annotations

import json
import posixpath
from typing import Any

import attrs

from lhtb.errors import SandboxError, SandboxUnavailableError
from lhtb.sandbox.base import Sandbox, Terminal

__all__ = ["ToolBox", "ToolOutcome", "tool_schemas", "truncate_middle"]

FINISH = "finish"
_BASH_WRAPPER = (
    'if command -v bash >/dev/null 2>&1; then exec bash -c "$1"; else exec sh -c "$1"; fi'
)


def truncate_middle(text: str, limit: int) -> str:
    """Keep the head and tail of ``text`` within ``limit`` characters, saying what was cut."""
    if len(text) <= limit:
        return text
    head = limit // 2
    tail = limit - head
    omitted = len(text) - head - tail
    return (
        f"{text[:head]}\n[... {omitted} characters omitted from the middle of this output; "
        f"it was {len(text)} characters long ...]\n{text[-tail:]}"
    )


def _function(name: str, description: str, properties: dict[str, Any], required: list[str]) -> Any:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


def tool_schemas(*, use_terminal: bool, max_output_chars: int) -> list[Any]:
    """The tool definitions sent to the model."""
    tools: list[Any] = []
    if use_terminal:
        tools.append(
            _function(
                "terminal",
                "Type keys into a persistent interactive terminal (a shell on a TTY) and return "
                "the new output. Keys are sent verbatim: end a command with \\n to run it; "
                "\\u0003 is Ctrl-C, \\u0004 is Ctrl-D. Send empty keys to wait for more output. "
                f"Output is cut to {max_output_chars} characters (head and tail kept).",
                {
                    "keys": {"type": "string", "description": "Keys to type (may be empty)."},
                    "wait_sec": {
                        "type": "number",
                        "description": "Seconds to wait for output (default 2, max 60).",
                    },
                },
                ["keys"],
            )
        )
    else:
        tools.append(
            _function(
                "bash",
                "Run a shell command in the sandbox (a fresh bash process each call; state such "
                "as the working directory does not persist). Returns the exit code, stdout and "
                f"stderr, each cut to {max_output_chars} characters (head and tail kept). Long-"
                "running work: run it in the background with nohup and poll.",
                {
                    "command": {"type": "string", "description": "The command to run."},
                    "timeout": {
                        "type": "integer",
                        "description": "Seconds before the command is killed (optional).",
                    },
                },
                ["command"],
            )
        )
    tools += [
        _function(
            "read_file",
            "Read a text file from the sandbox (absolute path).",
            {"path": {"type": "string", "description": "Absolute path."}},
            ["path"],
        ),
        _function(
            "write_file",
            "Create or replace a file in the sandbox (absolute path; parent directories are made).",
            {
                "path": {"type": "string", "description": "Absolute path."},
                "content": {"type": "string", "description": "The full new content."},
            },
            ["path", "content"],
        ),
        _function(
            FINISH,
            "Stop working: call this only when the task is complete. A hidden verifier then "
            "checks the sandbox; you may be resumed if it is not satisfied.",
            {"summary": {"type": "string", "description": "What you did, briefly."}},
            [],
        ),
    ]
    return tools


@attrs.frozen
class ToolOutcome:
    """What a tool call produced: the text for the model, and whether it asked to stop."""

    content: str
    finish: bool = False
    error: bool = False


class _BadArguments(Exception):
    pass


_EXAMPLES = {
    "bash": '{"command": "ls -la /app"}',
    "terminal": '{"keys": "ls\\n", "wait_sec": 2}',
    "read_file": '{"path": "/app/main.py"}',
    "write_file": '{"path": "/app/out.txt", "content": "hello\\n"}',
    FINISH: '{"summary": "done"}',
}


def _parse(arguments: str | None) -> dict[str, Any]:
    text = (arguments or "").strip() or "{}"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise _BadArguments(
            f"the arguments are not valid JSON ({error.msg} at {error.pos})"
        ) from None
    if not isinstance(value, dict):
        raise _BadArguments(f"the arguments must be a JSON object, got {type(value).__name__}")
    return value


def _string(args: dict[str, Any], name: str, *, required: bool = True) -> str:
    value = args.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise _BadArguments(f"{name!r} must be a string")
    return value


def _number(args: dict[str, Any], name: str) -> float | None:
    value = args.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _BadArguments(f"{name!r} must be a number")
    if value <= 0:
        raise _BadArguments(f"{name!r} must be positive")
    return float(value)


def _absolute(path: str) -> str:
    if not path.startswith("/"):
        raise _BadArguments(f"paths must be absolute, got {path!r}")
    return posixpath.normpath(path)


@attrs.define
class ToolBox:
    """Runs tool calls against one sandbox for one turn."""

    sandbox: Sandbox
    max_output_chars: int
    command_timeout_sec: float
    use_terminal: bool = False
    terminal_session: Terminal | None = None

    async def call(self, name: str, arguments: str | None, remaining_sec: float) -> ToolOutcome:
        """Run one tool call; errors the model can fix come back as text."""
        try:
            args = _parse(arguments)
            if name == "bash" and not self.use_terminal:
                return await self._bash(args, remaining_sec)
            if name == "terminal" and self.use_terminal:
                return await self._terminal(args)
            if name == "read_file":
                return await self._read_file(args)
            if name == "write_file":
                return await self._write_file(args)
            if name == FINISH:
                return ToolOutcome(_string(args, "summary", required=False) or "ok", finish=True)
        except _BadArguments as error:
            example = _EXAMPLES.get(name, "{}")
            return ToolOutcome(
                f"error: {error}. Nothing was run. Call {name} again with arguments "
                f"like {example}.",
                error=True,
            )
        shell = "terminal" if self.use_terminal else "bash"
        known = ", ".join([shell, "read_file", "write_file", FINISH])
        return ToolOutcome(f"error: there is no tool named {name!r}. Tools: {known}.", error=True)

    async def _bash(self, args: dict[str, Any], remaining_sec: float) -> ToolOutcome:
        command = _string(args, "command")
        if not command.strip():
            raise _BadArguments("'command' is empty")
        asked = _number(args, "timeout")
        timeout = max(1.0, min(asked or self.command_timeout_sec, remaining_sec or 1.0))
        try:
            result = await self.sandbox.exec(
                ["sh", "-c", _BASH_WRAPPER, "sh", command], timeout=timeout
            )
        except SandboxUnavailableError:
            raise
        except SandboxError as error:
            return ToolOutcome(f"error: the command could not run: {error}", error=True)
        limit = self.max_output_chars
        parts = [f"exit code: {result.exit_code}"]
        if result.timed_out:
            parts.append(f"the command timed out after {timeout:.0f}s and was killed")
        for label, text, cut in (
            ("stdout", result.stdout_text, result.stdout_truncated),
            ("stderr", result.stderr_text, result.stderr_truncated),
        ):
            if text or label == "stdout":
                note = " (the sandbox kept only the first part)" if cut else ""
                parts.append(f"[{label}{note}]\n{truncate_middle(text, limit)}")
        return ToolOutcome("\n".join(parts), error=not result.ok)

    async def _terminal(self, args: dict[str, Any]) -> ToolOutcome:
        keys = _string(args, "keys", required=False)
        wait = min(60.0, _number(args, "wait_sec") or 2.0)
        notes = ""
        if self.terminal_session is None or self.terminal_session.closed:
            if self.terminal_session is not None:
                notes = "[the previous terminal session had ended; a new one was started]\n"
            self.terminal_session = await self.sandbox.terminal()
            await self.terminal_session.read(timeout=1.0)
        session = self.terminal_session
        if keys:
            await session.send(keys)
        output = await session.read(timeout=wait)
        if not output:
            output = "[no new output]\n[current screen]\n" + session.screen()
        if session.closed:
            notes += "[the terminal session ended]\n"
        return ToolOutcome(notes + truncate_middle(output, self.max_output_chars))

    async def _read_file(self, args: dict[str, Any]) -> ToolOutcome:
        path = _absolute(_string(args, "path"))
        try:
            data = await self.sandbox.read_file(path)
        except SandboxUnavailableError:
            raise
        except (OSError, SandboxError) as error:
            detail = error.strerror if isinstance(error, OSError) and error.strerror else error
            return ToolOutcome(f"error: cannot read {path}: {detail}", error=True)
        text = data.decode("utf-8", errors="replace")
        return ToolOutcome(truncate_middle(text, self.max_output_chars) if text else "[empty file]")

    async def _write_file(self, args: dict[str, Any]) -> ToolOutcome:
        path = _absolute(_string(args, "path"))
        content = _string(args, "content")
        try:
            await self.sandbox.write_file(path, content)
        except SandboxUnavailableError:
            raise
        except (OSError, SandboxError) as error:
            detail = error.strerror if isinstance(error, OSError) and error.strerror else error
            return ToolOutcome(f"error: cannot write {path}: {detail}", error=True)
        return ToolOutcome(f"wrote {len(content.encode())} bytes to {path}")

    async def aclose(self) -> None:
        """Close the terminal session, if one was started."""
        if self.terminal_session is not None:
            await self.terminal_session.close()
            self.terminal_session = None
