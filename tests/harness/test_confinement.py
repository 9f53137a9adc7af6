"""The worker's self-confinement, for real: each attack in a fresh child, in each of the three setups.

A child is ``/usr/bin/python3 -I -S -B -u`` with a copy of the worker package. It first proves the
attack would work (a control step), then confines itself (``grading_worker.confine``) and tries
again; the test asserts the errno the attack met and that nothing reached its target: the listeners
hold only the control payload, the victim and this process have no signal pending, no file appeared.
Everything is read after the child has exited, so nothing here waits on a clock.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import socket
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.grade.listeners import Listeners
from dedup_harness.grade.worker import landlock
from machine_setups import SYSTEM_PYTHON, Setup, pending, public_folder, start_victim

WORKER = Path(landlock.__file__).resolve().parent
CHILD_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/"}
ABI = landlock.abi()
Result = dict[str, Any]

PRELUDE = """
import errno, json, os, sys
spec = json.loads(sys.argv[1])
sys.path.insert(0, spec["lib"])
from grading_worker import confine
R = {"who": [os.getuid(), os.getgid(), int(
    [l for l in open("/proc/self/status") if l.startswith("CapEff")][0].split()[1], 16)]}

def attempt(name, fn):
    try:
        fn()
    except OSError as exc:
        R[name] = errno.errorcode.get(exc.errno, str(exc.errno))
        return
    R[name] = "ok"

def lockdown(**kw):
    kw = {"read_only": [spec["ro"]], "read_write": [spec["rw"]], **kw}
    report = confine.confine(kw.pop("read_only"), kw.pop("read_write"), **kw)
    R["report"] = report.as_dict()

import ctypes
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long

def raw(nr, *args):
    res = LIBC.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    if res == -1:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return res

from grading_worker.arches import current_arch
NR = current_arch().syscalls
"""


class Box:
    """A child's folders: its code, read-only and read-write folders, and two outside them."""

    def __init__(self, base: Path, setup: Setup) -> None:
        self.base = base
        self.lib, self.ro, self.rw = base / "lib", base / "ro", base / "rw"
        self.outside, self.outside_w = base / "outside", base / "outside_w"
        for folder in (self.lib, self.ro, self.rw, self.outside, self.outside_w):
            folder.mkdir(mode=0o755)
        shutil.copytree(WORKER, self.lib / "grading_worker", ignore=shutil.ignore_patterns("__pycache__"))
        (self.ro / "data.txt").write_text("allowed data\n", encoding="utf-8")
        (self.outside / "secret.txt").write_text("secret data\n", encoding="utf-8")
        os.chown(self.rw, setup.uid, setup.gid)
        self.outside_w.chmod(0o777)

    def spec(self) -> dict[str, str]:
        names = ("lib", "ro", "rw", "outside", "outside_w")
        return {
            **{name: str(getattr(self, name)) for name in names},
            "ro_file": str(self.ro / "data.txt"),
            "secret": str(self.outside / "secret.txt"),
        }


@pytest.fixture
def box(setup: Setup) -> Iterator[Box]:
    base = public_folder("dedup-harness-confine-")
    try:
        yield Box(base, setup)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def needs_abi(minimum: int) -> None:
    if minimum > ABI:
        pytest.skip(f"needs Landlock ABI >= {minimum}; this kernel has {ABI}")


def run_child(
    setup: Setup,
    box: Box,
    body: str,
    *,
    extra: dict[str, Any] | None = None,
    new_session: bool = True,
    env: dict[str, str] | None = None,
    pass_fds: tuple[int, ...] = (),
) -> Result:
    """PRELUDE + ``body`` in a fresh interpreter of this setup; what it recorded."""
    code = PRELUDE + textwrap.dedent(body) + "\nprint(json.dumps(R))\n"
    command = [
        *setup.prefix,
        SYSTEM_PYTHON,
        "-I",
        "-S",
        "-B",
        "-u",
        "-c",
        code,
        json.dumps({**box.spec(), **(extra or {})}),
    ]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=box.base,
        env={**CHILD_ENV, **(env or {})},
        start_new_session=new_session,
        pass_fds=pass_fds,
    )
    assert done.returncode == 0, f"the child failed ({done.returncode}):\n{done.stderr}"
    result: Result = json.loads(done.stdout.strip().splitlines()[-1])
    setup.check_identity(*result["who"])
    return result


