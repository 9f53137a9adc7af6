"""The allowed packages' copy: what is copied, what is refused before any work, and how each tier shows it."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest

from dedup_harness.cli import main
from dedup_harness.core.paths import IMPL_ROOT
from dedup_harness.grade.sandbox import unshare
from dedup_harness.grade.sandbox.bwrap import bwrap_args
from dedup_harness.grade.sandbox.interpreter import Interpreter, find
from dedup_harness.grade.sandbox.launch import Launch
from dedup_harness.grade.sandbox.packages import Packages, PackagesError, for_worker, modules_of, provided
from dedup_harness.grade.sandbox.tiers import Tier, WorkerSetup
from dedup_harness.grade.sandbox.users import drop_privileges, worker_uid

numpy = pytest.importorskip("numpy", reason="the numpy extra is not installed")


def fake_distribution(site: Path, name: str, files: dict[str, str], metadata: str = "") -> None:
    """An installed distribution as pip leaves one: its files, and a dist-info whose RECORD lists them."""
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"  # as a wheel names it
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n{metadata}", encoding="utf-8")
    for path, text in files.items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(text, encoding="utf-8")
    listed = [*files, f"{info.name}/METADATA", f"{info.name}/RECORD"]
    (info / "RECORD").write_text("".join(f"{path},,\n" for path in listed), encoding="utf-8")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of fake distributions on this process's path, as if installed beside the grader."""
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    return folder


@pytest.fixture(scope="module")
def worker_python() -> str:
    return find(worker_uid()).path


def test_a_name_not_installed_beside_the_grader_is_refused_in_one_line(worker_python: str) -> None:
    refused = pytest.raises(PackagesError, match=r"^--allow no-such-package: no such package is installed")
    with refused as refusal, provided(["no-such-package"], worker_python):
        pass
    assert "\n" not in str(refusal.value)


def test_the_harness_itself_is_never_copied_for_the_worker(worker_python: str) -> None:
    with (
        pytest.raises(PackagesError, match="would show the worker the harness's own files"),
        provided(["dedup-harness"], worker_python),
    ):
        pass


def test_extension_modules_built_for_another_python_are_refused_naming_the_file(site: Path, worker_python: str) -> None:
    so = "fakeabi/_speed.cpython-399-x86_64-linux-gnu.so"
    fake_distribution(site, "fakeabi", {"fakeabi/__init__.py": "", so: "", "fakeabi.libs/libfoo-1a2b.so": ""})
    with pytest.raises(PackagesError) as refusal, provided(["fakeabi"], worker_python):
        pass
    said = str(refusal.value)
    assert said.startswith("--allow fakeabi: fakeabi 1.0's ") and so in said and "built for another Python" in said
    assert "which loads .cpython-3" in said, "what the worker loads is named"


def test_a_release_whose_python_requirement_excludes_the_workers_is_refused(site: Path, worker_python: str) -> None:
    fake_distribution(site, "fakenew", {"fakenew.py": ""}, "Requires-Python: >=3.99\n")
    with (
        pytest.raises(PackagesError, match=r"fakenew 1\.0 needs Python >=3\.99, and the worker's "),
        provided(["fakenew"], worker_python),
    ):
        pass


def test_numpy_is_copied_readable_by_the_worker_and_imports_there_then_removed(worker_python: str) -> None:
    """The copy is made once, readable by every user; the worker's interpreter, as the worker's user, with the
    standard library alone and the copy last on its path, imports it; the block's end removes it."""
    with provided(["NumPy"], worker_python) as packages:
        assert packages is not None
        folder = Path(packages.folder)
        assert (packages.allowed, packages.modules) == (("numpy",), ("numpy",))
        assert packages.releases == (f"numpy=={numpy.__version__}",)
        assert stat.S_IMODE(folder.stat().st_mode) == 0o755
        assert stat.S_IMODE((folder / "numpy" / "__init__.py").stat().st_mode) == 0o644
        code = f"import sys; sys.path.append({packages.folder!r}); import numpy; print(numpy.__version__)"
        command = [*drop_privileges(worker_uid()), worker_python, "-I", "-S", "-B", "-c", code]
        done = subprocess.run(command, capture_output=True, text=True, cwd="/", check=False)
        assert (done.returncode, done.stdout.strip()) == (0, numpy.__version__), done.stderr[-2000:]
    assert not folder.exists()


def test_grade_refuses_a_name_not_installed_before_any_work_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grade", str(IMPL_ROOT / "corpus" / "dedup.py"), "--allow", "no-such-package"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "dedup-harness grade: --allow no-such-package: no such package is installed beside the grader"
    )
    assert err.count("\n") == 1 and "preflight" not in err


