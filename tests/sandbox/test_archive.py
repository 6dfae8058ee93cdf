"""Safe-extraction rules of lhtb.sandbox.archive (no Docker needed)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from lhtb.errors import ArchiveError
from lhtb.sandbox.archive import (
    ArchiveLimits,
    is_excluded,
    pack_directory,
    relocate,
    repack,
    validate_archive,
)
from lhtb.sandbox.host import extract_to_host, write_host_file


def make_tar(*members: tuple[str, str, bytes | str]) -> bytes:
    """Members as (kind, name, data-or-link-target); kind in file/dir/sym/hard/fifo/chr."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for kind, name, payload in members:
            info = tarfile.TarInfo(name)
            data = payload if isinstance(payload, bytes) else payload.encode()
            if kind == "file":
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
                continue
            info.type = {
                "dir": tarfile.DIRTYPE,
                "sym": tarfile.SYMTYPE,
                "hard": tarfile.LNKTYPE,
                "fifo": tarfile.FIFOTYPE,
                "chr": tarfile.CHRTYPE,
                "blk": tarfile.BLKTYPE,
            }[kind]
            if kind in {"sym", "hard"}:
                info.linkname = data.decode()
            tar.addfile(info)
    return buffer.getvalue()


def names(archive: bytes) -> list[str]:
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        return tar.getnames()


def test_valid_archive_passes() -> None:
    archive = make_tar(
        ("dir", "app", b""),
        ("file", "app/a.txt", b"a"),
        ("file", "./app/b.txt", b"b"),
        ("sym", "app/link", "a.txt"),
        ("sym", "app/abs", "/app/a.txt"),
        ("hard", "app/hard", "app/a.txt"),
    )
    members = validate_archive(archive, dest="/")
    assert len(members) == 6


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ((("file", "/etc/passwd", b"x"),), "absolute member name"),
        ((("file", "../escape", b"x"),), "'..'"),
        ((("file", "app/../../escape", b"x"),), "'..'"),
        ((("sym", "app/link", "../../etc"),), "points outside"),
        ((("sym", "link", "/etc/passwd"),), "points outside /srv/data"),
        ((("hard", "app/hard", "/etc/passwd"),), "outside the archive"),
        ((("hard", "app/hard", "../etc/passwd"),), "outside the archive"),
        ((("hard", "app/hard", "app/missing"),), "not a regular file stored earlier"),
        ((("fifo", "app/pipe", b""),), "FIFO"),
        ((("chr", "dev/null", b""),), "character device"),
        ((("blk", "dev/sda", b""),), "block device"),
        (
            (("sym", "out", "sub"), ("dir", "sub", b""), ("file", "out/x", b"x")),
            "through a link",
        ),
    ],
)
def test_unsafe_members_are_refused(
    members: tuple[tuple[str, str, bytes | str], ...], message: str
) -> None:
    with pytest.raises(ArchiveError, match=message) as caught:
        validate_archive(make_tar(*members), dest="/srv/data")
    assert caught.value.where is not None
    assert "archive member" in caught.value.where
    assert caught.value.fix


def test_absolute_symlink_inside_root_dest_is_allowed() -> None:
    validate_archive(make_tar(("sym", "app/link", "/etc/passwd")), dest="/")


def test_size_cap() -> None:
    archive = make_tar(("file", "a", b"x" * 600), ("file", "b", b"y" * 600))
    with pytest.raises(ArchiveError, match="exceeds 1000 bytes") as caught:
        validate_archive(archive, limits=ArchiveLimits(max_total_bytes=1000))
    assert "max_total_bytes" in str(caught.value)


def test_member_count_cap() -> None:
    archive = make_tar(*(("file", f"f{i}", b"") for i in range(5)))
    with pytest.raises(ArchiveError, match="more than 3 members"):
        validate_archive(archive, limits=ArchiveLimits(max_members=3))


def test_garbage_is_refused() -> None:
    with pytest.raises(ArchiveError, match="not a readable tar"):
        validate_archive(b"this is not a tar archive" * 40)


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_members"):
        ArchiveLimits(max_members=0)


def test_extract_to_host_writes_nothing_when_a_later_member_is_bad(tmp_path: Path) -> None:
    archive = make_tar(("file", "good.txt", b"ok"), ("file", "../evil.txt", b"bad"))
    with pytest.raises(ArchiveError):
        extract_to_host(archive, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "evil.txt").exists()


def test_extract_to_host_strips_prefix(tmp_path: Path) -> None:
    archive = make_tar(
        ("dir", "logs/verifier", b""),
        ("file", "logs/verifier/reward.txt", b"1.0"),
        ("file", "logs/verifier/sub/out.log", b"log"),
        ("file", "elsewhere/x", b"dropped"),
    )
    extract_to_host(archive, tmp_path, strip="/logs/verifier")
    assert (tmp_path / "reward.txt").read_bytes() == b"1.0"
    assert (tmp_path / "sub" / "out.log").read_bytes() == b"log"
    assert not (tmp_path / "elsewhere").exists()


