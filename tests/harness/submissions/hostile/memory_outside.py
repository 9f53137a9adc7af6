# base: reference
# Tries: to forge a pass of the memory check by holding the documents where the resident size does not
# show them: in an anonymous memory file (os.memfd_create), in System V shared memory (shmget through
# libc, attached only while a document is copied in) or in POSIX shared memory (a file under /dev/shm),
# the first of them it can make (the test may name one in HOLD_IN). The stage spools as the reference
# does and writes every long document's text there (only the memory check's are long) until its output
# is over; it says which it tried.
# Expected verdict: the grader refuses all three in every tier: the memory check crashes on the last
# refusal (PermissionError), and its feedback says what the grader refuses; every other check passes.
import ctypes
import errno
import os

_reference_exact_dedup = exact_dedup  # noqa: F821 (the reference's, defined above this part)
_IPC_PRIVATE, _IPC_CREAT, _IPC_RMID = 0, 0o1000, 0
HOLD_IN = None  # the test may put "memfd", "sysv" or "posix" here: only that one is tried


def _memfd():
    return os.memfd_create("held-documents")


def _posix_shm():
    path = f"/dev/shm/held-documents-{os.getpid()}"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    os.unlink(path)
    return fd


class _Segment:
    """A System V segment, attached only while a document is copied in (detached, it is in no process)."""

    def __init__(self, size):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.shmat.restype = ctypes.c_void_p
        self.ident = self.libc.shmget(_IPC_PRIVATE, ctypes.c_size_t(size), _IPC_CREAT | 0o600)
        if self.ident < 0:
            error = ctypes.get_errno()
            raise OSError(error, os.strerror(error))
        self.used = 0

    def write(self, data):
        base = self.libc.shmat(self.ident, None, 0)
        ctypes.memmove(base + self.used, data, len(data))
        self.libc.shmdt(ctypes.c_void_p(base))
        self.used += len(data)

    def close(self):
        self.libc.shmctl(self.ident, _IPC_RMID, None)


class _File:
    def __init__(self, fd):
        self.fd = fd

    def write(self, data):
        os.write(self.fd, data)

    def close(self):
        os.close(self.fd)


_STORES = {"memfd": lambda: _File(_memfd()), "sysv": lambda: _Segment(64 << 20), "posix": lambda: _File(_posix_shm())}
_said = set()
_LONG = 10_000  # characters of a document worth hiding: only the memory check's are this long


def _say(line):
    if line not in _said:
        _said.add(line)
        print(line, flush=True)


def _store():
    """The first store that can be made; the last refusal raised when none can."""
    refused = None
    for name, make in _STORES.items():
        if HOLD_IN not in (None, name):
            continue
        try:
            store = make()
        except OSError as error:
            refused = error
            _say(f"memory outside: {name}: blocked ({errno.errorcode.get(error.errno, error.errno)})")
            continue
        _say(f"memory outside: {name}: HELD")
        return store
    raise refused


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    stores = []

    def keeping(source):
        for doc in source:
            if len(doc.text) > _LONG:  # only a long document is worth hiding
                stores[:] = stores or [_store()]
                stores[0].write(doc.text.encode("utf-8"))
            yield doc

    def run():
        try:
            yield from _reference_exact_dedup(keeping(docs), bloom_bytes_per_item, spool_dir=spool_dir, stats=stats)
        finally:
            for store in stores:
                store.close()

    return run()
