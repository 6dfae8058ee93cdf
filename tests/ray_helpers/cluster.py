"""A real Ray cluster on this machine: a head and worker nodes as separate processes."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import attrs

HERE = Path(__file__).resolve().parent
EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
# Node death is noticed within ~3 s instead of the default ~30 s.
FAST_HEALTH_CHECKS = {
    "RAY_health_check_initial_delay_ms": "1000",
    "RAY_health_check_period_ms": "1000",
    "RAY_health_check_timeout_ms": "1000",
    "RAY_health_check_failure_threshold": "3",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ray() -> str:
    found = shutil.which("ray")
    if found is None:
        raise RuntimeError("the `ray` command is not on PATH")
    return found


@attrs.define
class RayCluster:
    """``ray start`` processes with their own temp dirs and ports; stop() tears all down."""

    root: Path
    marks: Path
    port: int = attrs.field(factory=free_port)
    nodes: dict[str, Path] = attrs.field(factory=dict)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _env(self, node: str) -> dict[str, str]:
        path = [str(HERE), os.environ.get("PYTHONPATH", "")]
        return {
            **os.environ,
            **FAST_HEALTH_CHECKS,
            "PYTHONPATH": os.pathsep.join(p for p in path if p),
            "LHTB_TEST_NODE": node,
            "LHTB_TEST_MARKS": str(self.marks),
            "RAY_USAGE_STATS_ENABLED": "0",
            "LHTB_RAY_SCRATCH": str(self.root / f"scratch-{node}"),
        }

    def _start(self, node: str, *args: str) -> None:
        temp = self.root / node
        temp.mkdir(parents=True)
        self.nodes[node] = temp
        command = [
            _ray(),
            "start",
            f"--temp-dir={temp}",
            "--num-cpus=1",
            "--disable-usage-stats",
            f"--node-manager-port={free_port()}",
            f"--object-manager-port={free_port()}",
            f"--min-worker-port={self._worker_ports[0]}",
            f"--max-worker-port={self._worker_ports[1]}",
            *args,
        ]
        done = subprocess.run(
            command, check=False, env=self._env(node), capture_output=True, text=True, timeout=120
        )
        if done.returncode != 0:
            raise RuntimeError(f"ray start {node} failed:\n{done.stdout}\n{done.stderr}")

    @property
    def _worker_ports(self) -> tuple[int, int]:
        # Below the kernel's ephemeral range, where free_port() draws the other ports:
        # Ray refuses a node whose fixed ports fall inside its worker range.
        ephemeral_low = int(EPHEMERAL_RANGE.read_text().split()[0])
        base = ephemeral_low - 200 * (1 + self.port % 50)
        return base, base + 199

    def start(self, workers: int = 2, slots: int = 2) -> None:
        self.marks.mkdir(parents=True, exist_ok=True)
        self._start(
            "head",
            "--head",
            "--include-dashboard=false",
            f"--port={self.port}",
            "--resources=" + json.dumps({"lhtb_sandbox": 0}),
        )
        for index in range(1, workers + 1):
            self._start(
                f"w{index}",
                f"--address={self.address}",
                "--resources=" + json.dumps({"lhtb_sandbox": slots}),
            )

    def node_pids(self, node: str) -> list[int]:
        """Every process of one node: those naming its temp dir, and their descendants."""
        marker = str(self.nodes[node]).encode()
        parents: dict[int, int] = {}
        own: set[int] = set()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                cmdline = (entry / "cmdline").read_bytes()
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
            if marker in cmdline:
                own.add(int(entry.name))
        changed = True
        while changed:
            changed = False
            for pid, parent in parents.items():
                if parent in own and pid not in own:
                    own.add(pid)
                    changed = True
        return sorted(own)

    def kill_node(self, node: str) -> list[int]:
        """SIGKILL every process of ``node`` (a machine that lost power, as Ray sees it)."""
        pids = self.node_pids(node)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return pids

    def stop(self) -> None:
        for node in reversed(list(self.nodes)):
            for pid in self.node_pids(node):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        # `ray stop --force` kills every Ray process on the machine, including other
        # engineers' clusters; the per-node kill above is the targeted equivalent.
        time.sleep(0.5)
        shutil.rmtree(self.root, ignore_errors=True)


def new_cluster() -> RayCluster:
    root = Path(tempfile.mkdtemp(prefix="lhtbray-", dir="/tmp"))
    return RayCluster(root=root, marks=root / "marks")
