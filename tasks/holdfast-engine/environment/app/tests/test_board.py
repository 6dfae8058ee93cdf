import unittest

from helpers import board_from_rows

from holdfast.board import (
    BLACK, PositionError, cell_name, format_position, parse_cell, parse_position, pretty, starting_board,
)


class NotationTest(unittest.TestCase):
    def test_cell_names_round_trip(self):
        for cell in range(64):
            self.assertEqual(parse_cell(cell_name(cell)), cell)

    def test_corners(self):
        self.assertEqual(cell_name(0), "a1")
        self.assertEqual(cell_name(7), "h1")
        self.assertEqual(cell_name(56), "a8")
        self.assertEqual(cell_name(63), "h8")

    def test_bad_names(self):
        for name in ("i1", "a9", "a0", "", "a", "aa1"):
            with self.assertRaises(PositionError):
                parse_cell(name)

    def test_position_round_trip(self):
        board = starting_board((parse_cell("b2"), parse_cell("g7")))
        text = format_position(board, BLACK)
        self.assertEqual(parse_position(text), (board, BLACK))

    def test_bad_positions(self):
        for text in ("." * 63 + " X", "." * 64 + " Z", "." * 63 + "? X", "." * 64):
            with self.assertRaises(PositionError):
                parse_position(text)

    def test_start(self):
        board = starting_board()
        self.assertEqual(board[parse_cell("d4")], "O")
        self.assertEqual(board[parse_cell("e4")], "X")
        self.assertEqual(board.count("."), 60)

    def test_stone_on_centre_refused(self):
        with self.assertRaises(PositionError):
            starting_board((parse_cell("d4"),))

    def test_rows_helper_and_pretty(self):
        board = board_from_rows(
            "........", "........", "........", "...XO...", "...OX...", "........", "........", "........",
        )
        self.assertEqual(board[parse_cell("d5")], "X")
        self.assertTrue(pretty(board).startswith("8 . . ."))


if __name__ == "__main__":
    unittest.main()
