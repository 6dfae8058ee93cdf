"""Removal of admissions extracted more than once."""


def unique_admissions(admissions):
    """One record per admission, the first seen."""
    seen = {}
    for adm in admissions:
        key = (adm.adm_id, adm.wave)
        if key not in seen:
            seen[key] = adm
    return list(seen.values())


def group_by_patient(admissions):
    groups = {}
    for adm in admissions:
        groups.setdefault(adm.patient_id, []).append(adm)
    for stays in groups.values():
        stays.sort(key=lambda a: (a.admit, a.adm_id))
    return groups
