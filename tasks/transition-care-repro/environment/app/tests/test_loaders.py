import csv
import tempfile
import unittest
from pathlib import Path

from tcr import loaders

W1 = ["adm_id", "patient_id", "admit_date", "discharge_date", "disposition", "tcp_enrolled", "charlson",
      "weight_lb", "creatinine_mgdl"]
W2 = ["adm_id", "patient_id", "admit_dt", "disch_dt", "disch_status", "tcp", "cci", "weight_kg", "creat_umol_l"]


def write(path, header, rows):
    with open(path, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(header)
        out.writerows(rows)


class LoaderTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        raw = Path(self.tmp.name)
        write(raw / "patients.csv", ["patient_id", "birth_date", "sex", "region"],
              [["P1", "1950-01-02", "M", "north"], ["P1", "1950-01-02", "M", "north"]])
        write(raw / "admissions_w1.csv", W1, [["A1", "P1", "2020-01-01", "2020-01-05", "1", "Y", "2", "176.4", "1.10"]])
        write(raw / "admissions_w2.csv", W2, [["A2", "P1", "11/02/2021", "13/02/2021", "HOME", "0", "3", "80.0", "97"]])
        self.raw = raw

    def tearDown(self):
        self.tmp.cleanup()

    def test_patients_deduplicated(self):
        self.assertEqual(list(loaders.load_patients(self.raw)), ["P1"])

    def test_wave1_harmonised(self):
        a = loaders.load_admissions(self.raw)[0]
        self.assertEqual(a.disposition, "home")
        self.assertTrue(a.program)
        self.assertAlmostEqual(a.weight_kg, 80.01, places=2)

    def test_wave2_rows_loaded(self):
        rows = loaders.load_admissions(self.raw)
        self.assertEqual(len(rows), 2)
        self.assertEqual(rows[1].wave, 2)
        self.assertEqual(rows[1].disposition, "home")


if __name__ == "__main__":
    unittest.main()
