"""The primary outcome: unplanned readmission within 30 days of the index discharge."""

from . import config, dates


def readmitted(index, later_stays):
    """True if a later stay starts 1..30 days after the index discharge.

    A stay starting on the discharge day is an in-hospital transfer (supplement S2)."""
    for stay in later_stays:
        gap = dates.days_between(index.discharge, stay.admit)
        if 1 <= gap <= config.FOLLOW_UP_DAYS:
            return True
    return False


def follow_up_complete(index):
    return dates.add_days(index.discharge, config.FOLLOW_UP_DAYS) <= config.DATA_END
