"""Study constants shared by the pipeline modules."""

import datetime as dt

STUDY_START = dt.date(2019, 1, 1)
WAVE2_START = dt.date(2021, 1, 1)
DATA_END = dt.date(2022, 12, 31)
FOLLOW_UP_DAYS = 30
MIN_AGE = 18
LB_TO_KG = 0.45359237
CREATININE_UMOL_PER_MGDL = 88.4
CKD_CREATININE_MGDL = 1.5
WEIGHT_RANGE_KG = (30.0, 250.0)
Z95 = 1.959963984540054

MODEL_TERMS = ["program", "age10", "male", "charlson_2_3", "charlson_4plus", "ckd", "weight10", "wave2"]

AGE_GROUPS = [("18-49", 18, 49), ("50-64", 50, 64), ("65-79", 65, 79), ("80+", 80, None)]

FLOW_STEPS = [
    "admissions_raw",
    "admissions_unique",
    "patients",
    "excluded_under18",
    "excluded_not_discharged_home",
    "excluded_incomplete_followup",
    "excluded_missing_covariates",
    "analytic_cohort",
    "readmitted_30d",
]
