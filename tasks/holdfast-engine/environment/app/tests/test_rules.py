import unittest

from helpers import board_from_rows, cells

from holdfast.board import parse_cell, starting_board
from holdfast.rules import apply_move, count, flips_for, is_anchored, legal_moves


class OpeningMovesTest(unittest.TestCase):
    def test_first_moves(self):
        self.assertEqual(legal_moves(starting_board(), "X"), cells("d3", "c4", "f5", "e6"))

    def test_replies(self):
        board = apply_move(starting_board(), parse_cell("f5"), "X")
        self.assertEqual(legal_moves(board, "O"), cells("f4", "d6", "f6"))

    def test_apply_flips(self):
        board = apply_move(starting_board(), parse_cell("f5"), "X")
        self.assertEqual(count(board, "X"), 4)
        self.assertEqual(count(board, "O"), 1)

    def test_illegal_move(self):
        with self.assertRaises(ValueError):
            apply_move(starting_board(), parse_cell("a1"), "X")

    def test_occupied_cell(self):
        self.assertEqual(flips_for(starting_board(), parse_cell("d4"), "X"), [])


class LinesTest(unittest.TestCase):
    def test_several_directions_flip_together(self):
        board = board_from_rows(
            "........",
            "........",
            "..X.X...",
            "...OO...",
            "..XO.X..",
            "...OO...",
            "..X..X..",
            "........",
        )
        flipped = flips_for(board, parse_cell("e4"), "X")
        self.assertEqual(sorted(flipped), cells("d4", "d3", "e5", "d5"))

    def test_stone_ends_a_line(self):
        board = board_from_rows(
            "........",
            "........",
            "........",
            "..X#O...",
            "........",
            "........",
            "........",
            "........",
        )
        self.assertEqual(flips_for(board, parse_cell("f5"), "X"), [])

    def test_anchored_disc(self):
        board = board_from_rows(
            "........",
            "........",
            "...#....",
            "...O....",
            "........",
            "........",
            "........",
            "........",
        )
        self.assertTrue(is_anchored(board, parse_cell("d5")))
        self.assertFalse(is_anchored(board, parse_cell("d6")))


if __name__ == "__main__":
    unittest.main()
