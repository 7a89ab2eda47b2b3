"""Throw-away virtual environments for the packaging tests, and the checkers run on them.

Each environment is made without pip and filled by this interpreter's pip
(``pip --python``): seconds, not the half minute a copy of pip costs.  Builds
use the backend ``pyproject.toml`` names, installed from the package index
as pip's build isolation would install it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from tools.checkers import run as checkers
from tools.checkers.output import read_mypy, revealed_by_pyright
from tools.checkers.run import Ran

__all__ = [
    "PROGRAM",
    "ROOT",
    "Dist",
    "basedpyright",
    "build_system",
    "mypy",
    "mypy_revealed",
    "new_env",
    "pip",
    "run",
    "site_packages",
]

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """\
from typing_pkg import Array, float32, int8
def f(a: Array[float32], b: Array[int8]) -> None:
    reveal_type(a + b)
"""


@dataclass(frozen=True)
class Dist:
    """What the build backend makes of the checkout (the ``dist`` fixture)."""

    sdist: Path
    wheel: Path
    """Built from the checkout (``pip install .``)."""
    wheel_from_sdist: Path
    """Built from the unpacked sdist (``python -m build``)."""


def run(*command: str | Path, cwd: Path, status: int = 0) -> subprocess.CompletedProcess[str]:
    """Run ``command`` in ``cwd``, check its exit status and return what it printed."""
    done = subprocess.run(
        [str(c) for c in command], cwd=cwd, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == status, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def new_env(where: Path) -> Path:
    """Create an empty virtual environment at ``where`` and return its Python."""
    run(sys.executable, "-m", "venv", "--without-pip", where, cwd=where.parent)
    return where / "bin" / "python"


def pip(python: Path, *args: str | Path) -> None:
    """Run this interpreter's pip on the environment of ``python`` (quietly)."""
    run(sys.executable, "-m", "pip", "--python", python, "-q", *args, cwd=python.parent)


def site_packages(python: Path) -> Path:
    """Return the ``site-packages`` directory of the environment of ``python``."""
    return next(python.parents[1].glob("lib/python3*/site-packages"))


def build_system() -> tuple[str, list[str]]:
    """Return the build backend ``pyproject.toml`` names and its requirements."""
    with (ROOT / "pyproject.toml").open("rb") as file:
        table = tomllib.load(file)["build-system"]
    backend: str = table["build-backend"]
    requires: list[str] = table["requires"]
    return backend, requires


def mypy(cwd: Path, python: Path, *options: str) -> Ran:
    """Run this interpreter's mypy on ``cwd/prog.py`` against the environment of ``python``."""
    done = checkers.mypy(
        "prog.py", "--python-executable", python, "--no-incremental",
        "--cache-dir", cwd / ".mypy_cache", *options,
        cwd=cwd, timeout=600,
    )  # fmt: skip
    assert done.status == 0, f"exit {done.status}\n{done.stdout}\n{done.stderr}"
    return done


def mypy_revealed(output: str) -> list[str]:
    """Return the types mypy revealed, in order."""
    return [m.revealed for m in read_mypy(output) if m.revealed is not None]


def basedpyright(cwd: Path, *options: str) -> tuple[list[str], list[str]]:
    """Run basedpyright on ``cwd/prog.py``; return what it revealed and its errors."""
    done = checkers.basedpyright(*options, "prog.py", cwd=cwd, python=None, timeout=600)
    assert done.stdout.strip().startswith("{"), done.stderr
    revealed: list[str] = []
    errors: list[str] = []
    for diag in json.loads(done.stdout)["generalDiagnostics"]:
        if (shown := revealed_by_pyright(diag["message"])) is not None:
            revealed.append(shown)
        elif diag["severity"] == "error":
            errors.append(f"{diag.get('rule', '')}: {diag['message']}")
    return revealed, errors


# Calls a PEP 517 backend as a front end such as pip does: argv = backend, kind, outdir.
_BUILD = """\
import importlib, sys
backend = importlib.import_module(sys.argv[1])
kind, out = sys.argv[2], sys.argv[3]
needs = getattr(backend, f"get_requires_for_build_{kind}", lambda: [])()
assert not needs, f"the backend asks for more to build the {kind}: {needs}"
print(getattr(backend, f"build_{kind}")(out))
"""


@pytest.fixture(scope="session", name="dist")
def dist_fixture(tmp_path_factory: pytest.TempPathFactory) -> Dist:
    """Build the sdist, a wheel from the checkout and one from the sdist."""
    base = tmp_path_factory.mktemp("dist")
    backend, requires = build_system()
    python = new_env(base / "builder")
    pip(python, "install", *requires)

    def build(kind: str, source: Path, out: Path) -> Path:
        out.mkdir()
        done = run(python, "-c", _BUILD, backend, kind, out, cwd=source)
        return out / done.stdout.strip().splitlines()[-1]

    sdist = build("sdist", ROOT, base / "sdist")
    with tarfile.open(sdist) as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(base / "unpacked", filter="data")
        else:  # Python before 3.11.4; the archive is our own
            archive.extractall(base / "unpacked")
    (unpacked,) = (base / "unpacked").iterdir()
    return Dist(
        sdist,
        build("wheel", ROOT, base / "wheel"),
        build("wheel", unpacked, base / "wheel-from-sdist"),
    )
