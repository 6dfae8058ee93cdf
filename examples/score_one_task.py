"""Notebook-style flow: load a task, run one episode with an inline agent, show the scorecard.

Run from the repository root: python3 examples/score_one_task.py
"""

from pathlib import Path

import lhtb

REPO = Path(__file__).resolve().parent.parent

# %% Load a task
task = lhtb.load_task(REPO / "tasks" / "climate-extremes")
print(task.name, "| budget:", task.agent.timeout_sec, "s | isolation:", task.verifier.isolation)


# %% An agent written inline: it installs a (deliberately partial) fix and stops.
class PartialFixAgent:
    async def run(self, turn: lhtb.Turn) -> None:
        if turn.feedback:
            turn.log.info("rejected", feedback=turn.feedback)
            return
        weak = REPO / "tasks" / "climate-extremes" / "tests" / "weak_solution"
        solution = (weak / "app" / "heatwave.py").read_text()
        await turn.sandbox.write_file("/app/heatwave.py", solution)
        checks = await turn.sandbox.exec("python3 /app/checks/public_checks.py")
        turn.log.info("public_checks", output=checks.stdout_text)


# %% Run one episode (short budget: this is a demo, so the run is not comparable)
episode = lhtb.run_episode_sync(task, PartialFixAgent(), budget=120, max_passes=2)
print("outcome:", episode.outcome, "| reward:", episode.reward, "| passes:", len(episode.passes))

# %% The final scorecard
if episode.scorecard:
    for subtask in episode.scorecard.subtasks:
        label = f"{subtask.name:<24} {subtask.visibility:<7} w={subtask.weight:g}"
        print(f"  {label}  {subtask.score:.2f}")
