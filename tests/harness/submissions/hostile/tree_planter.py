# base: reference
# Tries: to stop grading on the whole machine through what it leaves behind. In every spool_dir a
# check hands it, it plants folders it makes unreadable and unwritable, names with a newline, bytes
# that are not UTF-8 and a leading dash, a FIFO, a socket file, a hard link and symlinks out of the
# tree (to / and to a sentinel the test names in SENTINEL); in the first, also a chain of 1,500
# nested folders made through folder descriptors (shutil.rmtree and os.walk recurse once per level,
# past Python's 1,000 frames). Then it runs the reference's stage.
# Expected verdict: graded (its only fault is what it leaves in the spool: the spool check fails);
# the session is removed entirely, the sentinel untouched; the rest of the batch is graded, the
# grader exits 0 and every later command (--version too) works.
import os
import stat

SENTINEL = "/nonexistent"  # the test puts a folder of its own here
DEPTH = 1500
_planted = []
_reference_exact_dedup = exact_dedup  # noqa: F821 (the reference's, defined above this part)


def _attempt(action):
    try:
        action()
    except OSError as error:
        print("planting:", type(error).__name__, error)


def _chain(fd):
    for _ in range(DEPTH):
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)


def _plant(folder):
    top = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    if not _planted:  # the chain once per worker: removing it from a journalled disk takes seconds
        _planted.append(folder)
        _chain(os.dup(top))
    for name in ["new\nline", b"not-utf8-\xff\xfe", "-rf", "--help"]:
        _attempt(lambda name=name: os.mkdir(name, dir_fd=top))
    _attempt(lambda: os.mkfifo("fifo", dir_fd=top))
    _attempt(lambda: os.mknod("socket", stat.S_IFSOCK | 0o600, dir_fd=top))
    with open(os.path.join(folder, "-rf", "file"), "w") as file:
        file.write("x")
    _attempt(lambda: os.link("-rf/file", "hard link", src_dir_fd=top, dst_dir_fd=top))
    _attempt(lambda: os.symlink("/", "to the root", dir_fd=top))
    _attempt(lambda: os.symlink(SENTINEL, "to the sentinel", dir_fd=top))
    for name, mode in (("unreadable", 0o000), ("unwritable", 0o500)):
        os.makedirs(os.path.join(folder, name, "inner"))
        with open(os.path.join(folder, name, "inner", "file"), "w") as file:
            file.write("x")
        os.chmod(os.path.join(folder, name, "inner"), mode)
        os.chmod(os.path.join(folder, name), mode)
    os.close(top)


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    if spool_dir is not None:
        _plant(str(spool_dir))
    return _reference_exact_dedup(docs, bloom_bytes_per_item, spool_dir=spool_dir, stats=stats)
