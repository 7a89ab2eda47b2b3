"""mypy with the plugin gives the same results with the stub package installed as without it.

The stubs declare ``astype``, ``promote_types`` and ``result_type`` twice,
the run-time signatures under ``if MYPY:`` first: mypy must read those (and
the plugin refine them) rather than the overloads written for pyright.  One
program runs through mypy with the plugin twice, against the checkout (no
stubs) and against an environment where the package and its stubs are
installed as ``pip install`` puts them; both reports must be equal, line by
line, and mypy must have read the stubs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from stubprogram import ROOT, install

from tools.checkers import run as checkers
from typing_pkg import stubgen

PROGRAM = """\
from typing import Any
import numpy as np
import numpy.typing as npt
from typing_pkg import (
    Array, bfloat16, float8_e4m3fn, float16, float32, floating, int8, promote_types,
    result_type, uint16,
)

def f(x: Array[float32], i: Array[int8], n: npt.NDArray[np.float32], c: Array[floating]) -> None:
    reveal_type(promote_types(uint16, float32))
    reveal_type(promote_types(float, float16))
    reveal_type(promote_types(np.float32, bfloat16))
    reveal_type(promote_types("float32", uint16))
    reveal_type(promote_types(float32, int8, rules="numpy"))
    reveal_type(promote_types(c.dtype, i.dtype))
    reveal_type(promote_types(float8_e4m3fn, float16))
    reveal_type(result_type(x, i))
    reveal_type(result_type(x, 1.0))
    reveal_type(result_type(i))
    reveal_type(x.astype(np.float32))
    reveal_type(x.astype("float32"))
    reveal_type(x.astype(float))
    reveal_type(x.astype(int8))
    reveal_type(x + n)
    reveal_type(x + i)
    reveal_type(x < 1)
"""


def _mypy(cwd: Path, program: Path, *options: str) -> list[str]:
    config = program.with_name("mypy.ini")  # beside the program: never in the checkout
    config.write_text("[mypy]\nplugins = mypy_plugin\n")
    done = checkers.mypy(program, "--config-file", config, "--no-incremental", *options, cwd=cwd)
    assert done.status in (0, 1), done.output
    report = [line.split(":", 1)[1] for line in done.stdout.splitlines() if ":" in line]
    if "-v" in options:
        assert f"{stubgen.PACKAGE}/promotion.pyi" in done.stderr  # mypy read the stubs
        assert f"{stubgen.PACKAGE}/typing.pyi" in done.stderr
    return report


@pytest.mark.slow
def test_the_plugin_reads_the_plain_signatures_of_the_stubs(tmp_path: Path) -> None:
    program = tmp_path / "prog.py"
    program.write_text(PROGRAM)
    python = install(tmp_path / "env", stubs=stubgen.stubs_dir() / stubgen.PACKAGE) / "python"
    outside = tmp_path / "outside"
    outside.mkdir()
    # Outside the checkout, so that the installed package (and its stubs) is read.
    with_stubs = _mypy(outside, program, "--python-executable", str(python), "-v")
    without = _mypy(ROOT, program)
    assert with_stubs == without
    assert len([line for line in without if "Revealed type" in line]) == PROGRAM.count("reveal_")
    assert any("[dtype-promotion]" in line for line in without)
