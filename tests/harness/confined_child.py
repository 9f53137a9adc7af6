"""A child that confines itself as the worker does and hands the filter's listener to this process, the grader.

``run_confined`` starts ``code`` (a ``-c`` program for ``/usr/bin/python3 -I -S``, in a setup's
prefix) with ``spec`` as its one argument (JSON, with "fd", the socket to hand the listener over),
listens as the grader does (``KernelRefusals``, deciding the file calls as ``decider`` says), and
says "go" once the child printed "ready". The child prints its record, a JSON object, last.
"""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Callable, Sequence
from typing import Any

from dedup_harness.grade.kernel_refusals import Decider, KernelRefusals, Refusal
from machine_setups import SYSTEM_PYTHON


def run_confined(
    prefix: Sequence[str],
    code: str,
    spec: dict[str, Any],
    *,
    decider: Callable[[int], Decider] | None = None,
    stop_first: bool = False,
) -> tuple[dict[str, str], list[Refusal], bool]:
    """What the child recorded, the refusals the grader heard of, and whether it listened.

    ``decider``: the grader decides the child's file calls, for its pid. With ``stop_first`` the
    grader stops listening once the child is confined, before its calls.
    """
    here, there = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with subprocess.Popen(
        [*prefix, SYSTEM_PYTHON, "-I", "-S", "-B", "-c", code, json.dumps({**spec, "fd": there.fileno()})],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd="/",
        pass_fds=(there.fileno(),),
    ) as child:
        there.close()
        watch = KernelRefusals(here, decider(child.pid) if decider is not None else None)
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline() == "ready\n", child.stderr.read() if child.stderr else ""
        listening = watch.listening(10)
        if stop_first:
            watch.close()
        out, err = child.communicate("go\n", timeout=60)
    assert child.returncode == 0, err
    watch.close()
    return json.loads(out.strip().splitlines()[-1]), watch.take(), listening
