"""``typing-pkg stubs`` in an installed (non-editable) wheel.

``--check`` checks the stub package installed beside ``typing_pkg``; writing
needs ``--out`` and never touches ``site-packages`` by default; ``--rules R
--out DIR`` writes and checks the stubs of another rule set.  The wheel is
installed with the NumPy and ml_dtypes of this interpreter, from the index,
and the command runs from a directory outside the checkout.
"""

from __future__ import annotations

import subprocess
from importlib.metadata import version
from pathlib import Path

import pytest
from envs import Dist, basedpyright, dist_fixture, new_env, pip, run, site_packages  # noqa: F401

from typing_pkg.stubgen import PACKAGE

pytestmark = pytest.mark.slow

MIXED = """\
from typing_pkg import Array, float16, int16
def f(a: Array[int16], b: Array[float16]) -> None:
    reveal_type(a + b)
"""
"""JAX gives float16 (any float holds the integers), NumPy float32 (float16 does not hold int16)."""


@pytest.fixture(scope="module")
def python(dist: Dist, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return the Python of an environment where the wheel is installed."""
    python = new_env(tmp_path_factory.mktemp("installed") / "env")
    deps = [f"numpy=={version('numpy')}", f"ml_dtypes=={version('ml_dtypes')}"]
    pip(python, "install", "--no-deps", dist.wheel, *deps)
    return python


def typing_pkg(
    python: Path, *args: str | Path, cwd: Path, status: int = 0
) -> subprocess.CompletedProcess[str]:
    """Run the environment's ``typing-pkg`` script."""
    return run(python.parent / "typing-pkg", *args, cwd=cwd, status=status)


def _snapshot(root: Path) -> dict[Path, int]:
    """Return every file under ``root`` (but byte code) with its modification time."""
    return {
        p: p.stat().st_mtime_ns
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_check_reads_the_installed_stub_package(python: Path, tmp_path: Path) -> None:
    done = typing_pkg(python, "stubs", "--check", cwd=tmp_path)
    assert done.stdout == f"the stubs under {site_packages(python).resolve()} are fresh\n"


def test_writing_needs_an_output_directory(python: Path, tmp_path: Path) -> None:
    site = site_packages(python)
    before = _snapshot(site)
    for args in (["stubs"], ["stubs", "--rules", "numpy"]):
        done = typing_pkg(python, *args, cwd=tmp_path, status=2)
        assert done.stdout == ""
        assert len(done.stderr.splitlines()) == 1, done.stderr
        assert "is installed" in done.stderr and "--out DIR" in done.stderr
    assert _snapshot(site) == before
    assert list(tmp_path.iterdir()) == []


def test_stubs_of_another_rule_set(python: Path, tmp_path: Path) -> None:
    out = tmp_path / "typings"
    typing_pkg(python, "stubs", "--rules", "numpy", "--out", out, cwd=tmp_path)
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) == [
        PACKAGE,
        f"{PACKAGE}/__init__.pyi",
        f"{PACKAGE}/dtypes.pyi",
        f"{PACKAGE}/promotion.pyi",
        f"{PACKAGE}/py.typed",
        f"{PACKAGE}/typing.pyi",
    ]
    installed = site_packages(python) / PACKAGE
    assert (out / PACKAGE / "dtypes.pyi").read_text() != (installed / "dtypes.pyi").read_text()
    done = typing_pkg(python, "stubs", "--check", "--rules", "numpy", "--out", out, cwd=tmp_path)
    assert done.stdout == f"the stubs under {out} are fresh\n"
    typing_pkg(python, "stubs", "--check", "--rules", "numpy", "--dir", out, cwd=tmp_path)
    # They are not the jax rules' stubs.
    typing_pkg(python, "stubs", "--check", "--out", out, cwd=tmp_path, status=1)

    with (out / PACKAGE / "typing.pyi").open("a") as file:
        file.write("tampered: int\n")
    done = typing_pkg(
        python, "stubs", "--check", "--rules", "numpy", "--out", out, cwd=tmp_path, status=1
    )
    assert "-tampered: int" in done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"1 generated stub file(s) under {out} are stale; "
        f"regenerate them with: python -m typing_pkg stubs --rules numpy --out {out}"
    )


def test_pyright_reads_stubs_written_over_the_installed_ones(python: Path, tmp_path: Path) -> None:
    """Stubs of another rule set written over the installed ones take effect too
    (the pyright page's recipe is ``typings/``, tests/stubs/test_rule_choice.py)."""
    (tmp_path / "prog.py").write_text(MIXED)
    where = "import sysconfig; print(sysconfig.get_path('purelib'))"  # the page's command
    site = Path(run(python, "-c", where, cwd=tmp_path).stdout.strip())
    assert site == site_packages(python)
    pyright = ("--pythonpath", str(python))
    assert basedpyright(tmp_path, *pyright) == (["Array[float16]"], [])  # jax
    try:
        typing_pkg(python, "stubs", "--rules", "numpy", "--out", site, cwd=tmp_path)
        assert basedpyright(tmp_path, *pyright) == (["Array[float32]"], [])
        typing_pkg(python, "stubs", "--check", "--rules", "numpy", cwd=tmp_path)
        done = typing_pkg(python, "stubs", "--check", cwd=tmp_path, status=1)
        last = done.stderr.splitlines()[-1]
        assert "are stale; reinstall typing_pkg (they were generated from the 'numpy'" in last
    finally:
        typing_pkg(python, "stubs", "--out", site, cwd=tmp_path)
    typing_pkg(python, "stubs", "--check", cwd=tmp_path)
