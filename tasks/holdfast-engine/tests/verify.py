"""Hidden checks for holdfast-engine. Writes /logs/verifier/scorecard.json.

Rules cases: seeded positions (cases.py) sent to the agent's /app/engine.py over
the protocol; every reply is compared with the reference rules in reference/.
Matches: seeded games against the referee's graded opponents (referee.py); an
illegal, malformed or late move forfeits the game. The engine runs through the
kit's ``popen_untrusted`` (as nobody, /tests and /logs/verifier locked) and each
session ends with ``stop_untrusted``."""

import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cases  # noqa: E402
import referee  # noqa: E402
from lhtb_scorecard import Scorecard, popen_untrusted, readable, stop_untrusted  # noqa: E402
from lhtb_scorecard import seed as kit_seed  # noqa: E402
from reference.board import cell_name  # noqa: E402
from reference.game import GameState  # noqa: E402
from reference.scoring import final_result  # noqa: E402

APP = Path(os.environ.get("LHTB_APP", "/app"))
ENGINE = ["/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable, "-B", str(APP / "engine.py")]
REPLY_SEC = 30.0  # a rules query (wall time: generous, the machine may be loaded)
MOVE_MS = 1000  # the budget sent with go
LATE_CPU_SEC = 3.0  # a move costing more CPU time (the engine's whole session) forfeits the game
LATE_WALL_SEC = 60.0  # so does one not answered within this wall time
# opponent -> (weight, games, share of points earning nothing, share earning full credit)
MATCHES = {
    "vs_random": (1, 3, 1 / 3, 2 / 3),
    "vs_greedy": (2, 3, 1 / 3, 2 / 3),
    "vs_positional": (8, 8, 0.25, 0.5),
    "vs_search": (16, 8, 0.25, 0.5),
}
SAMPLES = APP / "positions" / "samples.txt"


def start():
    proc = popen_untrusted(ENGINE, cwd=str(APP), stdin=-1, stdout=-1, stderr=-3)
    return proc, referee.Engine(proc)


def expected_legal(state):
    options = state.options()
    return "legal none" if not options else "legal " + " ".join(referee.move_text(m) for m in options)


def expected_score(state):
    if not state.is_over():
        return "error not-over"
    result = final_result(state.board)
    return f"score {result.black} {result.white} {result.winner}"


def query(engine, position, command):
    reply, _ = engine.ask(f"position {position}", REPLY_SEC)
    if reply != "ok":
        return f"<position -> {reply!r}>"
    reply, _ = engine.ask(command, REPLY_SEC)
    return reply


def run_rules(name, items, make):
    """Ask every item in one engine session; the fraction answered exactly like the reference."""
    proc, engine = start()
    good, first_miss = 0, ""
    try:
        for item in items:
            position, command, want = make(item)
            got = query(engine, position, command)
            if got is not None and got.split() == want.split():
                good += 1
            elif not first_miss:
                first_miss = f"; e.g. {command!r} on {position}: expected {want!r}, got {got!r}"
            if got is None:  # the engine died or hung: restart it for the rest
                stop_untrusted(proc)
                proc, engine = start()
    finally:
        stop_untrusted(proc)
    return good / len(items), f"{good}/{len(items)} exact{first_miss}"[:1500]


def legal_item(position):
    return position, "legal", expected_legal(GameState.parse(position))


def apply_item(pair):
    position, move = pair
    after = GameState.parse(position).play(move)
    return position, f"play {cell_name(move)}", f"position {after}"


def pass_item(position):
    state = GameState.parse(position)
    if sum(map(ord, position)) % 2:
        return position, "legal", expected_legal(state)
    return position, "play pass", f"position {state.play(-1)}"


def score_item(position):
    return position, "score", expected_score(GameState.parse(position))


def sample_items():
    items = []
    for line in SAMPLES.read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] in ("legal", "score"):
            state = GameState.parse(" ".join(parts[1:]))
            want = expected_legal(state) if parts[0] == "legal" else expected_score(state)
            items.append((" ".join(parts[1:]), parts[0], want))
    return items


def play_games(bot_factory, boards, rng, deadline):
    points, notes, clean = 0.0, [], True
    for number, stones in enumerate(boards):
        if time.monotonic() > deadline:
            notes.append("verifier time cap")
            clean = False
            continue
        side = "X" if number % 2 == 0 else "O"
        proc, engine = start()
        try:
            outcome = referee.play_match_game(engine, bot_factory(rng.randrange(10**9)), stones, side, MOVE_MS,
                                              LATE_CPU_SEC, LATE_WALL_SEC)
        finally:
            stop_untrusted(proc)
        points += outcome["points"]
        clean = clean and not outcome.get("forfeit")
        notes.append(f"{side}:{outcome['points']}({outcome['reason'][:80]})")
    return points, clean, notes


def main():
    seed = kit_seed()
    card = Scorecard()
    readable(APP)
    rng = random.Random(seed * 7919 + 18)
    deadline = time.monotonic() + 450  # matches left after this score nothing (timeout_sec is 600)

    items = sample_items()
    score, msg = run_rules("public_samples", items, lambda item: item) if items else (0.0, "no samples")
    card.check("public_samples", score == 1.0, weight=1, visibility="public", message=msg)
    pub_rng = random.Random(1)
    points, clean, notes = play_games(lambda s: referee.RandomOpponent(s), [(17, 46), (2, 61)], pub_rng, deadline)
    card.check("public_match", clean, weight=1, visibility="public", message=" ".join(notes))

    for name, weight, items, make in (
        ("legal_moves", 1, cases.legal_cases(rng, 12), legal_item),
        ("move_application", 1, cases.apply_cases(rng, 12), apply_item),
        ("passing", 1, cases.pass_cases(rng, 8), pass_item),
        ("final_scoring", 1, cases.finished_cases(rng, 10), score_item),
    ):
        score, msg = run_rules(name, items, make)
        card.add(name, score, weight=weight, message=f"seed {seed}: {msg}")

    factories = {
        "vs_random": lambda s: referee.RandomOpponent(s),
        "vs_greedy": lambda s: referee.GreedyOpponent(s),
        "vs_positional": lambda s: referee.SearchOpponent(s, 1),
        "vs_search": lambda s: referee.SearchOpponent(s, 2),
    }
    for name, (weight, games, floor, full) in MATCHES.items():
        boards = cases.match_boards(rng, games)
        points, _, notes = play_games(factories[name], boards, rng, deadline)
        share = points / games
        credit = min(1.0, max(0.0, (share - floor) / (full - floor)))
        card.add(name, credit, weight=weight,
                 message=f"seed {seed}: {points}/{games} points (nothing at {floor:.0%} or less, full credit "
                         f"at {full:.0%}); " + " ".join(notes))
    card.write(os.environ.get("HOLDFAST_SCORECARD", "/logs/verifier/scorecard.json"))


if __name__ == "__main__":
    main()
