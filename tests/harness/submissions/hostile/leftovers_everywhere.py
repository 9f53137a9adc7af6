# base: reference
# Tries: to leave something behind that outlives the batch, for a later one to read. At its first
# exact_dedup call it writes a file into every world-writable folder it can reach (/tmp, /var/tmp,
# /dev/shm, /run/lock, and the nested world-writable folder the test names in NESTED), makes System V
# shared memory (five segments of 64 MB, one of them written), a message queue and a semaphore set
# under keys made from TOKEN, and a POSIX shared memory file and message queue; it removes none of them.
# Every name and key carries TOKEN (the test's), so that what it finds afterwards is this sample's and
# no one else's on the machine.
# Expected verdict: full marks (its functions are the reference's); every line of its log says
# "blocked"; once the batch is over, nothing named with TOKEN is left in any world-writable folder,
# in System V IPC or in /dev/mqueue.
import ctypes
import errno
import os

TOKEN = None  # the test puts a hexadecimal token of its own here
NESTED = None  # and a world-writable folder below /tmp here
_IPC_CREAT, _IPC_EXCL = 0o1000, 0o2000
_tried = False
_reference_exact_dedup = exact_dedup  # noqa: F821 (the reference's, defined above this part)


def _why(error):
    return errno.errorcode.get(getattr(error, "errno", None) or 0, type(error).__name__)


def _say(what, action):
    try:
        action()
        print(f"leftovers: {what}: LEFT", flush=True)
    except Exception as error:
        print(f"leftovers: {what}: blocked ({_why(error)})", flush=True)


def _file(folder):
    def write():
        with open(os.path.join(folder, f"dedup-harness-leftover-{TOKEN}"), "wb") as kept:
            kept.write(b"a document a later batch could read\n")

    return write


def _libc_call(name, *args):
    function = getattr(ctypes.CDLL(None, use_errno=True), name)
    result = function(*args)
    if result == -1:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number))
    return result


def _key(n):
    return ctypes.c_int(int(TOKEN[:7], 16) * 16 + n)


def _segments():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    for n in range(5):
        ident = _libc_call("shmget", _key(n), ctypes.c_size_t(64 << 20), _IPC_CREAT | _IPC_EXCL | 0o666)
        if n == 0:
            base = libc.shmat(ident, None, 0)
            ctypes.memmove(base, b"a document a later batch could read", 35)
            libc.shmdt(ctypes.c_void_p(base))


def _queue():
    _libc_call("msgget", _key(5), _IPC_CREAT | _IPC_EXCL | 0o666)


def _semaphores():
    _libc_call("semget", _key(6), 4, _IPC_CREAT | _IPC_EXCL | 0o666)


def _posix_queue():
    _libc_call("mq_open", f"/dedup-harness-leftover-{TOKEN}".encode(), os.O_CREAT | os.O_RDWR, 0o666, None)


def _leave():
    for folder in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", NESTED):
        _say(f"a file in {folder}", _file(folder))
    _say("System V shared memory", _segments)
    _say("a System V message queue", _queue)
    _say("a System V semaphore set", _semaphores)
    _say("a POSIX message queue", _posix_queue)


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    global _tried
    if not _tried:
        _tried = True
        _leave()
    return _reference_exact_dedup(docs, bloom_bytes_per_item, spool_dir=spool_dir, stats=stats)
