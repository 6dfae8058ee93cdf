# mypy: ignore-errors
"""The in-sandbox end of the exec channel: stdlib only, one file, Python 3.7+.

The host does not upload this file. It starts ``python3 -I -S -c BOOTSTRAP N``
in the container with stdin and stdout attached; the bootstrap reads the next
``N`` bytes of stdin (this source) and runs it. Nothing lands on the sandbox's
filesystem. The helper then speaks the framed protocol of
:mod:`lhtb.sandbox.docker._channel` on stdin/stdout until stdin closes.

Frames, both ways: ``>IIB`` (payload length, request id, type) then the payload.

host -> helper: START (JSON: argv, cwd, env, user, timeout, limit, stdin, grace),
STDIN (bytes), STDIN_EOF, KILL.
helper -> host: HELLO (JSON, request id 0, once), STDOUT (bytes), STDERR (bytes),
EXIT (JSON: code, timed_out, truncated flags, duration), FAIL (JSON: message).

Each command runs in its own session (process group), with its own reader
thread. A timeout SIGKILLs the whole group. The helper is not trusted by the
harness: it only serves commands that could run anyway, and the harness never
uses it for verification.
"""

import contextlib
import json
import os
import queue
import select
import signal
import struct
import subprocess
import sys
import threading
import time

HEADER = struct.Struct(">IIB")
START, STDIN, STDIN_EOF, KILL = 1, 2, 3, 4
HELLO, STDOUT, STDERR, EXIT, FAIL = 10, 11, 12, 13, 14
VERSION = 1
CHUNK = 256 * 1024

_out_lock = threading.Lock()
_commands = {}
_commands_lock = threading.Lock()


def original_environ():
    """The environment Docker gave this process (before Python's locale coercion
    added ``LC_CTYPE``): what a plain ``docker exec`` would see."""
    try:
        with open("/proc/self/environ", "rb") as handle:  # noqa: PTH123 - stdlib only, kept lean
            raw = handle.read()
    except OSError:
        return dict(os.environ)
    env = {}
    for item in raw.split(b"\0"):
        key, sep, value = item.partition(b"=")
        if sep and key:
            env[os.fsdecode(key)] = os.fsdecode(value)
    return env


BASE_ENV = original_environ()
DEVNULL = os.open(os.devnull, os.O_RDONLY)


def send(request_id, kind, payload=b""):
    frame = HEADER.pack(len(payload), request_id, kind) + payload
    with _out_lock:
        view = memoryview(frame)
        while view:
            written = os.write(1, view)
            view = view[written:]


def send_json(request_id, kind, value):
    send(request_id, kind, json.dumps(value).encode())


def resolve_user(spec):
    """(uid, gid, groups, home) for a Docker-style user spec: name, uid, name:group."""
    import grp  # noqa: PLC0415
    import pwd  # noqa: PLC0415

    name, _, group = str(spec).partition(":")
    try:
        entry = pwd.getpwuid(int(name)) if name.isdigit() else pwd.getpwnam(name)
    except KeyError:
        if not name.isdigit():
            message = f"unable to find user {name}: no matching entries in passwd file"
            raise LookupError(message) from None
        uid, gid, home, login = int(name), 0, "/", None
    else:
        uid, gid, home, login = entry.pw_uid, entry.pw_gid, entry.pw_dir, entry.pw_name
    if group:
        try:
            gid = int(group) if group.isdigit() else grp.getgrnam(group).gr_gid
        except KeyError:
            message = f"unable to find group {group}: no matching entries in group file"
            raise LookupError(message) from None
        groups = [gid]
    else:
        groups = os.getgrouplist(login, gid) if login else [gid]
    return uid, gid, groups, home


