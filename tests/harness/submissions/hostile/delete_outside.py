# base: reference
# Tries: to delete files outside its scratch directory: the grader's victims in /tmp, the
# harness's folders, its own worker script, everything it can name from its working directory up.
# Expected verdict: nothing outside its scratch is gone; "tried to delete" attempts are reported.
import glob
import os
import shutil

_targets = glob.glob("/tmp/dedup-harness-victim-*") + ["/work", "/root", "/usr/lib/python3.11/json"]
_targets += [os.path.abspath(os.path.join(os.getcwd(), *[".."] * n)) for n in range(1, 4)]
for _target in _targets:
    try:
        _paths = [os.path.join(_target, name) for name in sorted(os.listdir(_target))[:50]]
    except OSError:
        _paths = []
    for _path in [*_paths, _target]:
        try:
            if os.path.isdir(_path) and not os.path.islink(_path):
                shutil.rmtree(_path)
            else:
                os.remove(_path)
        except OSError:
            pass
