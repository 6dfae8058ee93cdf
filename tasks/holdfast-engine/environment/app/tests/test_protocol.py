import unittest

from holdfast.protocol import Session


class ProtocolTest(unittest.TestCase):
    def setUp(self):
        self.session = Session()

    def test_hello(self):
        self.assertTrue(self.session.handle("hello").startswith("hello holdfast"))

    def test_start_legal(self):
        self.assertEqual(self.session.handle("legal"), "legal d3 c4 f5 e6")

    def test_play_and_position(self):
        reply = self.session.handle("play f5")
        self.assertTrue(reply.startswith("position "))
        self.assertTrue(reply.endswith(" O"))

    def test_illegal(self):
        self.assertEqual(self.session.handle("play a1"), "error illegal")

    def test_score_before_end(self):
        self.assertEqual(self.session.handle("score"), "error not-over")

    def test_unknown(self):
        self.assertTrue(self.session.handle("jump").startswith("error unknown-command"))

    def test_bad_position(self):
        self.assertTrue(self.session.handle("position xyz X").startswith("error bad-position"))

    def test_go_returns_a_legal_move(self):
        reply = self.session.handle("go 200")
        self.assertIn(reply, {"move d3", "move c4", "move f5", "move e6"})

    def test_quit(self):
        self.assertIsNone(self.session.handle("quit"))


if __name__ == "__main__":
    unittest.main()
