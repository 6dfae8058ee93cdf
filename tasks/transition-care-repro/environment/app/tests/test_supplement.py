import unittest

from tcr import bootstrap, calibration, figures


class CalibrationTest(unittest.TestCase):
    def test_c_statistic_perfect(self):
        self.assertEqual(calibration.c_statistic([0.1, 0.2, 0.8, 0.9], [0.0, 0.0, 1.0, 1.0]), 1.0)

    def test_c_statistic_ties(self):
        self.assertEqual(calibration.c_statistic([0.5, 0.5], [0.0, 1.0]), 0.5)

    def test_chi2_sf(self):
        self.assertAlmostEqual(calibration._chi2_sf(3.841458820694124, 1), 0.05, places=4)


class PercentileTest(unittest.TestCase):
    def test_percentile_interpolates(self):
        self.assertEqual(bootstrap.percentile([1.0, 2.0, 3.0], 0.5), 2.0)
        self.assertEqual(bootstrap.percentile([1.0, 3.0], 0.25), 1.5)


class AgeGroupTest(unittest.TestCase):
    def test_groups(self):
        self.assertEqual(figures.age_group(18), "18-49")
        self.assertEqual(figures.age_group(65), "65-79")
        self.assertEqual(figures.age_group(97), "80+")
        self.assertIsNone(figures.age_group(17))


if __name__ == "__main__":
    unittest.main()
