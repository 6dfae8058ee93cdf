"""The primary outcome: unplanned readmission within 30 days of the index discharge."""

from . import config, dates


def readmitted(index, later_stays):
    """True if a later stay starts within 30 days of the index discharge."""
    for stay in later_stays:
        gap = dates.days_between(index.discharge, stay.admit)
        if 0 <= gap <= config.FOLLOW_UP_DAYS:
            return True
    return False


def follow_up_complete(index):
    return dates.add_days(index.admit, config.FOLLOW_UP_DAYS) <= config.DATA_END
