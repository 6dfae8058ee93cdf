import time
import unittest

from holdfast.board import parse_cell, starting_board
from holdfast.evaluate import evaluate
from holdfast.search import best_move, ordered


class SearchTest(unittest.TestCase):
    def test_ordering_puts_corners_first(self):
        moves = [parse_cell("b2"), parse_cell("a1"), parse_cell("d3")]
        self.assertEqual(ordered(moves)[0], parse_cell("a1"))

    def test_symmetric_start_evaluates_even(self):
        self.assertEqual(evaluate(starting_board(), "X"), 0)

    def test_best_move_is_legal_and_timely(self):
        started = time.monotonic()
        move, depth = best_move(starting_board(), "X", 0.2)
        self.assertIn(move, [parse_cell(n) for n in ("d3", "c4", "f5", "e6")])
        self.assertGreaterEqual(depth, 1)
        self.assertLess(time.monotonic() - started, 5)


if __name__ == "__main__":
    unittest.main()