def assert_every_layer(result: Result) -> None:
    """On this kernel every layer is in force."""
    expected = {"seccomp", "tcp", "signals", "abstract_unix"} | ({"files"} if ABI else set())
    assert set(result["report"]["protections"]) == expected and result["report"]["abi"] == ABI


@pytest.fixture
def victim(setup: Setup) -> Iterator[subprocess.Popen[str]]:
    """A process of the same user and capabilities, with SIGTERM and SIGUSR1 blocked: a signal stays pending."""
    with start_victim(setup, CHILD_ENV) as process:
        yield process


@pytest.fixture
def signals_to_us() -> Iterator[list[int]]:
    """SIGTERM to this process is blocked and recorded instead of ending the test run."""
    got: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: got.append(signum))
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        yield got
        got += sorted(signal.sigpending())
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        signal.signal(signal.SIGTERM, previous)


def test_files_outside_the_allowed_folders_cannot_be_read_or_listed(setup: Setup, box: Box) -> None:
    needs_abi(1)
    result = run_child(
        setup,
        box,
        """
        attempt("control_secret", lambda: open(spec["secret"]).read())
        attempt("control_passwd", lambda: open("/etc/passwd").read())
        lockdown()
        attempt("secret", lambda: open(spec["secret"]).read())
        attempt("passwd", lambda: open("/etc/passwd").read())
        attempt("listdir", lambda: os.listdir(spec["outside"]))
        attempt("proc_environ", lambda: open("/proc/1/environ", "rb").read())
        attempt("allowed", lambda: open(spec["ro_file"]).read())
        """,
    )
    assert (result["control_secret"], result["control_passwd"]) == ("ok", "ok")
    assert [result[k] for k in ("secret", "passwd", "listdir", "proc_environ")] == ["EACCES"] * 4
    assert result["allowed"] == "ok"
    assert_every_layer(result)


def test_nothing_outside_the_read_write_folder_can_be_created_changed_or_removed(setup: Setup, box: Box) -> None:
    needs_abi(1)
    result = run_child(
        setup,
        box,
        """
        w = spec["outside_w"]
        attempt("control", lambda: open(w + "/control.txt", "w").write("x"))
        open(spec["rw"] + "/mine.txt", "w").write("mine")
        lockdown()
        attempt("create", lambda: open(w + "/attack.txt", "w").write("x"))
        attempt("append", lambda: open(w + "/control.txt", "a").write("y"))
        attempt("truncate", lambda: os.truncate(w + "/control.txt", 0))
        attempt("unlink", lambda: os.unlink(w + "/control.txt"))
        attempt("mkdir", lambda: os.mkdir(w + "/dir"))
        attempt("symlink", lambda: os.symlink("/etc/passwd", w + "/link"))
        attempt("write_ro", lambda: open(spec["ro_file"], "a").write("x"))
        attempt("move_out", lambda: os.rename(spec["rw"] + "/mine.txt", w + "/mine.txt"))
        attempt("hardlink_in", lambda: os.link(w + "/control.txt", spec["rw"] + "/stolen"))
        """,
    )
    assert result["control"] == "ok"
    names = ("create", "append", "truncate", "unlink", "mkdir", "symlink", "write_ro", "move_out")
    assert {name: result[name] for name in names} == dict.fromkeys(names, "EACCES")
    assert result["hardlink_in"] == "EXDEV"
    assert sorted(os.listdir(box.outside_w)) == ["control.txt"]
    assert (box.outside_w / "control.txt").read_text(encoding="utf-8") == "x"


def test_no_tcp_or_udp_reaches_a_listener_and_no_socket_opens(setup: Setup, box: Box) -> None:
    listeners = Listeners()
    result = run_child(
        setup,
        box,
        """
        import socket
        def tcp(payload):
            with socket.create_connection(("127.0.0.1", spec["tcp"]), timeout=5) as s:
                s.sendall(payload)
        def udp(payload):
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.sendto(payload, ("127.0.0.1", spec["udp"]))
        attempt("control_tcp", lambda: tcp(b"control"))
        attempt("control_udp", lambda: udp(b"control"))
        lockdown()
        attempt("tcp", lambda: tcp(b"attack"))
        attempt("udp", lambda: udp(b"attack"))
        attempt("socket6", lambda: socket.socket(socket.AF_INET6, socket.SOCK_STREAM))
        attempt("raw_socket", lambda: raw(NR["socket"], 2, 1, 0))
        attempt("unix", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
        attempt("socketpair", lambda: socket.socketpair())
        attempt("netlink", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0))
        """,
        extra=listeners.ports(),
    )
    assert listeners.received() == ([b"control"], [b"control"])
    assert (result["control_tcp"], result["control_udp"]) == ("ok", "ok")
    names = ("tcp", "udp", "socket6", "raw_socket", "unix", "socketpair", "netlink")
    assert {name: result[name] for name in names} == dict.fromkeys(names, "EPERM")


