"""Small helpers every layer may use, knowing nothing of tasks, sandboxes or episodes.

- :mod:`~lhtb._util.log`: library logging (structlog, imported on the first event).
- :mod:`~lhtb._util.display`: :class:`View` and :class:`Displayable`, how records show
  in a notebook and a terminal (each record builds its own view).
- :mod:`~lhtb._util.blocking`: running lhtb's async API from synchronous code.
- :mod:`~lhtb._util.version`: the package version.

May import: the standard library and third-party packages only (no other lhtb module).
"""
