"""External agents and people: an episode served over a socket or MCP.

See docs/external-agents.md for the protocol.
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
