"""Date parsing and age arithmetic for the two registry waves."""

import datetime as dt


def parse_iso(text):
    """A wave 1 date (YYYY-MM-DD)."""
    return dt.date.fromisoformat(text.strip())


def parse_wave2(text):
    """A wave 2 date (the new registry system exports DD/MM/YYYY)."""
    return dt.datetime.strptime(text.strip(), "%d/%m/%Y").date()


def completed_years(birth, on):
    """Age in completed years on ``on``."""
    years = on.year - birth.year
    if (on.month, on.day) < (birth.month, birth.day):
        years -= 1
    return years


def days_between(earlier, later):
    """Whole days from ``earlier`` to ``later`` (negative if later is before)."""
    return (later - earlier).days


def add_days(day, n):
    return day + dt.timedelta(days=n)
