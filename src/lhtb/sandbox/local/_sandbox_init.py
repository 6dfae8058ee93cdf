"""The init process of one local sandbox. Standard library only; run as a script.

Started by :mod:`lhtb.sandbox.local` as ``python -I -S -`` with this file on
stdin and ``LHTB_INIT_CONFIG`` naming its JSON config:

1. (rootless only) enter a new user namespace mapping sandbox root to the caller;
2. unshare mount, PID, IPC, UTS and network (the host attaches slirp4netns to the
   network namespace when the sandbox has internet);
3. fork: the child is PID 1 of the new PID namespace. The parent prints the
   child's host PID, then waits for it and exits with its status;
4. the child marks the masked host paths in the writable upper layer (opaque
   directories, whiteouts), mounts the overlay (lower: the host's ``/``),
   fresh ``/proc`` (sensitive parts read-only or hidden), read-only ``/sys``,
   a minimal ``/dev``, binds the control socket, ``pivot_root``\\ s into the
   overlay, prints ``READY`` and serves requests until killed.

Requests arrive on a Unix socket as length-prefixed JSON, the exec's stdio as
file descriptors (``SCM_RIGHTS``). Each exec is forked from this process (so
it inherits every namespace), joins the sandbox's freezer cgroup, starts a
new session, drops capabilities, switches user and ``exec``\\ s. The reply is
``{"pid": n}`` then ``{"exit": code, "timed_out": bool}``; closing the
connection early kills the command's process group.
"""

# ruff: noqa: PTH101, PTH102, PTH103, PTH108, PTH115, PTH110, PTH112, PTH114, PTH116, PTH123, PTH208, PTH211
# Raw os calls on purpose: this runs across pivot_root, before/after
# which paths mean different trees, and must import nothing it may not find later.
from __future__ import annotations

import contextlib
import ctypes
import fcntl
import grp
import json
import os
import pwd
import selectors
import signal
import socket
import stat
import struct
import sys
import termios
import time
from collections.abc import Iterator
from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2
PR_CAPBSET_DROP = 24
PR_SET_PDEATHSIG = 1
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(os.uname().machine, 155)
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
HEADER = struct.Struct(">I")
MAX_MESSAGE = 16 * 1024 * 1024
# Docker's default capability set, without CAP_MKNOD (no devices cgroup here) and
# CAP_NET_RAW (no packet sockets, no spoofed packets).
KEEP_CAPS = frozenset({0, 1, 3, 4, 5, 6, 7, 8, 10, 18, 29, 31})
SLIRP_DNS = "10.0.2.3"
DEV_NODES = ("null", "zero", "full", "random", "urandom", "tty")
PROC_READONLY = ("sys", "sysrq-trigger", "irq", "bus", "fs")
PROC_HIDDEN = ("kcore", "keys", "timer_list", "sched_debug", "kallsyms", "kmsg")

libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def mount(source: str, target: str, fstype: str | None, flags: int, data: str | None) -> None:
    _check(
        libc.mount(
            source.encode(),
            target.encode(),
            fstype.encode() if fstype else None,
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        ),
        f"mount {fstype or 'bind'} {source} on {target}",
    )


