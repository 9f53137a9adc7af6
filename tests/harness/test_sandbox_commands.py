"""The command lines each tier starts a worker with, read as data (no process is started here)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from dedup_harness.grade.sandbox import unshare
from dedup_harness.grade.sandbox.bwrap import bwrap_args
from dedup_harness.grade.sandbox.launch import Launch
from dedup_harness.grade.sandbox.unshare import unshare_prefix


def pairs(args: list[str], option: str) -> list[str]:
    """The values that follow each ``option``."""
    return [args[i + 1] for i, arg in enumerate(args) if arg == option]


def launch(prefix: Path, hidden: list[Path], session: Path = Path("/var/tmp/grade/session"), **more: Any) -> Launch:
    return Launch(
        worker=["python3", "-c", "worker"],
        as_worker=["setpriv", "--reuid=200000000"],
        session=session,
        home=session / "home",
        interpreter_prefix=prefix,
        env={"PATH": "/usr/bin"},
        temp_bytes=1 << 20,
        hidden=hidden,
        **more,
    )


def command(prefix: Path, hidden: list[Path], session: Path = Path("/var/tmp/grade/session")) -> list[str]:
    return bwrap_args("bwrap", launch(prefix, hidden, session))


def test_an_interpreter_outside_usr_is_shown_read_only_and_a_harness_inside_it_is_covered() -> None:
    """A pyenv or /opt Python: its real installation is bound; the harness in its site-packages is not shown."""
    prefix = Path("/opt/python3.12")
    harness = prefix / "lib/python3.12/site-packages/dedup_harness"
    args = command(prefix, [harness, Path("/srv/checkout")])
    ro_binds = pairs(args, "--ro-bind")
    assert str(prefix) in ro_binds and "/srv/checkout" not in ro_binds
    assert pairs(args, "--tmpfs")[-2:] == [str(harness), "/var/tmp/grade/session/home"]


def test_the_folders_above_the_session_are_made_reachable_before_it_is_bound() -> None:
    """bubblewrap makes missing folders 0700: a worker of another uid could not reach a session under /var/tmp."""
    args = command(Path("/usr"), [])
    made = [(args[i - 1], args[i + 1]) for i, arg in enumerate(args) if arg == "--dir"]
    assert made == [("0755", "/var"), ("0755", "/var/tmp"), ("0755", "/var/tmp/grade")]
    assert args.index("--dir") < args.index("--bind")
    assert "--unshare-net" in args and "--unshare-pid" in args and "--clearenv" in args


def test_a_harness_under_usr_is_covered_and_nothing_else_is_bound_for_a_system_python() -> None:
    args = command(Path("/usr"), [Path("/usr/lib/python3/dist-packages/dedup_harness")])
    assert "/usr/lib/python3/dist-packages/dedup_harness" in pairs(args, "--tmpfs")
    assert pairs(args, "--ro-bind")[0] == "/usr" and "/opt" not in " ".join(args)


def test_unshare_covers_the_harness_directly_as_root_and_drops_capabilities_in_a_user_namespace() -> None:
    hidden = [Path("/srv/checkout")]
    root = unshare_prefix(hidden, user_namespace=False)
    user = unshare_prefix(hidden, user_namespace=True)
    assert "--user" not in root and {"--net", "--pid", "--mount-proc", "--ipc"} <= set(root)
    assert "mount -t tmpfs -o size=4k,mode=0755 hidden /srv/checkout" in root[root.index("-c") + 1]
    assert user[1:3] == ["--user", "--map-root-user"]
    assert user[-2:] == ["--inh-caps=-all", "--bounding-set=-all"]


def test_with_a_disk_of_its_own_bubblewrap_binds_the_session_and_puts_no_tmpfs_over_the_home() -> None:
    """The session is then a tmpfs of the submission's own: the home in it is what the grader sees and measures."""
    args = bwrap_args("bwrap", launch(Path("/usr"), [], own_disk=True))
    assert "/var/tmp/grade/session/home" not in pairs(args, "--tmpfs") and pairs(args, "--tmpfs") == ["/tmp"]
    assert pairs(args, "--bind") == ["/var/tmp/grade/session"]


def test_unshare_covers_each_public_temp_folder_and_binds_a_session_under_one_back() -> None:
    """A session under /tmp stays in view through a descriptor opened before the cover: none of the worker's pipes."""
    args = unshare.command(launch(Path("/usr"), [], Path("/tmp/grade/session"), passed_fds=(3, 4)))
    script = args[args.index("-c") + 1]
    assert "mount -t tmpfs -o size=1048576,mode=1777 scratch /var/tmp" in script
    steps = script.split(" && ")
    cover = steps.index("mount -t tmpfs -o size=1048576,mode=1777 scratch /tmp")
    assert steps[cover - 1] == "exec 5</tmp/grade/session"
    assert steps[cover + 1 : cover + 4] == [
        "mkdir -p /tmp/grade/session",
        "mount --no-canonicalize --bind /proc/self/fd/5 /tmp/grade/session",
        "exec 5<&-",
    ]
    assert args[-3:] == ["python3", "-c", "worker"] and args.index("setpriv") > args.index("-c")


def test_through_a_user_namespace_unshare_runs_as_the_workers_uid_from_the_start() -> None:
    args = unshare.command(launch(Path("/usr"), [], user_namespace=True))
    assert args[:2] == ["setpriv", "--reuid=200000000"] and "--map-root-user" in args


def test_unshare_covers_a_harness_under_a_folder_the_worker_cannot_enter_at_that_folder() -> None:
    """A user namespace may not mount beneath a folder of mode 0700 it does not own (``mktemp -d``, root's home):
    the cover goes on that folder, which hides the harness as well; a harness the worker can reach is covered
    where it is, and a root grader (no user namespace) covers each where it is."""
    with tempfile.TemporaryDirectory(dir="/tmp") as top:
        Path(top).chmod(0o755)
        private, public = Path(top) / "private", Path(top) / "public" / "dedup_harness"
        (private / "venv" / "dedup_harness").mkdir(parents=True)
        private.chmod(0o700)
        public.mkdir(parents=True)

        def script(user_namespace: bool) -> str:
            hide = [private / "venv" / "dedup_harness", public]
            args = unshare_prefix(hide, user_namespace=user_namespace, uid=200_000_000)
            return args[args.index("-c") + 1]

        assert script(True).count("hidden") == 2 and f"hidden {private} &&" in script(True)
        assert f"hidden {public} &&" in script(True)
        assert f"hidden {private}/venv/dedup_harness &&" in script(False)
