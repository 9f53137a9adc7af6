# base: reference
# Tries: to read the code of the submission graded beside it. At its first exact_dedup call it lists the
# temp folders, and looks (for a few seconds, until it finds one) for another grading session beside its
# own: it lists each and reads the submission in it (code/root/corpus/dedup.py); then it tries, through
# /proc, the working directory of every process whose is such a session's, and the command line of the
# grade command, which names every submission's original; and it reads the originals themselves, in the
# class folder the test names in CLASS (world-readable, as a class folder is). (Only beside its own: on
# a machine shared with other graders, what it finds elsewhere is not a classmate's.)
# Expected verdict: full marks (its functions are the reference's); every line of its log says
# "blocked" or "nothing", none "READ"; the submission graded beside it keeps full marks.
import errno
import os
import time

_SESSION = "dedup-harness-session-"
_own = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_beside = os.path.dirname(_own)
_places = sorted({"/tmp", "/var/tmp", "/dev/shm", _beside})
_looked = False
_reference_exact_dedup = exact_dedup  # noqa: F821 (the reference's, defined above this part)
CLASS = None  # the test puts the class folder here: one folder per submission, each holding its dedup.py


def _why(error):
    return errno.errorcode.get(getattr(error, "errno", None) or 0, type(error).__name__)


def _others():
    """Other sessions in every place it may list; what listing each place gave."""
    found, listed = [], {}
    for place in _places:
        try:
            names = os.listdir(place)
        except OSError as error:
            listed[place] = f"blocked ({_why(error)})"
            continue
        listed[place] = "listed"
        if place == _beside:
            found += [os.path.join(place, n) for n in names if n.startswith(_SESSION)]
    return [path for path in found if os.path.realpath(path) != os.path.realpath(_own)], listed


def _read(session):
    try:
        inside = os.listdir(session)
        said = f"listed ({len(inside)} entries)"
    except OSError as error:
        said = f"list blocked ({_why(error)})"
    try:
        with open(os.path.join(session, "code", "root", "corpus", "dedup.py"), encoding="utf-8") as source:
            return f"{said}; READ its code ({len(source.read())} characters)"
    except OSError as error:
        return f"{said}; read blocked ({_why(error)})"


def _through_proc():
    """Every other process's working directory (a worker's is its session's home), and the grade command's
    command line, which names every submission graded."""
    lines = []
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
    except OSError as error:
        return [f"/proc: blocked ({_why(error)})"]
    for pid in pids:
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            cwd = ""
        if cwd.startswith(os.path.join(_beside, _SESSION)) and not cwd.startswith(_own):
            try:
                lines.append(f"/proc/{pid}/cwd {cwd}: READ ({len(os.listdir(f'/proc/{pid}/cwd'))} entries)")
            except OSError as error:
                lines.append(f"/proc/{pid}/cwd {cwd}: blocked ({_why(error)})")
        lines += _originals_named_by(pid)
    return lines or ["/proc: no other session's process in reach"]


def _originals_named_by(pid):
    """What the command line of a grade command names: every original, each read."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as command:
            words = [w.decode("utf-8", "replace") for w in command.read().split(b"\0")]
    except OSError:
        return []
    if "grade" not in words:
        return []
    return [_read_original(word) for word in words if CLASS and word.startswith(CLASS)]


def _read_original(path):
    """A submission's original, as the class folder holds it (a folder, or its dedup.py)."""
    target = os.path.join(path, "dedup.py") if not path.endswith(".py") else path
    try:
        with open(target, encoding="utf-8") as source:
            return f"original {target}: READ ({len(source.read())} characters)"
    except OSError as error:
        return f"original {target}: blocked ({_why(error)})"


def _the_class():
    """The class folder listed, and every other submission's original in it read."""
    try:
        names = sorted(os.listdir(CLASS))
        said = [f"the class folder: listed ({len(names)} entries)"]
    except OSError as error:
        names, said = ["hostile", "correct"], [f"the class folder: blocked ({_why(error)})"]
    return said + [_read_original(os.path.join(CLASS, name)) for name in names if name != "outputs"]


def _look():
    deadline = time.monotonic() + 6
    others, listed = _others()
    while not others and time.monotonic() < deadline and listed[_beside] == "listed":
        time.sleep(0.1)
        others, listed = _others()
    for place, said in listed.items():
        print(f"classmates: {place}: {said}", flush=True)
    print(f"classmates: {len(others)} other session(s) found", flush=True)
    for session in others:
        print(f"classmates: {os.path.basename(session)}: {_read(session)}", flush=True)
    for line in _through_proc():
        print(f"classmates: {line}", flush=True)
    for line in _the_class() if CLASS else []:
        print(f"classmates: {line}", flush=True)


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    global _looked
    if not _looked:
        _looked = True
        _look()
    return _reference_exact_dedup(docs, bloom_bytes_per_item, spool_dir=spool_dir, stats=stats)
