"""Hidden checks for pak-port. Writes /logs/verifier/scorecard.json.

Every case runs twice on the same inputs: once with the reference ``pak``
binary (moved out of the port's reach first: into a root-only directory), once
with the port, ``python3 /app/pak.py``, through the kit's ``run_untrusted`` (as
nobody, /tests and /logs/verifier locked, clean environment) under an audit
hook that refuses starting processes, ctypes and native modules from outside
the system's Python. A case passes when the exit status, stdout, stderr and
everything written (the archive's bytes, or the extracted files and their
modes) are identical."""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cases as gen  # noqa: E402
from lhtb_scorecard import Scorecard, input_dir, read_output, readable, run_untrusted, scratch_dir  # noqa: E402
from lhtb_scorecard import seed as kit_seed  # noqa: E402

APP = Path(os.environ.get("LHTB_APP", "/app"))
INSTALLED = Path("/usr/local/bin/pak")
HIDDEN = Path("/root/.pak-reference")
TIMEOUT = 60
PYTHON = "/usr/bin/python3"  # the image's interpreter (the verifier may run under another)

WRAPPER = r"""
import os, struct, sys
def _no_exec():
    # seccomp: execve/execveat fail with EPERM from here on, whatever the Python code does
    # (the filter is inherited and cannot be removed); fails closed.
    import ctypes
    arch, calls = {"x86_64": (0xC000003E, (59, 322)), "aarch64": (0xC00000B7, (221, 281))}[os.uname().machine]
    op = lambda code, k, jt=0, jf=0: struct.pack("HBBI", code, jt, jf, k)
    deny, allow = 0x00050000 | 1, 0x7FFF0000
    prog = (op(0x20, 4) + op(0x15, arch, 1, 0) + op(0x06, deny) + op(0x20, 0)
            + op(0x35, 0x40000000, 2, 0) + op(0x15, calls[0], 1, 0) + op(0x15, calls[1], 0, 1)
            + op(0x06, deny) + op(0x06, allow))
    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    buf = ctypes.create_string_buffer(prog)
    fprog = Fprog(len(prog) // 8, ctypes.cast(buf, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) != 0:
        sys.stderr.write("pak-port verifier: cannot install the exec filter\n")
        sys.exit(70)
    for name in [m for m in sys.modules if m == "ctypes" or m.startswith(("ctypes.", "_ctypes"))]:
        del sys.modules[name]
_no_exec()
del _no_exec
def _install():
    # The rules live in this closure as immutable values, and the hook calls no Python
    # code the port could replace: rebinding names (in any frame's globals) changes nothing.
    import sysconfig
    system = tuple(os.path.realpath(p) + os.sep for p in {sysconfig.get_path("platstdlib"), sysconfig.get_path("stdlib")})
    modules = frozenset({"_posixsubprocess", "_ctypes", "ctypes", "_testcapi"})
    events = ("os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
              "subprocess.Popen", "ctypes.", "pty.", "os.kill", "os.killpg", "gc.get_")
    startswith, endswith, rpartition = str.startswith, str.endswith, str.rpartition
    def guard(event, args):
        if type(event) is not str or startswith(event, events):
            raise PermissionError("pak-port: %s is not allowed" % (event,))
        if event == "import":
            name, origin = args[0], args[1]
            if type(name) is not str or rpartition(name, ".")[2] in modules:
                raise PermissionError("pak-port: import %r is not allowed" % (name,))
            if origin is None or (type(origin) is str and endswith(origin, (".py", ".pyc"))):
                return
            if type(origin) is not str or not startswith(origin, system) or "/.." in origin:
                raise PermissionError("pak-port: native module %r is not allowed" % (origin,))
    sys.addaudithook(guard)
_install()
del _install
del sys.argv[0]
sys.path.insert(0, os.path.dirname(sys.argv[0]))
import runpy
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def reference_binary():
    """The reference pak, moved where only root can reach it."""
    override = os.environ.get("PAK_REFERENCE")
    if override:
        return override
    target = HIDDEN / "pak"
    if INSTALLED.exists():
        HIDDEN.mkdir(mode=0o700, exist_ok=True)
        os.chmod(HIDDEN, 0o700)
        shutil.move(str(INSTALLED), str(target))
        os.chmod(target, 0o700)
    return str(target)


def write_files(root, files):
    for rel, data, mtime, mode in files:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.chmod(path, mode)
        os.utime(path, (mtime, mtime))
    for directory, _, _ in os.walk(root):
        os.chmod(directory, 0o755)


def substitute(argv, archive, out, dest):
    table = {"@ARCHIVE": archive, "@OUT": out, "@DEST": dest}
    return [table.get(arg, arg) for arg in argv]


def snapshot(path, is_tree):
    """What a run wrote: archive bytes, or {relpath: (bytes, mode)}; None if nothing."""
    if not is_tree:
        return read_output(path, binary=True)
    if not os.path.lexists(path) or os.path.islink(path):
        return None
    tree = {}
    for root, dirs, names in os.walk(path):
        for name in sorted(names + [d for d in dirs if os.path.islink(os.path.join(root, d))]):
            full = os.path.join(root, name)
            rel = os.path.relpath(full, path)
            data = read_output(full, binary=True)
            tree[rel] = ("not a regular file", 0) if data is None else (data, os.lstat(full).st_mode & 0o777)
    return tree


class Runner:
    def __init__(self, reference):
        self.reference = reference
        self.counter = 0

    def prepare(self, case):
        """Input directory with the case's files, and the archive built and damaged."""
        self.counter += 1
        work = Path(input_dir())
        archive = case.archive or "ledger-%d.pak" % self.counter
        if case.build is None:
            write_files(work, case.files)
            return work, archive
        with tempfile.TemporaryDirectory() as build:
            write_files(Path(build), case.files)
            target = work / archive
            argv = substitute(case.build, archive, str(target), "")
            proc = subprocess.run([self.reference] + argv, cwd=build, capture_output=True,
                                  timeout=TIMEOUT)
            if proc.returncode != 0:
                raise RuntimeError("reference create failed: %r %r" % (argv, proc.stderr))
        target.write_bytes(gen.apply_damage(target.read_bytes(), case.damage))
        os.chmod(target, 0o644)
        return work, archive

    def expected(self, case, work, archive):
        out_dir = Path(tempfile.mkdtemp(prefix="pak-ref-"))
        try:
            argv = substitute(case.argv, archive, str(out_dir / "new.pak"), str(out_dir / "dest"))
            proc = subprocess.run([self.reference] + argv, cwd=str(work), capture_output=True,
                                  timeout=TIMEOUT)
            is_tree = "@DEST" in case.argv
            wrote = snapshot(str(out_dir / ("dest" if is_tree else "new.pak")), is_tree)
            return proc.returncode, proc.stdout, proc.stderr, wrote
        finally:
            shutil.rmtree(out_dir, ignore_errors=True)

    def port(self, case, work, archive):
        out_dir = scratch_dir()
        argv = substitute(case.argv, archive, os.path.join(out_dir, "new.pak"),
                          os.path.join(out_dir, "dest"))
        proc = run_untrusted([PYTHON, "-I", "-B", "-c", WRAPPER, str(APP / "pak.py")] + argv,
                             cwd=str(work), timeout=TIMEOUT)
        if proc.timed_out:
            return None
        is_tree = "@DEST" in case.argv
        wrote = snapshot(os.path.join(out_dir, "dest" if is_tree else "new.pak"), is_tree)
        return proc.returncode, proc.stdout, proc.stderr, wrote

    def same(self, case):
        work, archive = self.prepare(case)
        want = self.expected(case, work, archive)
        got = self.port(case, work, archive)
        if os.environ.get("PAK_VERBOSE") and got != want:
            sys.stderr.write("MISMATCH %s %r\n  want %r\n  got  %r\n" % (
                case.label, case.argv, str(want)[:600], str(got)[:600]))
        return got == want


def main():
    seed = kit_seed()
    card = Scorecard()
    readable(APP)
    runner = Runner(reference_binary())
    public = {name: [runner.same(case) for case in group] for name, group in gen.public_cases().items()}
    for name, results in public.items():
        card.check(name, all(results), weight=1, visibility="public")
    for name, group in gen.hidden_cases(seed).items():
        results = [runner.same(case) for case in group]
        card.add(name, sum(results) / len(results), weight=gen.CATEGORIES[name][0],
                 message="seed %d: %d/%d cases identical to the reference" % (seed, sum(results), len(results)))
    card.write(os.environ.get("PAK_SCORECARD", "/logs/verifier/scorecard.json"))


if __name__ == "__main__":
    main()
