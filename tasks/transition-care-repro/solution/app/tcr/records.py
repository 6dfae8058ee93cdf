"""Harmonised record types: one shape for both waves."""

from dataclasses import dataclass
import datetime as dt


@dataclass(frozen=True)
class Patient:
    patient_id: str
    birth_date: dt.date
    sex: str
    region: str


@dataclass(frozen=True)
class Admission:
    adm_id: str
    patient_id: str
    admit: dt.date
    discharge: dt.date
    disposition: str
    program: bool
    charlson: float | None
    weight_kg: float | None
    creatinine_mgdl: float | None
    wave: int

    @property
    def length_of_stay(self):
        return (self.discharge - self.admit).days
