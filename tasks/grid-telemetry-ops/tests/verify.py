"""Hidden checks for grid-telemetry-ops. Writes /logs/verifier/scorecard.json.

Two halves (see README.md):

* a fresh instance of the submitted service (/app, run as nobody through the
  kit) against the verifier's own Redis: the seeded hidden telemetry is streamed
  into it, the process is killed without warning mid-stream and restarted, late
  data arrives, it is killed and restarted again, and its answers are compared
  with the reference model after each stage;
* the agent's live service (this sandbox shares the agent's network, so it is
  http://127.0.0.1:8080): the history it received before and during the episode
  must now be answered correctly, and a seeded probe posted to it must be.
"""

import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate as gen  # noqa: E402
import reference as ref  # noqa: E402
from lhtb_scorecard import Scorecard, popen_untrusted, readable, scratch_dir, stop_untrusted  # noqa: E402
from lhtb_scorecard import seed as kit_seed  # noqa: E402

APP = Path(os.environ.get("LHTB_APP", "/app"))
LIVE_URL = "http://127.0.0.1:8080"
REDIS_DIR = Path("/run/gtv")
REDIS_SOCK = REDIS_DIR / "redis.sock"
VISIBLE_WITHIN_S = 1.0
QUIET_S = 2.0
LIVE_HISTORY_HOURS = 30
WEIGHTS = {
    "dst_offsets": 2,
    "counter_rollover": 2,
    "duplicates_reordering": 3,
    "unit_mixups": 2,
    "clock_skew": 2,
    "gaps": 2,
    "late_data": 2,
    "restart_durability": 3,
    "live_backfill": 4,
    "live_ingest": 2,
}


# -- HTTP ---------------------------------------------------------------------------------------


def http_get(url, timeout=20):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, None
    except (urllib.error.URLError, OSError, ValueError):
        return None, None