def test_no_signal_reaches_another_process_but_the_worker_may_signal_itself(
    setup: Setup, box: Box, victim: subprocess.Popen[str], signals_to_us: list[int]
) -> None:
    result = run_child(
        setup,
        box,
        """
        import signal, threading
        victim, parent = spec["victim"], spec["parent"]
        attempt("control_victim", lambda: os.kill(victim, 0))
        got = []
        signal.signal(signal.SIGUSR1, lambda *a: got.append(1))
        pidfd = os.pidfd_open(victim)
        lockdown()
        attempt("victim", lambda: os.kill(victim, signal.SIGTERM))
        attempt("parent", lambda: os.kill(parent, signal.SIGTERM))
        attempt("parent_group", lambda: os.kill(-os.getpgid(parent), signal.SIGTERM))
        attempt("everyone", lambda: os.kill(-1, signal.SIGTERM))
        attempt("tkill", lambda: raw(NR["tkill"], victim, signal.SIGTERM))
        attempt("tgkill", lambda: raw(NR["tgkill"], victim, victim, signal.SIGTERM))
        info = ctypes.create_string_buffer(128)
        attempt("sigqueue", lambda: raw(NR["rt_sigqueueinfo"], victim, signal.SIGTERM, ctypes.addressof(info)))
        attempt("pidfd", lambda: signal.pidfd_send_signal(pidfd, signal.SIGTERM))
        attempt("self", lambda: os.kill(os.getpid(), signal.SIGUSR1))
        attempt("own_group", lambda: os.kill(0, signal.SIGUSR1))
        attempt("raise", lambda: signal.raise_signal(signal.SIGUSR1))
        attempt("pthread_kill", lambda: signal.pthread_kill(threading.get_ident(), signal.SIGUSR1))
        R["got"] = len(got)
        """,
        extra={"victim": victim.pid, "parent": os.getpid()},
    )
    assert result["control_victim"] == "ok"
    refused = ("victim", "parent", "parent_group", "everyone", "tkill", "tgkill", "sigqueue", "pidfd")
    assert {name: result[name] for name in refused} == dict.fromkeys(refused, "EPERM")
    allowed = ("self", "own_group", "raise", "pthread_kill")
    assert {name: result[name] for name in allowed} == dict.fromkeys(allowed, "ok") and result["got"] == 4
    assert pending(victim.pid) == 0 and victim.poll() is None
    assert signals_to_us == []


def test_a_worker_sharing_the_graders_process_group_may_not_signal_that_group(setup: Setup, box: Box) -> None:
    result = run_child(
        setup,
        box,
        """
        R["leader"] = os.getpgrp() == os.getpid()
        lockdown(landlock_on=False)
        attempt("own_group", lambda: os.kill(0, 0))
        attempt("self", lambda: os.kill(os.getpid(), 0))
        """,
        new_session=False,
    )
    assert result["leader"] is False
    assert (result["own_group"], result["self"]) == ("EPERM", "ok")
    assert "no group" in result["report"]["signals"]


def test_no_process_or_program_can_be_started_but_threads_run(setup: Setup, box: Box) -> None:
    result = run_child(
        setup,
        box,
        """
        import subprocess, threading
        def fork():
            if os.fork() == 0:
                os._exit(0)
        def raw_fork(number, *args):
            if raw(number, *args) == 0:
                os._exit(0)
        attempt("control", fork)
        lockdown()
        attempt("fork", fork)
        attempt("subprocess", lambda: subprocess.run(["/bin/true"]))
        attempt("posix_spawn", lambda: os.posix_spawn("/bin/true", ["true"], {}))
        attempt("execv", lambda: os.execv("/bin/true", ["true"]))
        attempt("raw_fork", lambda: raw_fork(NR["fork"]))
        attempt("raw_clone", lambda: raw_fork(NR["clone"], 17, 0, 0, 0, 0))
        attempt("clone3", lambda: raw(NR["clone3"], 0, 0))
        attempt("execveat", lambda: raw(NR["execveat"], -100, 0, 0, 0, 0))
        seen = []
        t = threading.Thread(target=lambda: seen.append(threading.get_native_id()))
        t.start(); t.join()
        R["thread_ran"] = seen != [] and seen[0] != threading.get_native_id()
        """,
    )
    assert result["control"] == "ok"
    refused = ("fork", "subprocess", "posix_spawn", "execv", "raw_fork", "raw_clone", "execveat")
    assert {name: result[name] for name in refused} == dict.fromkeys(refused, "EPERM")
    assert result["clone3"] == "ENOSYS" and result["thread_ran"] is True