class Command:
    def __init__(self, request_id, spec):
        self.id = request_id
        self.spec = spec
        self.stdin = queue.Queue() if spec.get("stdin") else None
        self.proc = None
        self.killed = False

    def run(self):
        spec = self.spec
        started = time.monotonic()
        try:
            env = dict(BASE_ENV)
            kwargs = {}
            user = spec.get("user")
            if user is not None and str(user) not in ("0", "root"):
                uid, gid, groups, home = resolve_user(user)
                env["HOME"] = home
                kwargs = {"user": uid, "group": gid, "extra_groups": groups}
            env.update(spec.get("env") or {})
            self.proc = subprocess.Popen(
                spec["argv"],
                cwd=spec.get("cwd") or None,
                env=env,
                stdin=subprocess.PIPE if self.stdin is not None else DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                close_fds=True,
                **kwargs,
            )
        except OSError as error:
            what = error.filename if error.filename is not None else spec["argv"][0]
            message = f"failed to run command {what!r}: {error.strerror}"
            if spec.get("cwd") and what == spec["cwd"]:
                message = f"chdir to cwd ({what!r}): {error.strerror}"
            send_json(self.id, FAIL, {"message": message})
            self.forget()
            return
        except (LookupError, ValueError, subprocess.SubprocessError) as error:
            send_json(self.id, FAIL, {"message": str(error)})
            self.forget()
            return
        if self.stdin is not None:
            threading.Thread(target=self.feed, daemon=True).start()
        self.collect(started)

    def feed(self):
        pipe = self.proc.stdin
        broken = False
        while True:
            data = self.stdin.get()
            if data is None:
                break
            if broken:
                continue
            try:
                pipe.write(data)
                pipe.flush()
            except OSError:
                broken = True  # the command stopped reading: not an error
        with contextlib.suppress(OSError):
            pipe.close()

    def kill(self):
        self.killed = True
        if self.proc is not None:
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)

    def collect(self, started):  # noqa: PLR0915 - one select loop, kept whole
        spec = self.spec
        limit = int(spec.get("limit", 0))
        timeout = spec.get("timeout")
        grace = float(spec.get("grace", 0.5))
        deadline = None if timeout is None else started + float(timeout)
        sizes = {STDOUT: 0, STDERR: 0}
        truncated = {STDOUT: False, STDERR: False}
        fds = {self.proc.stdout.fileno(): STDOUT, self.proc.stderr.fileno(): STDERR}
        wake_r, wake_w = os.pipe()

        def wait():
            self.proc.wait()
            os.write(wake_w, b"x")

        threading.Thread(target=wait, daemon=True).start()
        exited_at = None
        timed_out = False
        while fds or exited_at is None:
            now = time.monotonic()
            wait_for = None
            if deadline is not None and not timed_out:
                wait_for = max(0.0, deadline - now)
            if exited_at is not None:
                left = max(0.0, exited_at + grace - now)
                wait_for = left if wait_for is None else min(wait_for, left)
            watched = list(fds) + ([wake_r] if exited_at is None else [])
            ready, _, _ = select.select(watched, [], [], wait_for)
            if not ready:
                if exited_at is not None and time.monotonic() >= exited_at + grace:
                    break  # a background process holds the pipes: stop waiting, as dockerd does
                if deadline is not None and not timed_out and time.monotonic() >= deadline:
                    timed_out = True
                    self.kill()
                continue
            for fd in ready:
                if fd == wake_r:
                    os.read(wake_r, 1)
                    exited_at = time.monotonic()
                    continue
                data = os.read(fd, CHUNK)
                kind = fds[fd]
                if not data:
                    del fds[fd]
                    continue
                room = limit - sizes[kind]
                if room <= 0:
                    truncated[kind] = True
                    continue
                if len(data) > room:
                    data = data[:room]
                    truncated[kind] = True
                sizes[kind] += len(data)
                send(self.id, kind, data)
        code = self.proc.wait()
        for pipe in (self.proc.stdout, self.proc.stderr):
            pipe.close()
        os.close(wake_r)
        os.close(wake_w)
        if code < 0:
            code = 128 - code
        if timed_out:
            code = 128 + signal.SIGKILL
        result = {
            "code": code,
            "timed_out": timed_out,
            "stdout_truncated": truncated[STDOUT],
            "stderr_truncated": truncated[STDERR],
            "duration": time.monotonic() - started,
        }
        send_json(self.id, EXIT, result)
        self.forget()

    def forget(self):
        with _commands_lock:
            _commands.pop(self.id, None)


def dispatch(request_id, kind, payload):
    with _commands_lock:
        command = _commands.get(request_id)
    if kind == START:
        command = Command(request_id, json.loads(payload.decode()))
        with _commands_lock:
            _commands[request_id] = command
        threading.Thread(target=command.run, daemon=True).start()
    elif command is None:
        return
    elif kind == STDIN and command.stdin is not None:
        command.stdin.put(payload)
    elif kind == STDIN_EOF and command.stdin is not None:
        command.stdin.put(None)
    elif kind == KILL:
        command.kill()


def rename():
    """Call the process ``lhtb-channel`` so ``pkill python3`` in the sandbox spares it."""
    try:
        import ctypes  # noqa: PLC0415 - optional: minimal Pythons may lack it

        ctypes.CDLL(None).prctl(15, b"lhtb-channel", 0, 0, 0)  # PR_SET_NAME
    except Exception:
        pass


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    rename()
    send_json(0, HELLO, {"version": VERSION, "pid": os.getpid(), "python": sys.version})
    buffer = bytearray()
    while True:
        data = os.read(0, CHUNK)
        if not data:
            break
        buffer += data
        while len(buffer) >= HEADER.size:
            length, request_id, kind = HEADER.unpack_from(buffer)
            end = HEADER.size + length
            if len(buffer) < end:
                break
            dispatch(request_id, kind, bytes(buffer[HEADER.size : end]))
            del buffer[:end]
    os._exit(0)


if __name__ == "__main__":
    main()
