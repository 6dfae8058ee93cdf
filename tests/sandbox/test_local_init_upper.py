"""The local init prepares a sandbox's upper layer on the host, before ``pivot_root``:
it never follows a link the agent left there (a snapshot's upper is the agent's work).

Plain files in a temporary directory: no namespaces, no Docker.
"""

from __future__ import annotations

import os
from pathlib import Path

from lhtb.sandbox.local._sandbox_init import apply_masks, scrub_passwords

SHADOW = "root:$6$host-hash$abc:19000:0:99999:7:::\nnobody:*:19000::::::\n"


def _victims(tmp_path: Path) -> tuple[Path, Path]:
    victim_file = tmp_path / "victim.txt"
    victim_file.write_text(SHADOW)
    victim_dir = tmp_path / "victim-dir"
    victim_dir.mkdir()
    return victim_file, victim_dir


def test_masks_and_scrub_never_follow_the_agents_links(tmp_path: Path) -> None:
    victim_file, victim_dir = _victims(tmp_path)
    upper = tmp_path / "upper"
    (upper / "etc").mkdir(parents=True)
    (upper / "var").mkdir()
    (upper / "var" / "lib").symlink_to(victim_dir)
    (upper / "etc" / "gshadow").symlink_to(victim_file)
    (upper / "etc" / "shadow").symlink_to(victim_file)
    config = {
        "upper": str(upper),
        "rootless": True,
        "mask_dirs": ["/var/lib/docker", "/var/lib/lhtb"],
        "hidden": ["/var/lib/lhtb/local/control.sock"],
        "scrub": ["/etc/gshadow", "/etc/shadow"],
    }
    apply_masks(config)
    assert victim_file.read_text() == SHADOW
    assert list(victim_dir.iterdir()) == []
    assert (upper / "etc" / "gshadow").is_symlink()  # the agent's state is left as it was
    assert (upper / "var" / "lib").is_symlink()


def test_scrub_leaves_odd_files_alone_and_scrubs_regular_ones(tmp_path: Path) -> None:
    upper = tmp_path / "upper"
    etc = upper / "etc"
    etc.mkdir(parents=True)
    (etc / "shadow").mkdir()
    os.mkfifo(etc / "gshadow")  # opening it for writing would block the init forever
    (etc / "shadow-").symlink_to("shadow-")
    (etc / "gshadow-").write_text(SHADOW)
    for name in ("shadow", "gshadow", "shadow-", "gshadow-"):
        scrub_passwords(str(upper), f"/etc/{name}")
    assert (etc / "shadow").is_dir()
    assert (etc / "shadow-").is_symlink()
    assert (etc / "gshadow-").read_text() == "root:*:19000:0:99999:7:::\nnobody:*:19000::::::\n"
