# base: reference
# Does: names its spool after the user and looks at the home folder at import, as tools often do:
# getpass.getuser(), Path.home() and os.path.expanduser("~"). The worker runs under the rulebook's user
# name with its own folder as home, in grade as in check.
# Expected verdict: full marks, from check and from grade in every tier.
import getpass
import os
import pathlib
import tempfile

PREFIX = f"spool-{getpass.getuser()}-"
HOME = pathlib.Path.home()
assert os.path.expanduser("~") == str(HOME) and HOME.is_dir()

_reference_exact_dedup = exact_dedup  # noqa: F821 (the reference's, defined above this part)


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    with tempfile.NamedTemporaryFile(prefix=PREFIX, dir=spool_dir):
        pass  # the name it would give its spool: the user's
    return _reference_exact_dedup(docs, bloom_bytes_per_item, spool_dir=spool_dir, stats=stats)