def test_ptrace_and_reading_another_process_memory_are_refused(
    setup: Setup, box: Box, victim: subprocess.Popen[str]
) -> None:
    result = run_child(
        setup,
        box,
        """
        victim = spec["victim"]
        def attach_detach():
            raw(NR["ptrace"], 16, victim, 0, 0)
            os.waitpid(victim, 0)
            raw(NR["ptrace"], 17, victim, 0, 0)
        buf = ctypes.create_string_buffer(64)
        iov = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 64)
        def read_memory():
            raw(NR["process_vm_readv"], victim, ctypes.addressof(iov), 1, ctypes.addressof(iov), 1, 0)
        attempt("control", attach_detach)
        lockdown()
        attempt("attach", lambda: raw(NR["ptrace"], 16, victim, 0, 0))
        attempt("seize", lambda: raw(NR["ptrace"], 0x4206, victim, 0, 0))
        attempt("traceme", lambda: raw(NR["ptrace"], 0, 0, 0, 0))
        attempt("vm_readv", read_memory)
        """,
        extra={"victim": victim.pid},
    )
    assert result["control"] == "ok"
    assert [result[name] for name in ("attach", "seize", "traceme", "vm_readv")] == ["EPERM"] * 4
    assert victim.poll() is None


def test_x32_and_i386_system_calls_are_refused(setup: Setup, box: Box) -> None:
    if os.uname().machine != "x86_64":
        pytest.skip("x32 and int 0x80 exist only on x86_64")
    result = run_child(
        setup,
        box,
        """
        import mmap
        attempt("x32_control", lambda: raw(0x40000000 | 39))
        code = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        code.write(bytes([0xB8, 20, 0, 0, 0, 0xCD, 0x80, 0xC3]))  # mov eax, 20; int 0x80; ret
        i386_getpid = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(code)))
        R["i386_control"] = i386_getpid() == os.getpid()
        lockdown()
        attempt("x32", lambda: raw(0x40000000 | 39))
        R["i386"] = i386_getpid()
        """,
    )
    assert result["x32_control"] in ("ENOSYS", "ok") and result["x32"] == "EPERM"
    if not result["i386_control"]:
        pytest.skip("this kernel has no i386 emulation for int 0x80")
    assert result["i386"] == -errno.EPERM


KERNEL_SURFACE = [  # name, arguments chosen so the call would be harmless if it ran
    ("unshare", (0x10000000,)),
    ("setns", (-1, 0)),
    ("mount", (0, 0, 0, 0, 0)),
    ("umount2", (0, 0)),
    ("chroot", (0,)),
    ("pivot_root", (0, 0)),
    ("bpf", (-1, 0, 0)),
    ("perf_event_open", (0, 0, -1, -1, 0)),
    ("userfaultfd", (-1,)),
    ("io_uring_setup", (0, 0)),
    ("keyctl", (-1, 0, 0, 0, 0)),
    ("add_key", (0, 0, 0, 0, 0)),
    ("init_module", (0, 0, 0)),
    ("kexec_load", (0, 0, 0, -1)),
    ("open_by_handle_at", (-1, 0, 0)),
    ("setpgid", (0, 0)),
    ("fsopen", (0, 0)),
    ("open_tree", (-1, 0, 0)),
]


def test_namespaces_mounts_and_kernel_interfaces_are_refused(setup: Setup, box: Box) -> None:
    result = run_child(
        setup,
        box,
        """
        for name, args in spec["cases"]:
            attempt("control_" + name, lambda: raw(NR[name], *args) if name != "unshare" else 0)
        lockdown()
        for name, args in spec["cases"]:
            attempt(name, lambda: raw(NR[name], *args))
        """,
        extra={"cases": KERNEL_SURFACE},
    )
    assert {name: result[name] for name, _ in KERNEL_SURFACE} == {name: "EPERM" for name, _ in KERNEL_SURFACE}
    # Before the filter these failed otherwise: the filter is what refuses them.
    assert all(result["control_" + name] != "EPERM" for name in ("setns", "keyctl", "io_uring_setup", "open_tree"))


