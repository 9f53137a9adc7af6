"""In the seccomp tier the grader decides every file call the worker makes: beneath its folders, as the worker.

A child (``/usr/bin/python3 -I -S`` with a copy of the worker package, as a uid of its own, as a root
grader's worker runs) confines itself as the seccomp tier's worker does: no Landlock, the filter's
listener handed to this process with its rules (a read-only folder, its home read-write, a hidden
folder inside the read-only one). Then it opens, makes, renames and removes files, inside its folders
and out, through links and "..", and records each errno. This process answers as the grader does
(``grade/file_decisions.py``): what lies beneath the rules is done, as the child's uid; the rest is
EACCES, and listed (not a read of the system's files). ``test_batch_attacks`` grades attacks
through the grader in every setup.
"""

from __future__ import annotations

import os
import shutil
import stat
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from confined_child import run_confined

from dedup_harness.grade import file_decisions
from dedup_harness.grade.kernel_refusals import Decider, Refusal
from dedup_harness.grade.worker import landlock
from dedup_harness.grade.worker.categories import FILES
from machine_setups import missing_for_setups, public_folder

WORKER = Path(landlock.__file__).resolve().parent
UID = 200_000_000 + 16 * 3 + 15  # a worker's uid of a grader that never runs (pid 3)
FILE_BYTES = 1 << 20

CHILD = """
import errno, json, os, sys
spec = json.loads(sys.argv[1])
sys.path.insert(0, spec["lib"])
from grading_worker import confine
report = confine.confine(
    [spec["lib"], "/proc/self"], [spec["home"]], hidden=[spec["hidden"]], landlock_on=False, report_to=spec["fd"],
    grader_decides_files=True,
)
R = {"files": report.as_dict()["files"]}
def attempt(name, action):
    try:
        got = action()
        R[name] = "ok" if got is None or isinstance(got, int) else got
    except OSError as error:
        R[name] = errno.errorcode[error.errno]
home, lib, original = spec["home"], spec["lib"], spec["original"]
print("ready", flush=True)
sys.stdin.readline()
"""

BODY = """
def read(path):
    with open(path, encoding="utf-8") as f:
        return "read: " + f.read()
def write(path, text="x"):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
attempt("read its code", lambda: read(lib + "/code.py"))
attempt("write its code", lambda: write(lib + "/code.py"))
attempt("make a file beside its code", lambda: write(lib + "/new.py"))
attempt("read the hidden folder", lambda: read(spec["hidden"] + "/secret.txt"))
attempt("read a classmate's original", lambda: read(original))
attempt("list the classmate's folder", lambda: os.listdir(os.path.dirname(original)))
attempt("read a system file", lambda: read("/etc/hostname"))
attempt("write /tmp", lambda: write(spec["tmp"] + "/left-behind"))
attempt("make a folder in /tmp", lambda: os.mkdir(spec["tmp"] + "/left-folder"))
attempt("write a spool in its home", lambda: write(home + "/spool.jsonl", "{}"))
attempt("read it back", lambda: read(home + "/spool.jsonl"))
attempt("make a folder", lambda: os.mkdir(home + "/part"))
attempt("rename into it", lambda: os.rename(home + "/spool.jsonl", home + "/part/spool.jsonl"))
attempt("link it", lambda: os.link(home + "/part/spool.jsonl", home + "/part/again.jsonl"))
attempt("rename out of its folders", lambda: os.rename(home + "/part/again.jsonl", spec["tmp"] + "/again"))
attempt("owner", lambda: str(os.stat(home + "/part/spool.jsonl").st_uid))
attempt("a link to the original", lambda: os.symlink(original, home + "/to-original"))
attempt("read through the link", lambda: read(home + "/to-original"))
attempt("dot-dot out of its home", lambda: read(home + "/part/../../class/alice/dedup.py"))
os.chdir(home)
attempt("a relative path", lambda: read("part/spool.jsonl"))
attempt("a relative path out", lambda: read("../class/alice/dedup.py"))
folder = os.open(home + "/part", os.O_RDONLY | os.O_DIRECTORY)
attempt("open beside a folder descriptor", lambda: os.close(os.open("spool.jsonl", os.O_RDONLY, dir_fd=folder)))
attempt("a FIFO", lambda: os.mkfifo(home + "/fifo"))
attempt("a device", lambda: os.mknod(home + "/zero", 0o600 | 0o020000, os.makedev(1, 5)))
attempt("truncate past the file limit", lambda: os.truncate(home + "/part/spool.jsonl", spec["limit"] + 1))
attempt("truncate within it", lambda: os.truncate(home + "/part/spool.jsonl", 10))
attempt("its own /proc", lambda: read("/proc/self/comm").strip())
attempt("the grader's /proc", lambda: read(f"/proc/{os.getppid()}/cmdline"))
attempt("remove a file", lambda: os.unlink(home + "/part/again.jsonl"))
attempt("remove a file outside", lambda: os.unlink(original))
attempt("remove what is left", lambda: [os.unlink(home + "/part/spool.jsonl"), os.rmdir(home + "/part")] and None)
"""