def test_an_allowed_package_that_does_not_import_in_the_worker_stops_the_run_with_its_cause(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It imports rich without saying it needs it: beside the grader that works, in the worker rich is not there."""
    fake_distribution(site, "needs-rich-quietly", {"needs_rich_quietly/__init__.py": "import rich\n"})
    assert main(["grade", str(IMPL_ROOT / "corpus" / "dedup.py"), "--allow", "needs-rich-quietly"]) == 2
    err = capsys.readouterr().err
    assert "the preflight failed" in err
    cause = "ModuleNotFoundError: No module named 'rich'"
    assert f"the allowed package needs_rich_quietly does not import in the worker: {cause}" in err
    assert "submissions" not in err


def test_nothing_is_copied_when_nothing_is_allowed(worker_python: str) -> None:
    with provided([], worker_python) as packages:
        assert packages is None


def test_a_package_not_installed_here_is_its_own_module_name_for_check() -> None:
    """check runs on a student's machine, where the allowed package may be missing: its name stands for it."""
    assert modules_of("numpy") == ["numpy"]
    assert modules_of("some-package-nobody-has") == ["some_package_nobody_has"]


PACKAGES = Packages("/tmp/dedup-harness-packages-1.2-x", ("numpy",), ("numpy",), ("numpy==2.0.0",))


def test_the_setup_carries_the_packages_to_every_grading_process_as_json() -> None:
    setup = WorkerSetup(
        Tier.UNSHARE, Interpreter("/usr/bin/python3", "3.11.2", (".abi3.so",)), 7, True, (), packages=PACKAGES
    )
    assert WorkerSetup.from_json(setup.as_json()) == setup
    assert (
        WorkerSetup.from_json(WorkerSetup(Tier.NONE, Interpreter("/usr/bin/python3"), 0, False).as_json()).packages
        is None
    )


def test_the_worker_is_told_the_folder_the_modules_and_what_the_submission_imports(tmp_path: Path) -> None:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "dedup.py").write_text("import numpy as np\nimport json\n", encoding="utf-8")
    assert for_worker(PACKAGES, tmp_path) == {"path": PACKAGES.folder, "allowed": ["numpy"], "preload": ["numpy"]}
    assert for_worker(None, tmp_path) == {}


def launch(session: Path, packages: Path) -> Launch:
    return Launch(
        worker=["python3", "-c", "worker"],
        as_worker=["setpriv", "--reuid=200000000"],
        session=session,
        home=session / "home",
        interpreter_prefix=Path("/usr"),
        env={"PATH": "/usr/bin"},
        temp_bytes=1 << 20,
        packages=packages,
        passed_fds=(3, 4, 5),
    )


def test_bubblewrap_binds_the_copy_read_only_and_reachable() -> None:
    args = bwrap_args("bwrap", launch(Path("/tmp/session"), Path("/var/tmp/grade/packages")))
    ro_binds = [args[i + 1] for i, arg in enumerate(args) if arg == "--ro-bind"]
    binds = [args[i + 1] for i, arg in enumerate(args) if arg == "--bind"]
    assert "/var/tmp/grade/packages" in ro_binds and "/var/tmp/grade/packages" not in binds
    made = [args[i + 1] for i, arg in enumerate(args) if arg == "--dir"]
    assert made == ["/var", "/var/tmp", "/var/tmp/grade"]


def test_unshare_binds_the_copy_back_read_only_over_the_temp_folder_it_covers() -> None:
    """Both the session and the copy under /tmp: each held by a descriptor of its own (none of the worker's)."""
    args = unshare.command(launch(Path("/tmp/grade/session"), Path("/tmp/grade/packages")))
    steps = args[args.index("-c") + 1].split(" && ")
    cover = steps.index("mount -t tmpfs -o size=1048576,mode=1777 scratch /tmp")
    assert steps[cover - 2 : cover] == ["exec 6</tmp/grade/session", "exec 7</tmp/grade/packages"]
    assert steps[cover + 1 : cover + 8] == [
        "mkdir -p /tmp/grade/session",
        "mount --no-canonicalize --bind /proc/self/fd/6 /tmp/grade/session",
        "exec 6<&-",
        "mkdir -p /tmp/grade/packages",
        "mount --no-canonicalize --bind /proc/self/fd/7 /tmp/grade/packages",
        "mount -o remount,bind,ro /tmp/grade/packages",
        "exec 7<&-",
    ]


def test_unshare_binds_a_copy_outside_the_temp_folders_read_only_on_itself() -> None:
    args = unshare.command(launch(Path("/tmp/grade/session"), Path("/srv/scratch/packages")))
    steps = args[args.index("-c") + 1].split(" && ")
    bound = steps.index("mount --no-canonicalize --bind /srv/scratch/packages /srv/scratch/packages")
    assert steps[bound + 1] == "mount -o remount,bind,ro /srv/scratch/packages"
    assert steps[-1] == 'exec "$@"'
