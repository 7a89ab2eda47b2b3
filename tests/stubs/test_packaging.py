"""The stub package ships in the wheel, and mypy reads the plain signatures from it.

pyright takes the overloads (``test_conformance.py``); mypy must read the
``MYPY`` branch of ``typing.pyi``, the run-time module's signatures, so that
the plugin works as it does without the stubs and pays nothing for them.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from stubprogram import ROOT, install

from typing_pkg import stubgen

PROGRAM = """\
from typing_pkg import Array, float32, int8
def f(a: Array[float32], b: Array[int8]) -> None:
    reveal_type(a + b)
    reveal_type(b + 1)
    reveal_type(-a)
"""


def test_the_wheel_holds_the_stub_package(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
         "-w", str(tmp_path), str(ROOT)],
        check=True,
    )  # fmt: skip
    wheel = next(tmp_path.glob("typing_pkg-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for rel in stubgen.generate():
        assert rel in names
    assert "typing_pkg/typing.py" in names


def test_mypy_reads_the_plain_signatures(tmp_path: Path) -> None:
    python = install(tmp_path / "env", stubs=stubgen.stubs_dir() / stubgen.PACKAGE) / "python"
    (tmp_path / "prog.py").write_text(PROGRAM)
    # Run where the repository is not on mypy's path: the installed package is read.
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "prog.py", "--python-executable", str(python),
         "--no-incremental", "--config-file", "", "--show-traceback", "-v"],
        cwd=tmp_path, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{stubgen.PACKAGE}/typing.pyi" in done.stderr  # mypy read the stub package
    revealed = [
        line.split("Revealed type is ")[1]
        for line in done.stdout.splitlines()
        if "Revealed" in line
    ]
    assert revealed == [
        '"typing_pkg.typing.Array[Any]"',
        '"typing_pkg.typing.Array[Any]"',
        '"typing_pkg.typing.Array[typing_pkg.dtypes.float32]"',
    ]
