import datetime as dt
import unittest

from tcr import cohort, outcome
from tcr.records import Admission, Patient


def adm(aid, admit, los, disposition="home", program=False, charlson=1.0, weight=70.0, creat=1.0, wave=1):
    admit = dt.date.fromisoformat(admit)
    return Admission(aid, "P1", admit, admit + dt.timedelta(days=los), disposition, program, charlson, weight,
                     creat, wave)


PATIENTS = {"P1": Patient("P1", dt.date(1950, 5, 5), "male", "north")}


class OutcomeTest(unittest.TestCase):
    def test_readmission_inside_window(self):
        index = adm("A1", "2020-01-01", 5)
        self.assertTrue(outcome.readmitted(index, [adm("A2", "2020-01-20", 2)]))

    def test_readmission_after_window(self):
        index = adm("A1", "2020-01-01", 5)
        self.assertFalse(outcome.readmitted(index, [adm("A2", "2020-03-20", 2)]))

    def test_follow_up_complete(self):
        self.assertTrue(outcome.follow_up_complete(adm("A1", "2022-06-01", 5)))
        self.assertFalse(outcome.follow_up_complete(adm("A1", "2022-12-20", 5)))


class CohortTest(unittest.TestCase):
    def test_flow_counts_one_patient(self):
        members, flow = cohort.build(PATIENTS, [adm("A1", "2020-01-01", 5), adm("A2", "2020-01-10", 3)])
        self.assertEqual(flow["admissions_raw"], 2)
        self.assertEqual(flow["patients"], 1)
        self.assertEqual(flow["analytic_cohort"], 1)
        self.assertEqual(flow["readmitted_30d"], 1)
        self.assertEqual(members[0].age, 69)

    def test_duplicate_extract(self):
        rows = [adm("A1", "2020-01-01", 5), adm("A1", "2020-01-01", 5)]
        _, flow = cohort.build(PATIENTS, rows)
        self.assertEqual(flow["admissions_unique"], 1)

    def test_missing_charlson_excluded(self):
        _, flow = cohort.build(PATIENTS, [adm("A1", "2020-01-01", 5, charlson=None)])
        self.assertEqual(flow["excluded_missing_covariates"], 1)
        self.assertEqual(flow["analytic_cohort"], 0)


if __name__ == "__main__":
    unittest.main()
