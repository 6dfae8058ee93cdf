"""Public checks: play the bundled levels with /app/bot.py."""

import sys
from pathlib import Path

APP = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(APP / "game"))

import engine  # noqa: E402


def main():
    bot = [sys.executable, str(APP / "bot.py")]
    levels = sorted((APP / "levels").glob("public_*.txt"))
    results = [engine.play(level.read_text(), bot, cwd=str(APP), time_limit=6.0) for level in levels]
    first = results[0]
    ok = first["reason"] in ("reached the exit", "budget spent")
    print(("PASS" if ok else "FAIL") + f" bot_protocol: {first['reason']}")
    won = sum(r["won"] for r in results)
    for level, r in zip(levels, results):
        print(f"  {level.name}: {'won' if r['won'] else 'lost'} in {r['steps']} steps ({r['reason']})")
    print(("PASS" if won == len(results) else "FAIL") + f" public_levels: {won}/{len(results)} won")
    return 0 if ok and won == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
