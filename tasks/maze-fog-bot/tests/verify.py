"""Hidden checks for maze-fog-bot. Writes /logs/verifier/scorecard.json.

Plays the agent's /app/bot.py on seeded levels with the referee in this
directory (never the workspace engine, which the agent can edit). The bot is
started with ``popen_untrusted`` (as nobody, with /tests and /logs/verifier
locked, no verifier environment, its own scratch HOME) and every game ends with
``stop_untrusted``, which kills whatever the bot left running."""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate as gen  # noqa: E402
import referee  # noqa: E402
from lhtb_scorecard import Scorecard, popen_untrusted, readable, stop_untrusted  # noqa: E402
from lhtb_scorecard import seed as kit_seed  # noqa: E402

APP = Path(os.environ.get("LHTB_APP", "/app"))
BOT = [sys.executable, str(APP / "bot.py")]
PER_GAME_SEC = 6.0
TOTAL_SEC = 200.0
WEIGHTS = {"perfect_mazes": 2, "braided_mazes": 3, "keys_and_doors": 3, "teleporters": 3, "mixed_large": 3}
EFFICIENT, WASTEFUL = 2.0, 4.0  # steps per open cell: full credit, zero credit


def main():
    seed = kit_seed()
    card = Scorecard()
    deadline = time.monotonic() + TOTAL_SEC
    readable(APP)

    def play(level):
        if time.monotonic() > deadline:
            return {"won": False, "steps": 0, "open": 1, "reason": "verifier time cap"}
        try:
            return referee.play(level, BOT, cwd=str(APP), time_limit=PER_GAME_SEC,
                                spawn=popen_untrusted, stop=stop_untrusted)
        except OSError as exc:  # the bot could not be started
            return {"won": False, "steps": 0, "open": 1, "reason": f"bot did not start: {exc}"}

    public = [play(level) for level in gen.public_levels()]
    first = public[0]
    card.check("bot_protocol", first["reason"] in ("reached the exit", "budget spent"), weight=1,
               visibility="public", message=first["reason"])
    card.check("public_levels", all(r["won"] for r in public), weight=1, visibility="public",
               message=f"{sum(r['won'] for r in public)}/{len(public)} won")

    efficiency = []
    for name, levels in gen.hidden_levels(seed).items():
        results = [play(level) for level in levels]
        wins = sum(r["won"] for r in results)
        card.add(name, wins / len(results), weight=WEIGHTS[name],
                 message=f"seed {seed}: won {wins}/{len(results)}")
        if name in ("braided_mazes", "mixed_large"):
            for r in results:
                ratio = r["steps"] / r["open"] if r["won"] else WASTEFUL
                efficiency.append(min(1.0, max(0.0, (WASTEFUL - ratio) / (WASTEFUL - EFFICIENT))))
    card.add("exploration_efficiency", sum(efficiency) / len(efficiency), weight=2,
             message=f"seed {seed}: full credit at <= {EFFICIENT} steps per open cell")
    card.write("/logs/verifier/scorecard.json")


if __name__ == "__main__":
    main()
