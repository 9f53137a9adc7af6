# base: reference
# Tries: to forge a pass of the memory check by holding the documents where the resident size does not
# show them: in an anonymous memory file (os.memfd_create), in System V shared memory (shmget through
# libc) or in POSIX shared memory (a file under /dev/shm), whichever the test puts in HOLD_IN. The stage
# spools as the reference does and writes every document's text there until its output is over.
# Expected verdict: the grader refuses all three in every tier: the memory check crashes on the
# refusal (PermissionError), and its feedback says what the grader refuses; every other check passes.
import ctypes
import os

_reference_exact_dedup = exact_dedup  # noqa: F821 (the reference's, defined above this part)
_IPC_PRIVATE, _IPC_CREAT, _IPC_RMID = 0, 0o1000, 0
HOLD_IN = None  # the test puts "memfd", "sysv" or "posix" here


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


def _store():
    if HOLD_IN == "sysv":
        return _Segment(64 << 20)
    return _File(_memfd() if HOLD_IN == "memfd" else _posix_shm())


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    store = _store()

    def keeping(source):
        for doc in source:
            store.write(doc.text.encode("utf-8"))
            yield doc

    def run():
        try:
            yield from _reference_exact_dedup(keeping(docs), bloom_bytes_per_item, spool_dir=spool_dir, stats=stats)
        finally:
            store.close()

    return run()
