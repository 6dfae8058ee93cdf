"""The play shell: an interactive shell in the sandbox with an ``lhtb`` shell function.

``lhtb submit`` (``status``, ``instruction``) in that shell asks the person's
``lhtb play`` for it by writing a private escape sequence to its terminal,
``ESC ] lhtb-play;TOKEN;OP BEL``, with a random token per session; the relay
on the host takes it out of the output, carries it out, shows the answer, and
types the exit code back (echo off), which the function returns. Nothing of
lhtb's (no socket, no file) is put into the sandbox: what a process there can
ask this way, an agent can do anyway (stop, read its status).
"""

from __future__ import annotations

import secrets

__all__ = ["REQUESTS", "new_token", "shell_command", "shell_env"]

REQUESTS = ("submit", "status", "instruction")
"""What the ``lhtb`` shell function may ask of the relay."""

_RC = r"""
if [ -n "${BASH_VERSION:-}" ]; then
  [ -r /etc/bash.bashrc ] && . /etc/bash.bashrc
  [ -r "$HOME/.bashrc" ] && . "$HOME/.bashrc"
  PS1="[lhtb] ${PS1:-\w \$ }"
else
  PS1='[lhtb] $ '
fi
exec 3<&-
lhtb() {
  case "${1:-}" in
    submit|status|instruction) ;;
    *) echo "in this shell: lhtb submit | lhtb status | lhtb instruction" >&2; return 2 ;;
  esac
  _lhtb_tty=$(stty -g </dev/tty 2>/dev/null)
  stty -echo </dev/tty 2>/dev/null
  printf '\033]lhtb-play;%s;%s\007' "$LHTB_PLAY_TOKEN" "$1" >/dev/tty
  IFS= read -r _lhtb_code </dev/tty
  [ -n "$_lhtb_tty" ] && stty "$_lhtb_tty" </dev/tty 2>/dev/null
  case "$_lhtb_code" in [0-9]*) return "$_lhtb_code" ;; *) return 1 ;; esac
}
"""

_COMMAND = """if command -v bash >/dev/null 2>&1; then
exec bash --rcfile /dev/fd/3 -i 3<<'LHTB_PLAY_RC'
{rc}
LHTB_PLAY_RC
fi
ENV=/dev/fd/3 exec sh -i 3<<'LHTB_PLAY_RC'
{rc}
LHTB_PLAY_RC
"""


def new_token() -> str:
    """A random token naming this session's requests."""
    return secrets.token_hex(16)


def shell_command() -> str:
    """The ``sh -c`` command starting the play shell (bash if there, else sh)."""
    return _COMMAND.format(rc=_RC.strip())


def shell_env(token: str) -> dict[str, str]:
    """The play shell's environment additions."""
    return {"LHTB_PLAY_TOKEN": token}
