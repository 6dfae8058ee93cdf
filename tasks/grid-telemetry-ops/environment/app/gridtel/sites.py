"""Site master data (``/app/sites.json``): names, contracted import limits, PV capacity.

Sites that report telemetry but are not in the master data are valid; they
simply have no limits to check.
"""

import json
import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "sites.json"


@dataclass(frozen=True)
class SiteInfo:
    site: str
    name: str
    import_limit_kw: float | None
    pv_capacity_kw: float | None


class SiteRegistry:
    """Read-only view of the master data, reloaded when the file changes."""

    def __init__(self, path=None):
        self.path = Path(path or os.environ.get("GRIDTEL_SITES_FILE", DEFAULT_PATH))
        self._mtime = None
        self._sites = {}

    def _load(self):
        try:
            mtime = self.path.stat().st_mtime
        except OSError:
            self._sites, self._mtime = {}, None
            return
        if mtime == self._mtime:
            return
        raw = json.loads(self.path.read_text())
        self._sites = {
            site: SiteInfo(
                site=site,
                name=str(entry.get("name", site)),
                import_limit_kw=_number(entry.get("import_limit_kw")),
                pv_capacity_kw=_number(entry.get("pv_capacity_kw")),
            )
            for site, entry in raw.items()
        }
        self._mtime = mtime

    def get(self, site):
        self._load()
        return self._sites.get(site) or SiteInfo(site, site, None, None)

    def all(self):
        self._load()
        return dict(self._sites)


def _number(value):
    if value is None or isinstance(value, bool):
        return None
    return float(value)
