"""``docs/jax-code.rst`` shows what mypy reveals on plain JAX code: its program is checked.

The page includes ``examples/jax_page/program.py``, which is copied to a fresh
project and checked by mypy with the plugin under the default rules; every
``reveal_type(...)  # Array[DT]`` line must reveal exactly that type, and mypy
must report nothing else.
"""

from __future__ import annotations

import re
from pathlib import Path

from tools.checkers import run as checkers
from tools.checkers.output import read_mypy
from tools.checkers.run import checker_env
from tools.checkers.seeds import plant

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "jax-code.rst"
PROGRAM = ROOT / "examples" / "jax_page" / "program.py"
_COMMENT = re.compile(r"reveal_type\(.*\)  # (?P<type>(?:Inferred)?Array\[\w+(?:, Any)?\])$")


def page_program() -> str:
    """Return the program the page includes (and check that it does)."""
    assert ".. literalinclude:: ../examples/jax_page/program.py" in PAGE.read_text(encoding="utf-8")
    return PROGRAM.read_text(encoding="utf-8")


def test_page_program_reveals_what_it_says(tmp_path: Path) -> None:
    program = page_program()
    wanted = {
        number: f"typing_pkg.typing.{m['type'].replace('[', '[typing_pkg.dtypes.')}"
        for number, line in enumerate(program.splitlines(), start=1)
        if (m := _COMMENT.search(line))
    }
    assert len(wanted) >= 6
    (tmp_path / "demo.py").write_text(program, encoding="utf-8")
    (tmp_path / "mypy.ini").write_text("[mypy]\nplugins = mypy_plugin\n", encoding="utf-8")
    done = checkers.mypy(
        "--cache-dir", plant(tmp_path / "cache"), "demo.py",
        cwd=tmp_path, env=checker_env({"PYTHONPATH": str(ROOT)}),
    )  # fmt: skip
    assert done.status == 0 and not done.stderr, done.output
    revealed = {}
    for message in read_mypy(done.stdout):
        assert message.file == "demo.py" and message.revealed is not None, (
            f"mypy reported more than revealed types: {message}"
        )
        revealed[message.line] = message.revealed
    assert revealed == wanted