def http_post(url, text, timeout=20):
    request = urllib.request.Request(url, data=text.encode(), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except (urllib.error.URLError, OSError):
        return None


def post_all(url, batches):
    ok = 0
    for feed, text in batches:
        status = http_post(f"{url}/ingest/{feed}", text)
        ok += status is not None and 200 <= status < 300
    return ok


def query(url, site, hour):
    stamp = urllib.parse.quote(ref.datetime.fromtimestamp(hour, ref.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    status, body = http_get(f"{url}/v1/balance?site={site}&hour={stamp}")
    return body if status == 200 else None


def healthy(url, timeout_s):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        status, body = http_get(f"{url}/health", timeout=3)
        if status == 200 and isinstance(body, dict) and body.get("status") == "ok":
            return True
        time.sleep(0.3)
    return False


# -- the verifier's Redis and the fresh service -----------------------------------------------------


def start_redis():
    REDIS_DIR.mkdir(parents=True, exist_ok=True)
    subprocess.run(["chown", "redis:redis", str(REDIS_DIR)], check=True)
    proc = subprocess.Popen(
        ["redis-server", "--port", "0", "--unixsocket", str(REDIS_SOCK), "--unixsocketperm", "777",
         "--dir", str(REDIS_DIR), "--save", "", "--appendonly", "no"],
        user="redis", group="redis", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        if REDIS_SOCK.exists():
            return proc
        time.sleep(0.1)
    raise RuntimeError("the verifier's redis-server did not start")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Fresh:
    """The submitted service, started from /app as nobody; killed with SIGKILL."""

    def __init__(self, **extra_env):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            "GRIDTEL_HOST": "127.0.0.1",
            "GRIDTEL_PORT": str(self.port),
            "GRIDTEL_REDIS_URL": f"unix://{REDIS_SOCK}",
            "GRIDTEL_LOG_LEVEL": "WARNING",
            **extra_env,
        }
        self.proc = None

    def start(self, timeout_s=30):
        log = open(Path(scratch_dir()) / "service.log", "wb")  # noqa: SIM115 - lives as long as the process
        self.proc = popen_untrusted([sys.executable, "-m", "gridtel.server"], cwd=str(APP), env=self.env,
                                    stdout=log, stderr=subprocess.STDOUT)
        return healthy(self.url, timeout_s)

    def kill(self):
        if self.proc is not None:
            stop_untrusted(self.proc)
            self.proc = None


# -- scoring ------------------------------------------------------------------------------------------


def answers(url, cases):
    return [query(url, site, hour) for _cat, site, hour in cases]


def fraction(flags):
    flags = list(flags)
    return sum(flags) / len(flags) if flags else 0.0


def public_checks(card, url, sample_batches, sample_model, sample_hours):
    status, body = http_get(f"{url}/health")
    ok = status == 200 and isinstance(body, dict) and body.get("status") == "ok"
    status, body = http_get(f"{url}/v1/balance?site=NOSUCHSITE&hour=2026-01-01T00:00:00Z")
    keys = {"site", "hour", "import_kwh", "pv_kwh", "load_kwh", "temp_c"}
    ok = ok and status == 200 and isinstance(body, dict) and not keys - set(body)
    ok = ok and body.get("import_kwh") == 0 and body.get("pv_kwh") == 0 and body.get("temp_c") is None
    ok = ok and http_get(f"{url}/v1/balance?site=DEMO&hour=not-a-time")[0] == 400
    ok = ok and http_post(f"{url}/ingest/nosuchfeed", "x") == 400
    card.check("service_contract", bool(ok), weight=1, visibility="public",
               message="health, balance shape, 400 on a bad hour and an unknown feed")
    posted = post_all(url, sample_batches) + post_all(url, sample_batches)
    time.sleep(3.0)
    right = sum(ref.matches(query(url, s, h), sample_model.balance(s, h)) for s, h in sample_hours)
    card.check("sample_balances", posted == 2 * len(sample_batches) and right == len(sample_hours),
               weight=1, visibility="public", message=f"{right}/{len(sample_hours)} sample hours")


def hidden_fresh(card, seed):
    """Computation under messy traffic and a restart; then durability on its own."""
    scenario = gen.scenario(seed)
    rng = random.Random(f"late:{seed}")
    second = list(scenario["second"])
    late_idx = set(rng.sample(range(len(second)), max(4, len(second) // 8)))
    on_time = [b for i, b in enumerate(second) if i not in late_idx]
    late = [b for i, b in enumerate(second) if i in late_idx]
    cases = scenario["cases"]
    model_b = ref.Model(scenario["first"] + on_time)
    model_c = ref.Model(scenario["first"] + second)
    want_b = [model_b.balance(s, h) for _c, s, h in cases]
    want_c = [model_c.balance(s, h) for _c, s, h in cases]

    # 1. messy traffic, a restart after a quiet moment, late data (prefix "a")
    service = Fresh(GRIDTEL_KEY_PREFIX="a", GRIDTEL_FLUSH_INTERVAL_S="0.1")
    up = service.start()
    post_all(service.url, scenario["first"])
    time.sleep(QUIET_S)
    service.kill()
    up = service.start() and up
    post_all(service.url, on_time)
    time.sleep(VISIBLE_WITHIN_S)
    got_b = answers(service.url, cases)
    post_all(service.url, late)
    time.sleep(VISIBLE_WITHIN_S)
    got_c = answers(service.url, cases)
    service.kill()
    ok_c = [ref.matches(g, w) for g, w in zip(got_c, want_c)]
    for category in gen.CATEGORIES:
        flags = [ok for ok, case in zip(ok_c, cases) if case[0] == category]
        card.add(category, fraction(flags), weight=WEIGHTS[category],
                 message=f"{sum(flags)}/{len(flags)} site-hours" + ("" if up else "; a start failed"))
    changed = [i for i, (b, c) in enumerate(zip(want_b, want_c)) if b != c] or list(range(len(cases)))
    flags = [ref.matches(got_b[i], want_b[i]) and ok_c[i] for i in changed]
    card.add("late_data", fraction(flags), weight=WEIGHTS["late_data"],
             message=f"{sum(flags)}/{len(flags)} site-hours before and after late data")

    # 2. durability: killed right after the last acknowledgement, whatever the
    #    write-back settings (prefix "d"); one site per category
    sites = {}
    for category, site, _h in cases:
        sites.setdefault(category, site)
    chosen = set(sites.values())
    batches = [b for b in scenario["first"] + second if site_of_batch(b) in chosen]
    model_d = ref.Model(batches)
    d_cases = [(c, s, h) for c, s, h in cases if s in chosen]
    want_d = [model_d.balance(s, h) for _c, s, h in d_cases]
    service = Fresh(GRIDTEL_KEY_PREFIX="d", GRIDTEL_FLUSH_INTERVAL_S="600", GRIDTEL_FLUSH_MAX_ITEMS="100000000")
    up = service.start()
    post_all(service.url, batches)
    service.kill()
    up = service.start() and up
    got_1 = answers(service.url, d_cases)
    service.kill()
    up = service.start() and up
    got_2 = answers(service.url, d_cases)
    service.kill()
    flags = [ref.matches(a, w) and ref.matches(b, w) for a, b, w in zip(got_1, got_2, want_d)]
    card.add("restart_durability", fraction(flags), weight=WEIGHTS["restart_durability"],
             message=f"{sum(flags)}/{len(flags)} site-hours after kills right after the last upload"
             + ("" if up else "; a restart failed"))
    return len(cases) + len(d_cases)


def site_of_batch(batch):
    feed, text = batch
    lines = [line for line in text.splitlines() if line.strip()]
    if feed == "meter":
        return lines[1].split(",")[0].split(".")[0]
    if feed == "inverter":
        return json.loads(lines[1])["inv"].split(".")[0]
    return lines[0].split()[0].split("=", 1)[1]


def hidden_live(card, seed):
    rng = random.Random(f"live:{seed}")
    history = gen.history()
    model = ref.Model(history)
    hours = rng.sample(gen.history_hours(), LIVE_HISTORY_HOURS)
    up = healthy(LIVE_URL, 3)
    flags = [up and ref.matches(query(LIVE_URL, s, h), model.balance(s, h)) for s, h in hours]
    # mostly right or nothing: an unrepaired history is right by chance in quiet hours
    card.add("live_backfill", max(0.0, 2.0 * fraction(flags) - 1.0), weight=WEIGHTS["live_backfill"],
             message=f"{sum(flags)}/{len(flags)} history site-hours on the running service"
             + ("" if up else "; the running service does not answer"))
    batches, probe_hours = gen.live_probe(seed)
    probe = ref.Model(batches)
    if up:
        post_all(LIVE_URL, batches)
        time.sleep(VISIBLE_WITHIN_S)
    flags = [up and ref.matches(query(LIVE_URL, s, h), probe.balance(s, h)) for s, h in probe_hours]
    card.add("live_ingest", fraction(flags), weight=WEIGHTS["live_ingest"],
             message=f"{sum(flags)}/{len(flags)} probe site-hours on the running service")
    return len(hours) + len(probe_hours)


def main():
    seed = kit_seed()
    readable(str(APP))
    card = Scorecard()
    redis_proc = start_redis()
    try:
        sample_batches, sample_hours = gen.sample()
        service = Fresh()
        if service.start():
            public_checks(card, service.url, sample_batches, ref.Model(sample_batches), sample_hours)
        else:
            card.check("service_contract", False, weight=1, visibility="public", message="did not start")
            card.check("sample_balances", False, weight=1, visibility="public", message="did not start")
        service.kill()
        n = hidden_fresh(card, seed)
        n += hidden_live(card, seed)
    finally:
        redis_proc.kill()
    print(f"seed {seed}: {n} hidden site-hour cases")
    card.write()


if __name__ == "__main__":
    main()
