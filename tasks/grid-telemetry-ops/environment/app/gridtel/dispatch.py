"""Dispatch desk checks on top of the hourly balances.

* import limit: the mean import power of an hour (kWh in one hour = mean kW)
  must stay within the site's contracted limit;
* PV plausibility: an hour's PV energy cannot exceed the installed capacity
  (a tell-tale of unit mix-ups or double counting upstream);
* reverse flow: PV above load means the site exported during the hour, which
  the import meters cannot see (they only count import).
"""

from dataclasses import asdict, dataclass

PLAUSIBILITY_MARGIN = 1.05


@dataclass(frozen=True)
class Finding:
    check: str
    severity: str  # "info" | "warning" | "violation"
    message: str


def check_hour(balance, info):
    """Findings for one hourly balance of a site with master data ``info``."""
    findings = []
    imported = balance["import_kwh"]
    produced = balance["pv_kwh"]
    if info.import_limit_kw is not None and imported > info.import_limit_kw:
        findings.append(
            Finding("import_limit", "violation",
                    f"mean import {imported:.1f} kW above the contracted {info.import_limit_kw:.0f} kW")
        )
    if info.pv_capacity_kw is not None and produced > info.pv_capacity_kw * PLAUSIBILITY_MARGIN:
        findings.append(
            Finding("pv_plausibility", "warning",
                    f"PV {produced:.1f} kWh in one hour exceeds the installed {info.pv_capacity_kw:.0f} kW")
        )
    if imported < 0 or produced < 0:
        findings.append(Finding("negative_energy", "warning", "negative energy in the balance"))
    return findings


def report(balance, info):
    """The JSON document of GET /v1/dispatch-check."""
    findings = check_hour(balance, info)
    worst = "ok"
    for finding in findings:
        if finding.severity == "violation":
            worst = "violation"
        elif finding.severity == "warning" and worst == "ok":
            worst = "warning"
    return {
        "site": balance["site"],
        "site_name": info.name,
        "hour": balance["hour"],
        "status": worst,
        "findings": [asdict(f) for f in findings],
        "balance": balance,
    }