@pytest.fixture
def folders() -> Iterator[dict[str, Path]]:
    """A read-only folder with the worker package, a hidden folder in it, a home, a class folder and a /tmp."""
    reason = missing_for_setups()
    if reason is not None:
        pytest.skip(reason)
    if not file_decisions.works_here():
        pytest.skip("the grader decides file calls only on Linux 5.14 or later")
    base = public_folder("dedup-harness-decisions-")
    try:
        lib, home, classmate, tmp = base / "lib", base / "home", base / "class" / "alice", base / "tmp"
        shutil.copytree(WORKER, lib / "grading_worker", ignore=shutil.ignore_patterns("__pycache__"))
        (lib / "code.py").write_text("print('ours')\n", encoding="utf-8")
        (lib / "hidden").mkdir()
        (lib / "hidden" / "secret.txt").write_text("the reference", encoding="utf-8")
        classmate.mkdir(parents=True)
        (classmate / "dedup.py").write_text("# alice's\n", encoding="utf-8")
        home.mkdir()
        os.chown(home, UID, UID)
        tmp.mkdir(mode=0o1777)
        tmp.chmod(0o1777)
        for path in (base, lib, *lib.rglob("*"), base / "class", classmate, classmate / "dedup.py"):
            path.chmod(0o755 if path.is_dir() else 0o644)
        yield {"lib": lib, "home": home, "original": classmate / "dedup.py", "tmp": tmp, "hidden": lib / "hidden"}
    finally:
        shutil.rmtree(base, ignore_errors=True)


def decided(folders: dict[str, Path]) -> tuple[dict[str, str], list[Refusal]]:
    """The child's calls, as the grader decided them: what each came to, and the refusals listed."""
    spec = {name: str(path) for name, path in folders.items()} | {"limit": FILE_BYTES}
    code = CHILD + textwrap.dedent(BODY) + "\nprint(json.dumps(R))\n"
    prefix = ["setpriv", f"--reuid={UID}", f"--regid={UID}", "--clear-groups"]
    recorded, refusals, _ = run_confined(prefix, code, spec, decider=lambda pid: Decider(pid, UID, FILE_BYTES))
    return recorded, refusals


def test_what_lies_beneath_its_folders_is_done_as_the_worker_and_the_rest_refused(folders: dict[str, Path]) -> None:
    got, _ = decided(folders)
    assert got.pop("files").endswith("(the grader, each call a seccomp notification)")
    assert got == {
        "read its code": "read: print('ours')\n",
        "write its code": "EACCES",
        "make a file beside its code": "EACCES",
        "read the hidden folder": "EACCES",
        "read a classmate's original": "EACCES",
        "list the classmate's folder": "EACCES",
        "read a system file": "EACCES",
        "write /tmp": "EACCES",
        "make a folder in /tmp": "EACCES",
        "write a spool in its home": "ok",
        "read it back": "read: {}",
        "make a folder": "ok",
        "rename into it": "ok",
        "link it": "ok",
        "rename out of its folders": "EACCES",
        "owner": str(UID),
        "a link to the original": "ok",  # a link may say anything: what it leads to is never opened
        "read through the link": "EACCES",
        "dot-dot out of its home": "EACCES",
        "a relative path": "read: {}",
        "a relative path out": "EACCES",
        "open beside a folder descriptor": "ok",
        "a FIFO": "ok",
        "a device": "EPERM",
        "truncate past the file limit": "EFBIG",
        "truncate within it": "ok",
        "its own /proc": "read: python3",
        "the grader's /proc": "EACCES",
        "remove a file": "ok",
        "remove a file outside": "EACCES",
        "remove what is left": "ok",
    }
    assert sorted(os.listdir(folders["tmp"])) == []
    assert (folders["original"]).read_text(encoding="utf-8") == "# alice's\n"
    assert stat.S_ISFIFO(os.lstat(folders["home"] / "fifo").st_mode)


def test_each_refusal_is_listed_as_a_file_refusal_but_a_read_of_the_systems_files(folders: dict[str, Path]) -> None:
    _, refusals = decided(folders)
    words = [refusal.words for refusal in refusals]
    assert all(refusal.category == FILES for refusal in refusals)
    assert f"the grader refused openat() of {folders['original']}: outside the worker's folders" in words
    assert f"the grader refused mkdir() of {folders['tmp']}/left-folder: outside the worker's folders" in words
    assert not [line for line in words if "/etc/" in line or "/proc/" in line]
