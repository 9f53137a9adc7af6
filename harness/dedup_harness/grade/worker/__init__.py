"""The grading worker: a package of its own that runs inside the sandbox, standard library only.

The sandbox copies this folder into the session as ``PACKAGE`` and starts it with
``python3 -I -S -B -u -c BOOTSTRAP CODE_DIR ROOT REQUEST_FD REPLY_FD SETTINGS``: CODE_DIR is the folder
that holds the copy; SETTINGS (JSON) says how the worker confines itself before anything else. Its
modules import the standard library and each other (relatively), never the harness, whose files the
worker must not be able to read.
"""

PACKAGE = "grading_worker"
BOOTSTRAP = f"import sys; sys.path.insert(0, sys.argv[1]); from {PACKAGE}.main import main; main()"
