import unittest

from holdfast.board import parse_board
from holdfast.scoring import base_score, final_result, margin


class ScoringTest(unittest.TestCase):
    def test_full_board(self):
        board = parse_board("X" * 40 + "O" * 24)
        result = final_result(board)
        self.assertEqual(result.winner, "X")
        self.assertEqual(result.black + result.white, 64 + 4)

    def test_corner_bonus(self):
        board = parse_board("X" + "O" * 62 + "X")
        self.assertEqual(base_score(board, "X"), 4)
        self.assertEqual(base_score(board, "O"), 64)

    def test_draw(self):
        board = parse_board(("XO" * 32))
        self.assertEqual(final_result(board).winner, "draw")
        self.assertEqual(margin(board, "X"), 0)


if __name__ == "__main__":
    unittest.main()