def test_extract_to_host_keeps_no_link_and_writes_through_none(tmp_path: Path) -> None:
    """A link chain the kernel would follow out of the directory (``a -> .``,
    ``refused.txt -> a/../../victim``) is dropped with a record, and the harness's
    own write to that name lands in a fresh regular file."""
    victim = tmp_path / "victim"
    victim.write_text("host data")
    dest = tmp_path / "pass-001"
    dest.mkdir()
    archive = make_tar(
        ("sym", "logs/verifier/a", "."),
        ("sym", "logs/verifier/refused.txt", "a/../../victim"),
        ("sym", "logs/verifier/steal", "/etc/shadow"),
        ("file", "logs/verifier/secret.txt", b"kept"),
        ("hard", "logs/verifier/hard", "logs/verifier/secret.txt"),
        ("hard", "logs/verifier/hard-out", "etc/passwd"),
        ("fifo", "logs/verifier/pipe", b""),
        ("dir", "logs/verifier/test-stdout.txt", b""),
    )
    dropped = extract_to_host(archive, dest, strip="/logs/verifier", reserved={"test-stdout.txt"})
    assert len(dropped) == 6, dropped
    assert sorted(p.name for p in dest.iterdir()) == ["hard", "secret.txt"]
    assert (dest / "hard").read_bytes() == b"kept"
    write_host_file(dest, "refused.txt", b"reason\n")
    assert victim.read_text() == "host data"
    assert (dest / "refused.txt").read_bytes() == b"reason\n"


def test_write_host_file_never_follows_a_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("host data")
    (tmp_path / "out").symlink_to(victim)
    with pytest.raises(OSError, match=r"symbolic links|Too many levels"):
        write_host_file(tmp_path, "out", b"x")
    assert victim.read_text() == "host data"


def test_validate_resolves_link_chains_like_the_kernel() -> None:
    """``a -> .`` makes ``a/../tests`` climb out, although normpath reads it as inside."""
    chained = make_tar(("sym", "a", "."), ("sym", "answer.txt", "a/../tests/expected.txt"))
    with pytest.raises(ArchiveError, match="points outside"):
        validate_archive(chained, dest="/app")
    deep = make_tar(("dir", "d", b""), ("sym", "d/up", ".."), ("sym", "x", "d/up/../etc"))
    with pytest.raises(ArchiveError, match="points outside"):
        validate_archive(deep, dest="/app")
    loop = make_tar(("sym", "l1", "l2"), ("sym", "l2", "l1"))
    with pytest.raises(ArchiveError, match="links in a row"):
        validate_archive(loop, dest="/app")
    fine = make_tar(("sym", "a", "."), ("dir", "sub", b""), ("sym", "b", "a/sub/../a/file"))
    validate_archive(fine, dest="/app")


def test_relocate_moves_members_and_hard_links() -> None:
    archive = make_tar(
        ("dir", "app/out", b""),
        ("file", "app/out/a", b"a"),
        ("hard", "app/out/b", "app/out/a"),
    )
    moved = relocate(archive, "/app/out", "/results")
    assert names(moved) == ["results", "results/a", "results/b"]
    with tarfile.open(fileobj=io.BytesIO(moved)) as tar:
        assert tar.getmember("results/b").linkname == "results/a"
    validate_archive(moved)


def test_pack_directory_keeps_modes_and_adds_extras(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    (tests / "sub").mkdir(parents=True)
    (tests / "test.sh").write_text("#!/bin/sh\n")
    (tests / "test.sh").chmod(0o755)
    (tests / "sub" / "data.txt").write_text("d")
    kit = tmp_path / "kit.py"
    kit.write_text("kit")
    archive = pack_directory(tests, "/tests", extra={"kit.py": kit})
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        assert sorted(tar.getnames()) == [
            "tests",
            "tests/kit.py",
            "tests/sub",
            "tests/sub/data.txt",
            "tests/test.sh",
        ]
        script = tar.getmember("tests/test.sh")
        assert script.mode & 0o111
        assert script.uid == 0
    validate_archive(archive)


def test_repack_prefixes_names_and_excludes() -> None:
    part = make_tar(
        ("dir", "out", b""),
        ("file", "out/keep.txt", b"k"),
        ("file", "out/drop.pyc", b"d"),
        ("dir", "out/node_modules", b""),
        ("file", "out/node_modules/x.js", b"x"),
    )
    merged = repack([("/app", io.BytesIO(part))], exclude=["*.pyc", "node_modules"])
    assert names(merged) == ["app/out", "app/out/keep.txt"]


def test_repack_enforces_caps() -> None:
    part = make_tar(("file", "a", b"x" * 100))
    with pytest.raises(ArchiveError, match="exceeds 10 bytes"):
        repack([("/", io.BytesIO(part))], limits=ArchiveLimits(max_total_bytes=10))


@pytest.mark.parametrize(
    ("path", "patterns", "expected"),
    [
        ("app/x.pyc", ["*.pyc"], True),
        ("/app/cache/deep/file", ["app/cache"], True),
        ("app/cache/deep/file", ["/app/cache"], True),
        ("app/cached", ["app/cache"], False),
        ("app/src/main.py", ["*.pyc", "node_modules"], False),
    ],
)
def test_is_excluded(path: str, patterns: list[str], expected: bool) -> None:
    assert is_excluded(path, patterns) is expected
