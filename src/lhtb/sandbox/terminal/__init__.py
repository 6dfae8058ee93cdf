"""What every backend's interactive terminal shares: a plain screen and a reader thread.

The :class:`~lhtb.sandbox.base.Terminal` protocol is in :mod:`lhtb.sandbox.base`;
each backend's terminal (``docker/_terminal``, ``local/_terminal``) subclasses
``_base.ScreenTerminal``, which feeds ``_screen.PlainScreen`` from a reader thread.

May import: the sandbox core (:mod:`lhtb.sandbox.base`), :mod:`lhtb.errors`,
:mod:`lhtb._util`; no backend.
"""
