"""Task gates (``lhtb check``): a task must be solvable, and not by doing nothing or a shortcut.

Owns :func:`check_tasks`: the oracle must solve each task, the nop agent must not,
each weak solution a task ships (``tests/weak_solution_*``) must fail and grade
reproducibly over several seeds, and the results of the weak-solution gate kept by
task checksum so an unchanged task is not run again.

- ``_check``: :func:`check_tasks`, :class:`TaskCheck`.
- ``_weak_gate``: weak solutions as agents, their rules, :class:`WeakCheck`.
- ``_weak_record``: ``weak-gate.json`` (results by task checksum).

May import: :mod:`lhtb.bench` (the gates are benchmark runs), :mod:`lhtb.analysis`
(re-grading), :mod:`lhtb.episode`, :mod:`lhtb.verify`, :mod:`lhtb.agents`,
:mod:`lhtb.sandbox`, :mod:`lhtb.task`, :mod:`lhtb.errors`, :mod:`lhtb._util`.
"""

from lhtb.gates._check import NOP_MAX_REWARD, TaskCheck, WeakCheck, WeakSolutionAgent, check_tasks

__all__ = [
    "NOP_MAX_REWARD",
    "TaskCheck",
    "WeakCheck",
    "WeakSolutionAgent",
    "check_tasks",
]