def test_no_set_uid_bits_owners_attributes_or_devices_but_plain_chmod_and_fifos(setup: Setup, box: Box) -> None:
    result = run_child(
        setup,
        box,
        """
        import stat
        f = spec["rw"] + "/file"
        open(f, "w").close()
        lockdown()
        attempt("chmod_plain", lambda: os.chmod(f, 0o600))
        attempt("chmod_suid", lambda: os.chmod(f, 0o4755))
        attempt("chmod_sgid_fd", lambda: os.fchmod(os.open(f, os.O_RDONLY), 0o2755))
        attempt("chown", lambda: os.chown(f, os.getuid(), os.getgid()))
        attempt("setxattr", lambda: os.setxattr(f, "user.test", b"1"))
        attempt("mknod_char", lambda: os.mknod(spec["rw"] + "/null", stat.S_IFCHR | 0o666, os.makedev(1, 3)))
        attempt("mkfifo", lambda: os.mkfifo(spec["rw"] + "/fifo"))
        """,
    )
    assert (result["chmod_plain"], result["mkfifo"]) == ("ok", "ok")
    refused = ("chmod_suid", "chmod_sgid_fd", "chown", "setxattr", "mknod_char")
    assert {name: result[name] for name in refused} == dict.fromkeys(refused, "EPERM")
    assert os.stat(box.rw / "file").st_mode & 0o7777 == 0o600


def test_what_a_submission_needs_still_works_once_confined(setup: Setup, box: Box) -> None:
    result = run_child(
        setup,
        box,
        """
        lockdown()
        attempt("read_ro", lambda: open(spec["ro_file"]).read())
        attempt("list_ro", lambda: os.listdir(spec["ro"]))
        attempt("write_rw", lambda: open(spec["rw"] + "/out.txt", "w").write("result"))
        attempt("rename_rw", lambda: os.rename(spec["rw"] + "/out.txt", spec["rw"] + "/o2.txt"))
        attempt("mkdir_rw", lambda: os.makedirs(spec["rw"] + "/a/b"))
        attempt("rmdir_rw", lambda: os.removedirs(spec["rw"] + "/a/b"))
        attempt("devnull", lambda: open(os.devnull, "w").write("x"))
        import json, hashlib, tempfile, threading
        def use_tempfile():
            with tempfile.TemporaryDirectory() as d:
                with open(os.path.join(d, "x.json"), "w") as fh:
                    json.dump({"h": hashlib.sha256(b"x").hexdigest()}, fh)
        attempt("tempfile_json_hashlib", use_tempfile)
        def imports():
            import decimal, sqlite3, zoneinfo, email.message, xml.etree.ElementTree, unittest, statistics
            import fractions, dataclasses, typing, csv, random, secrets, bz2, lzma, zlib, asyncio, datetime
            import concurrent.futures
            assert sqlite3.connect(":memory:").execute("select 2*3").fetchone() == (6,)
            assert lzma.decompress(lzma.compress(b"x")) == b"x" and len(secrets.token_hex(8)) == 16
        attempt("imports", imports)
        attempt("urandom", lambda: os.urandom(16))
        out = []
        t = threading.Thread(target=lambda: out.append(sum(range(10))))
        t.start(); t.join()
        R["thread"] = out == [45]
        """,
        env={"TMPDIR": str(box.rw)},
    )
    names = ("read_ro", "list_ro", "write_rw", "rename_rw", "mkdir_rw", "rmdir_rw", "devnull", "urandom")
    assert {name: result[name] for name in (*names, "tempfile_json_hashlib", "imports")} == dict.fromkeys(
        (*names, "tempfile_json_hashlib", "imports"), "ok"
    )
    assert result["thread"] is True and (box.rw / "o2.txt").read_text(encoding="utf-8") == "result"
    assert_every_layer(result)


def test_the_inherited_pipes_of_the_workers_channel_keep_working(setup: Setup, box: Box) -> None:
    request_read, request_write = os.pipe()
    reply_read, reply_write = os.pipe()
    os.write(request_write, b'{"x": 7}\n')
    os.close(request_write)
    result = run_child(
        setup,
        box,
        """
        lockdown()
        with open(spec["req"], "rb", closefd=False) as req, open(spec["rep"], "wb", closefd=False) as rep:
            rep.write(json.dumps({"y": json.loads(req.readline())["x"] ** 2}).encode() + b"\\n")
        """,
        extra={"req": request_read, "rep": reply_write},
        pass_fds=(request_read, reply_write),
    )
    os.close(request_read)
    os.close(reply_write)
    with os.fdopen(reply_read, "rb") as replies:
        assert json.loads(replies.readline()) == {"y": 49}
    assert_every_layer(result)