def write_file(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


# -- setup ------------------------------------------------------------------------------------


O_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def apply_masks(config: dict[str, Any]) -> None:
    """Hide host paths: ``mask_dirs`` become empty (opaque) directories, ``hidden`` paths
    disappear (whiteouts) in the upper layer, before it is mounted.

    The upper layer of a snapshot is the agent's work: every step in it goes through
    directory descriptors with ``O_NOFOLLOW``, so a link the agent left
    (``/var/lib -> <host dir>``) is never followed on the host. A host path whose
    parent the agent replaced by a link or a file is not reachable under its name
    in the sandbox, so it needs no mask there.
    """
    xattr = "user.overlay.opaque" if config["rootless"] else "trusted.overlay.opaque"
    for host_path in config["mask_dirs"]:
        with parent_in_upper(config["upper"], host_path) as (fd, name):
            if fd < 0:
                continue
            kind = kind_at(fd, name)
            if kind not in {None, stat.S_IFDIR}:
                os.unlink(name, dir_fd=fd)
            if kind != stat.S_IFDIR:
                os.mkdir(name, 0o755, dir_fd=fd)
                if os.path.isdir(host_path):
                    copy_mode(fd, name, os.stat(host_path))
            mark_opaque(fd, name, xattr)
    for host_path in config["hidden"]:
        with parent_in_upper(config["upper"], host_path) as (fd, name):
            if fd < 0:
                continue
            kind = kind_at(fd, name)
            if kind == stat.S_IFDIR:
                mark_opaque(fd, name, xattr)  # the image put content here: hide the host's
                continue
            if kind is not None:
                os.unlink(name, dir_fd=fd)
            os.mknod(name, 0o600 | stat.S_IFCHR, os.makedev(0, 0), dir_fd=fd)
    for host_path in config.get("scrub", ()):
        scrub_passwords(config["upper"], host_path)


def kind_at(dir_fd: int, name: str) -> int | None:
    """The file type of ``name`` in ``dir_fd`` (links not followed); ``None`` if absent."""
    try:
        return stat.S_IFMT(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        return None


def mark_opaque(dir_fd: int, name: str, xattr: str) -> None:
    fd = os.open(name, O_DIR, dir_fd=dir_fd)
    try:
        os.setxattr(fd, xattr, b"y")
    finally:
        os.close(fd)


def copy_mode(dir_fd: int, name: str, info: os.stat_result) -> None:
    """Give ``name`` the host's mode and owner (owners may be unmapped in a user namespace)."""
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        os.fchmod(fd, info.st_mode & 0o7777)
        with contextlib.suppress(OSError):
            os.fchown(fd, info.st_uid, info.st_gid)
    finally:
        os.close(fd)


@contextlib.contextmanager
def parent_in_upper(upper: str, host_path: str) -> Iterator[tuple[int, str]]:
    """``(descriptor of host_path's parent in upper, last component)``, the parents made
    with the host's modes and owners; ``(-1, name)`` when a parent in ``upper`` is a
    link, a file or a whiteout (the agent's: never followed)."""
    parts = [p for p in host_path.split("/") if p]
    fd = os.open(upper, O_DIR)
    host = ""
    try:
        for part in parts[:-1]:
            host = f"{host}/{part}"
            kind = kind_at(fd, part)
            if kind is None:
                os.mkdir(part, 0o755, dir_fd=fd)
                copy_mode(fd, part, os.stat(host))
            elif kind != stat.S_IFDIR:
                yield -1, parts[-1]
                return
            child = os.open(part, O_DIR, dir_fd=fd)
            os.close(fd)
            fd = child
        yield fd, parts[-1]
    finally:
        os.close(fd)


def scrub_passwords(upper: str, host_path: str) -> None:
    """Put a copy of a shadow file without password hashes in the upper layer.

    Accounts keep working for ``su``/``useradd``; the host's hashes stay on the host.
    A copy the image already has (``RUN useradd`` wrote it) is scrubbed the same way;
    a link or directory the agent left there is left alone (the host's file is not
    reachable under that name) and never followed.
    """
    with parent_in_upper(upper, host_path) as (fd, name):
        kind = kind_at(fd, name) if fd >= 0 else stat.S_IFLNK
        if kind not in {None, stat.S_IFREG}:
            return
        try:
            if kind is None:
                source = os.open(host_path, os.O_RDONLY | os.O_CLOEXEC)
            else:
                source = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            with open(source) as handle:
                info = os.fstat(handle.fileno())
                lines = handle.read().splitlines()
        except OSError:
            return
        scrubbed = []
        for line in lines:
            fields = line.split(":")
            if len(fields) > 1 and fields[1] not in {"", "*", "!", "!!", "!*"}:
                fields[1] = "!" if fields[1].startswith("!") else "*"
            scrubbed.append(":".join(fields))
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
        with open(os.open(name, flags, 0o600, dir_fd=fd), "w") as out:
            out.write("\n".join(scrubbed) + "\n")
        copy_mode(fd, name, info)


def setup_root(config: dict[str, Any]) -> None:
    root = config["merged"]
    mount("none", "/", None, MS_REC | MS_PRIVATE, None)
    if config["rootless"]:
        rootless_root(config)
    else:
        apply_masks(config)
        options = f"lowerdir=/,upperdir={config['upper']},workdir={config['work']}"
        mount("overlay", root, "overlay", 0, options)
    for name in ("proc", "sys", "dev"):
        fresh_mount_point(root, name)
    proc = f"{root}/proc"
    mount("proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
    for name in PROC_READONLY:
        path = f"{proc}/{name}"
        if os.path.exists(path):
            mount(path, path, None, MS_BIND | MS_REC, None)
            mount(path, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY, None)
    for name in PROC_HIDDEN:
        path = f"{proc}/{name}"
        if os.path.exists(path):
            mount("/dev/null", path, None, MS_BIND, None)
    sysfs = f"{root}/sys"
    try:
        mount("sysfs", sysfs, "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
    except OSError:
        mount("/sys", sysfs, None, MS_BIND | MS_REC, None)
        mount(sysfs, sysfs, None, MS_BIND | MS_REMOUNT | MS_RDONLY, None)
    setup_dev(f"{root}/dev")


MOUNT_FLAGS = {
    "nosuid": MS_NOSUID,
    "nodev": MS_NODEV,
    "noexec": MS_NOEXEC,
    "noatime": 1024,
    "nodiratime": 2048,
    "relatime": 1 << 21,
    "strictatime": 1 << 24,
}


def mounts_under(path: str) -> list[tuple[str, str]]:
    """``(mount point, options)`` of every mount at or below ``path``, outermost first."""
    found = []
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            fields = line.split()
            point = fields[4].replace("\\040", " ")
            if point == path or point.startswith(path.rstrip("/") + "/"):
                found.append((point, fields[5]))
    return sorted(found, key=lambda item: item[0].count("/"))


def make_read_only(path: str) -> None:
    """Remount every mount at or below ``path`` read-only, keeping its other flags."""
    for point, options in mounts_under(path):
        flags = MS_BIND | MS_REMOUNT | MS_RDONLY
        for option in options.split(","):
            flags |= MOUNT_FLAGS.get(option, 0)
        try:
            mount(point, point, None, flags, None)
        except OSError:
            if point == path:
                raise


def rootless_root(config: dict[str, Any]) -> None:
    """The root for a user namespace, where the host's ``/`` cannot be an overlay lower.

    ``/`` is an overlay of an empty skeleton (so new top-level paths persist in
    the upper layer and snapshots keep them); the host's system directories are
    bound read-only on top (the mapped root could not write them anyway);
    masked paths inside them are covered by empty read-only tmpfs or /dev/null.
    """
    root = config["merged"]
    options = (
        f"lowerdir={config['skeleton']},upperdir={config['upper']},"
        f"workdir={config['work']},userxattr"
    )
    mount("overlay", root, "overlay", 0, options)
    for name in config["system_dirs"]:
        source, target = f"/{name}", f"{root}/{name}"
        if os.path.islink(source):
            if not os.path.lexists(target):
                os.symlink(os.readlink(source), target)
            continue
        os.makedirs(target, exist_ok=True)
        mount(source, target, None, MS_BIND | MS_REC, None)
        make_read_only(target)
    for path in config["mask_dirs"]:
        target = f"{root}{path}"
        if path.count("/") == 1:
            fresh_mount_point(root, path.strip("/"))
        elif not through_link(root, path) and os.path.isdir(target):
            mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=1048576k")
    for path in config["hidden"]:
        target = f"{root}{path}"
        if path.count("/") == 1 or through_link(root, path) or not os.path.lexists(target):
            continue
        if os.path.isdir(target):
            mount("tmpfs", target, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "mode=755,size=4k")
        else:
            mount("/dev/null", target, None, MS_BIND, None)


def fresh_mount_point(root: str, name: str) -> None:
    """Make ``root/name`` a real directory: a link or file the agent left there is
    removed (in the overlay, not followed onto the host)."""
    path = f"{root}/{name}"
    if os.path.lexists(path) and (os.path.islink(path) or not os.path.isdir(path)):
        os.unlink(path)
    if not os.path.lexists(path):
        os.mkdir(path)


def through_link(root: str, path: str) -> bool:
    """True when a component of ``path`` under ``root`` is a link (before ``pivot_root``
    it would resolve on the host, so nothing is done there)."""
    current = root
    for part in [p for p in path.split("/") if p]:
        current = f"{current}/{part}"
        if os.path.islink(current):
            return True
    return False


def setup_dev(dev: str) -> None:
    mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=755,size=65536k")
    for name in DEV_NODES:
        path = f"{dev}/{name}"
        with open(path, "w"):
            pass
        mount(f"/dev/{name}", path, None, MS_BIND, None)
    os.mkdir(f"{dev}/pts")
    try:
        mount("devpts", f"{dev}/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666")
        os.symlink("pts/ptmx", f"{dev}/ptmx")
    except OSError:
        pass
    os.mkdir(f"{dev}/shm")
    mount("tmpfs", f"{dev}/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=262144k")
    os.mkdir(f"{dev}/mqueue")
    for index, name in enumerate(("stdin", "stdout", "stderr")):
        os.symlink(f"/proc/self/fd/{index}", f"{dev}/{name}")
    os.symlink("/proc/self/fd", f"{dev}/fd")
    os.symlink("/proc/kcore", f"{dev}/core")


def loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


def pivot(root: str) -> None:
    os.chdir(root)
    _check(libc.syscall(SYS_PIVOT_ROOT, b".", b"."), "pivot_root")
    _check(libc.umount2(b".", MNT_DETACH), "umount old root")
    os.chdir("/")


# -- serving ----------------------------------------------------------------------------------


class Exec:
    """One command, from its fork to its exit, and the connection that asked for it.

    It is *starting* until its status pipe closes: at its ``exec`` (empty), or after
    the reason it could not start. A command frozen before its ``exec`` stays starting
    until the thaw; the init serves every other request meanwhile.
    """

    def __init__(self, conn: socket.socket, pid: int, role: str, timeout: float | None) -> None:
        self.conn = conn
        self.pid = pid
        self.role = role
        self.timeout = timeout
        self.starting = True
        self.failure = b""
        self.exit: int | None = None
        self.deadline: float | None = None
        self.timed_out = False


def send(conn: socket.socket, message: dict[str, Any]) -> None:
    data = json.dumps(message).encode()
    with contextlib.suppress(OSError):
        conn.sendall(HEADER.pack(len(data)) + data)


def receive(conn: socket.socket) -> tuple[dict[str, Any], list[int]] | None:
    header, fds, _, _ = socket.recv_fds(conn, HEADER.size, 8)
    if len(header) < HEADER.size:
        for fd in fds:
            os.close(fd)
        return None
    (size,) = HEADER.unpack(header)
    if size > MAX_MESSAGE:
        return None
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return json.loads(data), fds


def drop_caps(last_cap: int) -> None:
    for cap in range(last_cap + 1):
        if cap not in KEEP_CAPS:
            libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)


def switch_user(user: str | None) -> dict[str, str]:
    """setgroups/setgid/setuid to ``user`` (name, uid or ``uid:gid``); return HOME/USER."""
    if user is None or user in {"", "root", "0"}:
        return {"HOME": "/root", "USER": "root"}
    name, _, group = user.partition(":")
    try:
        entry = pwd.getpwuid(int(name)) if name.isdigit() else pwd.getpwnam(name)
        uid, gid, home, login = entry.pw_uid, entry.pw_gid, entry.pw_dir, entry.pw_name
    except KeyError:
        if not name.isdigit():
            raise LookupError(
                f"unable to find user {name}: no matching entries in passwd file"
            ) from None
        uid, gid, home, login = int(name), int(name), "/", name
    if group:
        gid = int(group) if group.isdigit() else grp.getgrnam(group).gr_gid
    try:
        groups = os.getgrouplist(login, gid)
    except OSError:
        groups = [gid]
    with contextlib.suppress(PermissionError):
        os.setgroups(groups)
    os.setgid(gid)
    os.setuid(uid)
    return {"HOME": home, "USER": login}


def child(request: dict[str, Any], fds: list[int], status_w: int, config: dict[str, Any]) -> None:
    """In the forked child: become the command. Never returns."""
    try:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE, signal.SIGCHLD):
            signal.signal(sig, signal.SIG_DFL)
        signal.set_wakeup_fd(-1)
        os.setsid()
        role = request.get("cgroup", "agent")
        cgroup_fd = config["_cgroup_fds"].get(role)
        if cgroup_fd is not None:
            os.write(cgroup_fd, b"0")
        if role == "agent":  # the agent's pid budget, below the init's (which keeps a reserve)
            for fd in config["_agent_limit_fds"]:
                os.write(fd, b"0")
        if request.get("tty"):
            stdin = out = err = fds[0]
        elif request.get("has_stdin"):
            stdin, out, err = fds[0], fds[1], fds[2]
        else:
            stdin, (out, err) = os.open("/dev/null", os.O_RDONLY), (fds[0], fds[1])
        os.dup2(stdin, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        if request.get("tty"):
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        os.closerange(3, status_w)
        os.closerange(status_w + 1, 65536)
        drop_caps(config["cap_last_cap"])
        identity = switch_user(request.get("user"))
        env = {**identity, **request["env"]}
        cwd = request.get("cwd") or "/"
        try:
            os.chdir(cwd)
        except OSError as error:
            raise OSError(error.errno, f"chdir to {cwd} failed: {error.strerror}") from None
        argv = request["argv"]
        os.execvpe(argv[0], argv, env)
    except BaseException as error:
        if isinstance(error, FileNotFoundError) and error.filename is None:
            message = f"exec: {request['argv'][0]}: executable file not found"
        elif isinstance(error, OSError) and error.strerror and "chdir" in str(error.strerror):
            message = str(error.strerror)
        else:
            message = f"{type(error).__name__}: {error}"
        try:
            os.write(status_w, message.encode()[:4000])
        finally:
            os._exit(127)


def agent_budget_full(config: dict[str, Any], starting: int) -> bool:
    """True when the agent's pids cgroup, with the ``starting`` agent commands not in it
    yet, holds its limit: an agent command forked by the init (in the init's cgroup) and
    moved there would exceed it and eat the init's reserve."""
    for current_fd, max_fd in config["_agent_pids_fds"]:
        current, limit = (os.pread(fd, 64, 0).decode().strip() for fd in (current_fd, max_fd))
        if limit != "max" and int(current) + starting >= int(limit):
            return True
    return False


class Server:
    def __init__(self, listener: socket.socket, config: dict[str, Any]) -> None:
        self.listener = listener
        self.config = config
        self.selector = selectors.DefaultSelector()
        self.running: dict[int, Exec] = {}
        self.by_conn: dict[socket.socket, Exec] = {}
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_r, False)
        os.set_blocking(wake_w, False)
        self.wake_r = wake_r
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        self.selector.register(listener, selectors.EVENT_READ, "accept")
        self.selector.register(wake_r, selectors.EVENT_READ, "signal")

    def serve(self) -> None:
        while True:
            timeout = self._next_timeout()
            for key, _ in self.selector.select(timeout):
                if key.data == "accept":
                    conn, _ = self.listener.accept()
                    self.selector.register(conn, selectors.EVENT_READ, "conn")
                elif key.data == "signal":
                    try:
                        while os.read(self.wake_r, 512):
                            pass
                    except BlockingIOError:
                        pass
                elif isinstance(key.data, Exec):
                    self._status(key.fd, key.data)
                else:
                    self._readable(key.fileobj)  # type: ignore[arg-type]
            self._reap()
            self._expire()

    def _next_timeout(self) -> float | None:
        deadlines = [e.deadline for e in self.running.values() if e.deadline and not e.timed_out]
        if not deadlines:
            return 5.0
        return max(0.0, min(deadlines) - time.monotonic())

    def _expire(self) -> None:
        now = time.monotonic()
        for running in self.running.values():
            if running.deadline is not None and not running.timed_out and now >= running.deadline:
                running.timed_out = True
                kill_group(running.pid)

    def _reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            running = self.running.get(pid)
            if running is None:
                continue
            code = os.waitstatus_to_exitcode(status)
            running.exit = 128 - code if code < 0 else code
            self._finish(running)

    def _status(self, status_r: int, running: Exec) -> None:
        """The starting command's status pipe: its failure to start, or the close at its
        ``exec`` (then it runs, and its timeout starts)."""
        try:
            chunk = os.read(status_r, 4096)
        except BlockingIOError:
            return
        if chunk:
            running.failure += chunk
            return
        self.selector.unregister(status_r)
        os.close(status_r)
        running.starting = False
        if running.failure:
            send(running.conn, {"error": running.failure.decode(errors="replace")})
            self._close(running.conn)
            running.conn = _NullSocket()  # type: ignore[assignment]
        else:
            send(running.conn, {"pid": running.pid})
            if running.timeout:
                running.deadline = time.monotonic() + running.timeout
        self._finish(running)

    def _finish(self, running: Exec) -> None:
        """Once a command has both started (or failed to) and exited: report its exit (to
        no one after a failure to start, already reported)."""
        if running.starting or running.exit is None:
            return
        del self.running[running.pid]
        kill_group(running.pid) if running.timed_out else None
        send(running.conn, {"exit": running.exit, "timed_out": running.timed_out})
        self._close(running.conn)

    def _close(self, conn: socket.socket) -> None:
        self.by_conn.pop(conn, None)
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(conn)
        conn.close()

    def _readable(self, conn: socket.socket) -> None:
        try:
            received = receive(conn)
        except (OSError, ValueError):
            received = None
        if received is None:
            running = self.by_conn.get(conn)
            if running is not None:  # the host gave up on it: kill it
                kill_group(running.pid)
                running.conn = _NullSocket()  # type: ignore[assignment]
            self._close(conn)
            return
        request, fds = received
        op = request.get("op")
        if op == "exec":
            self._exec(conn, request, fds)
        elif op == "ping":
            send(conn, {"ok": True})
        elif op in {"freeze", "thaw"}:
            rounds = sweep(freeze=op == "freeze")
            send(conn, {"ok": rounds >= 0, "rounds": rounds})
        else:
            send(conn, {"error": f"unknown op {op!r}"})
        for fd in fds:
            os.close(fd)

    def _exec(self, conn: socket.socket, request: dict[str, Any], fds: list[int]) -> None:
        """Fork the command and go on serving: :meth:`_status` learns when it starts."""
        try:
            status_r, status_w = os.pipe2(os.O_CLOEXEC)
        except OSError as error:
            send(conn, {"error": f"cannot start the command: {error.strerror}"})
            self._close(conn)
            return
        role = request.get("cgroup", "agent")
        starting = sum(e.starting and e.role == "agent" for e in self.running.values())
        if role == "agent" and agent_budget_full(self.config, starting):
            os.close(status_r)
            os.close(status_w)
            send(conn, {"error": "cannot fork the command: the agent holds every pid slot"})
            self._close(conn)
            return
        try:
            pid = os.fork()
        except OSError as error:  # EAGAIN: the sandbox holds its pid limit; keep serving
            os.close(status_r)
            os.close(status_w)
            send(conn, {"error": f"cannot fork the command: {error.strerror}"})
            self._close(conn)
            return
        if pid == 0:
            os.close(status_r)
            child(request, fds, status_w, self.config)
        os.close(status_w)
        os.set_blocking(status_r, False)
        timeout = request.get("timeout")
        running = Exec(conn, pid, role, float(timeout) if timeout else None)
        self.running[pid] = running
        self.by_conn[conn] = running
        self.selector.register(status_r, selectors.EVENT_READ, running)


class _NullSocket:
    def sendall(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        pass


def kill_group(pid: int) -> None:
    """SIGKILL the command's process group and every process of its session."""
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in {1, os.getpid()}:
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                session = int(handle.read().rsplit(")", 1)[1].split()[3])
        except (OSError, IndexError, ValueError):
            continue
        if session == pid:
            with contextlib.suppress(OSError):
                os.kill(int(entry), signal.SIGKILL)


def _running(pid: str) -> bool:
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/stat") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in {"T", "t", "Z", "X", "x"}:
            return True
    return False


def sweep(*, freeze: bool, max_rounds: int = 500) -> int:
    """SIGSTOP (or SIGCONT) every process but this init, round after round, to a fixpoint."""
    mine = {1, os.getpid()}
    for number in range(1, max_rounds + 1):
        busy = False
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) in mine:
                continue
            if freeze and not _running(entry):
                continue
            try:
                os.kill(int(entry), signal.SIGSTOP if freeze else signal.SIGCONT)
                busy = freeze
            except OSError:
                continue
        if not busy:
            return number
    return -1


# -- main -------------------------------------------------------------------------------------


def become_init(config: dict[str, Any]) -> None:
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    setup_root(config)
    name = config["hostname"].encode()
    _check(libc.sethostname(name, len(name)), "sethostname")
    loopback_up()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if os.path.exists(config["socket"]):
        os.unlink(config["socket"])
    listener.bind(config["socket"])
    os.chmod(config["socket"], 0o600)
    listener.listen(64)
    fds: dict[str, int] = {}
    for role, path in config["cgroup_procs"].items():
        fds[role] = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    config["_cgroup_fds"] = fds
    agent_limits = config.get("agent_limit_procs", ())
    config["_agent_limit_fds"] = [os.open(p, os.O_WRONLY | os.O_CLOEXEC) for p in agent_limits]
    config["_agent_pids_fds"] = [
        [os.open(path, os.O_RDONLY | os.O_CLOEXEC) for path in pair]
        for pair in config.get("agent_pids_counts", ())
    ]
    pivot(config["merged"])
    if config["network"]:
        with contextlib.suppress(OSError):  # a link (systemd-resolved) is replaced
            os.unlink("/etc/resolv.conf")
        with contextlib.suppress(OSError):
            write_file("/etc/resolv.conf", f"nameserver {SLIRP_DNS}\n")
    sys.stdout.write("READY\n")
    sys.stdout.flush()
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    Server(listener, config).serve()


def main() -> None:
    with open(os.environ["LHTB_INIT_CONFIG"]) as handle:
        config = json.load(handle)
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET
    if config["rootless"]:
        uid, gid = os.getuid(), os.getgid()
        _check(libc.unshare(CLONE_NEWUSER), "unshare(CLONE_NEWUSER)")
        write_file("/proc/self/setgroups", "deny")
        write_file("/proc/self/uid_map", f"0 {uid} 1")
        write_file("/proc/self/gid_map", f"0 {gid} 1")
    for path in [config["cgroup_procs"].get("ctl"), *config.get("limit_procs", ())]:
        if path:
            write_file(path, "0")
    _check(libc.unshare(flags), "unshare")
    pid = os.fork()
    if pid == 0:
        try:
            become_init(config)
        except BaseException as error:
            sys.stdout.write(f"ERROR {type(error).__name__}: {error}\n")
            sys.stdout.flush()
            os._exit(1)
        os._exit(0)
    sys.stdout.write(f"PID {pid}\n")
    sys.stdout.flush()
    signal.signal(signal.SIGTERM, lambda *_: os.kill(pid, signal.SIGKILL))
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
        except ChildProcessError:
            status = 0
            break
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


if __name__ == "__main__":
    main()
