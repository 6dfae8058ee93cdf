import unittest

from holdfast.board import parse_cell
from holdfast.game import PASS, GameState
from holdfast.record import Record, RecordError


class GameTest(unittest.TestCase):
    def test_start_options(self):
        state = GameState.start()
        self.assertEqual(len(state.options()), 4)
        self.assertFalse(state.is_over())

    def test_play_switches_side(self):
        state = GameState.start().play(parse_cell("f5"))
        self.assertEqual(state.side, "O")

    def test_pass_refused_with_moves(self):
        with self.assertRaises(ValueError):
            GameState.start().play(PASS)

    def test_full_board_is_over(self):
        state = GameState.parse("X" * 32 + "O" * 32 + " X")
        self.assertTrue(state.is_over())
        self.assertEqual(state.options(), [])

    def test_str_round_trip(self):
        state = GameState.start((parse_cell("a1"), parse_cell("h8")))
        self.assertEqual(str(GameState.parse(str(state))), str(state))


class RecordTest(unittest.TestCase):
    def test_replay_and_format(self):
        record = Record.parse('[Stones "b3 g6"]\nf5 f6 e6 f4\n')
        self.assertEqual(len(record.replay()), 5)
        again = Record.parse(record.format())
        self.assertEqual(again.moves, record.moves)
        self.assertEqual(again.stones, record.stones)

    def test_illegal_move_in_record(self):
        with self.assertRaises(RecordError):
            Record.parse("a1\n").replay()

    def test_bad_header(self):
        with self.assertRaises(RecordError):
            Record.parse("[Stones b3]\n")


if __name__ == "__main__":
    unittest.main()
