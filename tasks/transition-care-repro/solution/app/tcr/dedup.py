"""Removal of admissions extracted more than once."""


def unique_admissions(admissions):
    """One record per admission id, the first seen (wave 1 before wave 2)."""
    seen = {}
    for adm in admissions:
        if adm.adm_id not in seen:
            seen[adm.adm_id] = adm
    return list(seen.values())


def group_by_patient(admissions):
    groups = {}
    for adm in admissions:
        groups.setdefault(adm.patient_id, []).append(adm)
    for stays in groups.values():
        stays.sort(key=lambda a: (a.admit, a.adm_id))
    return groups