def test_a_hidden_folder_beneath_a_readable_one_stays_unreadable(setup: Setup, box: Box) -> None:
    """The harness installed inside the interpreter's own tree: its files stay out, its siblings in."""
    needs_abi(1)
    (box.ro / "harness").mkdir(mode=0o755)
    (box.ro / "harness" / "dedup.py").write_text("def confirm(): ...\n", encoding="utf-8")
    result = run_child(
        setup,
        box,
        """
        lockdown(hidden=[spec["ro"] + "/harness"])
        attempt("hidden", lambda: open(spec["ro"] + "/harness/dedup.py").read())
        attempt("sibling", lambda: open(spec["ro_file"]).read())
        attempt("listing", lambda: os.listdir(spec["ro"]))
        """,
    )
    assert (result["hidden"], result["sibling"], result["listing"]) == ("EACCES", "ok", "ok")


def test_confinement_refuses_with_a_thread_running_and_leaves_nothing_half_done(setup: Setup, box: Box) -> None:
    result = run_child(
        setup,
        box,
        """
        import threading
        stop = threading.Event()
        t = threading.Thread(target=stop.wait); t.start()
        try:
            confine.confine()
        except confine.ConfinementError as exc:
            R["error"] = str(exc)
        stop.set(); t.join()
        attempt("still_free", lambda: open("/etc/passwd").read())
        """,
    )
    assert "thread" in result["error"] and result["still_free"] == "ok"


def test_landlock_alone_stops_tcp_signals_and_abstract_sockets_but_not_udp(
    setup: Setup, box: Box, victim: subprocess.Popen[str]
) -> None:
    """Without seccomp: Landlock denies TCP (EACCES) and IPC across its domain (EPERM); UDP needs seccomp."""
    needs_abi(6)
    listeners = Listeners()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    name = f"\0dedup-harness-confine-{os.getpid()}-{setup.name}"
    server.bind(name)
    server.listen()
    result = run_child(
        setup,
        box,
        """
        import socket, signal
        lockdown(seccomp_on=False)
        def tcp():
            with socket.create_connection(("127.0.0.1", spec["tcp"]), timeout=5) as s:
                s.sendall(b"attack")
        attempt("connect", tcp)
        attempt("bind", lambda: socket.socket().bind(("127.0.0.1", 0)))
        def abstract():
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.connect(spec["name"])
        attempt("abstract", abstract)
        attempt("kill", lambda: os.kill(spec["victim"], signal.SIGTERM))
        attempt("read", lambda: open(spec["secret"]).read())
        """,
        extra={**listeners.ports(), "name": name, "victim": victim.pid},
    )
    server.close()
    assert listeners.received() == ([], [])
    assert (result["connect"], result["bind"], result["read"]) == ("EACCES", "EACCES", "EACCES")
    assert (result["abstract"], result["kill"]) == ("EPERM", "EPERM")
    assert pending(victim.pid) == 0 and "seccomp" not in result["report"]["protections"]


def test_a_kernel_without_landlock_gets_seccomp_alone(setup: Setup, box: Box) -> None:
    """Simulated: the ABI probe answers 0. Files stay open, the report says so; sockets and forks are refused."""
    result = run_child(
        setup,
        box,
        """
        from grading_worker import landlock
        landlock.abi = lambda: 0
        import socket
        lockdown()
        attempt("read_outside", lambda: open(spec["secret"]).read())
        attempt("socket", lambda: socket.socket())
        attempt("fork", os.fork)
        """,
    )
    report = result["report"]
    assert report["abi"] == 0 and report["files"] == "NOT restricted (Landlock unavailable)"
    assert set(report["protections"]) == {"seccomp", "tcp", "signals", "abstract_unix"}
    assert (result["read_outside"], result["socket"], result["fork"]) == ("ok", "EPERM", "EPERM")


def test_requiring_landlock_where_there_is_none_fails_closed(setup: Setup, box: Box) -> None:
    result = run_child(
        setup,
        box,
        """
        from grading_worker import landlock
        landlock.abi = lambda: 0
        try:
            lockdown(require_landlock=True)
        except confine.ConfinementError as exc:
            R["error"] = str(exc)
        attempt("still_free", lambda: open(spec["secret"]).read())
        """,
    )
    assert "required" in result["error"] and result["still_free"] == "ok"
