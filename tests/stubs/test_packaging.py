"""mypy reads the plain signatures from the installed stub package.

pyright takes the overloads (``test_conformance.py``); mypy must read the
``MYPY`` branch of ``typing.pyi``, the run-time module's signatures, so that
the plugin works as it does without the stubs and pays nothing for them.
That the wheel ships the stub package, and that installed or editable
installs are visible to both checkers, is tested in ``tests/packaging/``.
"""

from __future__ import annotations

from pathlib import Path

from stubprogram import install

from tools.checkers import run as checkers
from typing_pkg import stubgen

PROGRAM = """\
from typing_pkg import Array, float32, int8
def f(a: Array[float32], b: Array[int8]) -> None:
    reveal_type(a + b)
    reveal_type(b + 1)
    reveal_type(-a)
"""


def test_mypy_reads_the_plain_signatures(tmp_path: Path) -> None:
    python = install(tmp_path / "env", stubs=stubgen.stubs_dir() / stubgen.PACKAGE) / "python"
    (tmp_path / "prog.py").write_text(PROGRAM)
    # Run where the repository is not on mypy's path: the installed package is read.
    done = checkers.mypy(
        "prog.py", "--python-executable", python, "--no-incremental", "--config-file", "", "-v",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.status == 0, done.output
    assert f"{stubgen.PACKAGE}/typing.pyi" in done.stderr  # mypy read the stub package
    revealed = [f'"{m}"' for m in done.revealed()]
    assert revealed == [
        '"typing_pkg.typing.Array[Any]"',
        '"typing_pkg.typing.Array[Any]"',
        '"typing_pkg.typing.Array[typing_pkg.dtypes.float32]"',
    ]
