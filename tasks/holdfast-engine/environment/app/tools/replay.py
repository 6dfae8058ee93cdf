#!/usr/bin/env python3
"""Replay a game record move by move: ``python3 tools/replay.py records/sample.hfg [--every N]``."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from holdfast.board import pretty  # noqa: E402
from holdfast.protocol import move_name  # noqa: E402
from holdfast.record import Record, RecordError  # noqa: E402
from holdfast.scoring import final_result  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("record")
    parser.add_argument("--every", type=int, default=1, help="print the board every N moves")
    args = parser.parse_args()
    record = Record.load(args.record)
    try:
        states = record.replay()
    except RecordError as exc:
        print(f"{args.record}: {exc}", file=sys.stderr)
        return 1
    for number, (move, state) in enumerate(zip(record.moves, states[1:]), 1):
        if number % args.every == 0 or number == len(record.moves):
            print(f"after {number}. {move_name(move)} ({state.side} to move)")
            print(pretty(state.board))
            print()
    final = states[-1]
    if final.is_over():
        result = final_result(final.board)
        print(f"final: X {result.black}, O {result.white}, winner {result.winner}")
    else:
        print(f"unfinished: {final.side} to move, options {[move_name(m) for m in final.options()]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
