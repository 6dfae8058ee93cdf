"""External agents and people: an episode whose agent is outside lhtb's process.

Owns serving one episode to an agent elsewhere with the same budget, isolation,
feedback and record as an in-process agent: the session (requests become sandbox
operations within the agent's turns), the JSON-lines protocol over a Unix socket
(``lhtb serve``, ``lhtb exec``, ``lhtb submit``), the same tools over MCP stdio
(``lhtb mcp``), and a person's shell in the sandbox (``lhtb play``).

- ``core``: :class:`Session`; ``protocol``: the wire format; ``server``: :func:`serve_session`.
- ``client``: :class:`SessionClient` (blocking, for ``lhtb exec`` and tests).
- ``mcp_server``, ``mcp_detach``: ``lhtb mcp``; ``play``, ``_play_shell``, ``_play_output``:
  ``lhtb play``.

See docs/external-agents.md for the protocol.

May import: :mod:`lhtb.episode` (it runs one), :mod:`lhtb.agents`, :mod:`lhtb.sandbox`,
:mod:`lhtb.task`, :mod:`lhtb.errors`, :mod:`lhtb._util`.
"""

from lhtb.errors import SessionRequestError
from lhtb.session.client import SessionClient
from lhtb.session.core import Session, SessionAgent
from lhtb.session.server import default_socket_path, serve_session

__all__ = [
    "Session",
    "SessionAgent",
    "SessionClient",
    "SessionRequestError",
    "default_socket_path",
    "serve_session",
]
