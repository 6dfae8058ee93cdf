import math
import random
import unittest

from tcr import linalg, logistic


class LinalgTest(unittest.TestCase):
    def test_solve(self):
        x = linalg.solve([[2.0, 1.0], [1.0, 3.0]], [3.0, 5.0])
        self.assertAlmostEqual(x[0], 0.8)
        self.assertAlmostEqual(x[1], 1.4)

    def test_inverse(self):
        inv = linalg.inverse([[4.0, 7.0], [2.0, 6.0]])
        self.assertAlmostEqual(inv[0][0], 0.6)
        self.assertAlmostEqual(inv[1][1], 0.4)

    def test_singular(self):
        with self.assertRaises(ValueError):
            linalg.solve([[1.0, 2.0], [2.0, 4.0]], [1.0, 2.0])


class LogisticTest(unittest.TestCase):
    def test_recovers_coefficients(self):
        rng = random.Random(3)
        x, y = [], []
        for _ in range(4000):
            a = rng.random() < 0.5
            b = rng.gauss(0, 1)
            eta = -1.0 + 0.8 * a + 0.5 * b
            x.append([1.0, float(a), b])
            y.append(1.0 if rng.random() < 1 / (1 + math.exp(-eta)) else 0.0)
        beta, cov = logistic.fit(x, y)
        self.assertAlmostEqual(beta[1], 0.8, delta=0.2)
        self.assertAlmostEqual(beta[2], 0.5, delta=0.15)
        self.assertGreater(cov[1][1], 0)

    def test_odds_ratio_ci_contains_estimate(self):
        rng = random.Random(5)
        x = [[1.0, float(rng.random() < 0.5)] for _ in range(500)]
        y = [float(rng.random() < 0.3) for _ in x]
        row = logistic.odds_ratios(x, y, ["a"])["a"]
        self.assertLess(row["ci_low"], row["or"])
        self.assertLess(row["or"], row["ci_high"])


if __name__ == "__main__":
    unittest.main()
