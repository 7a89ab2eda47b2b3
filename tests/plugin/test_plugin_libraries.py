"""Inside an installed package, the plugin's hooks answer what mypy alone answers.

mypy type-checks the code of the packages a program imports (JAX's, NumPy's,
Flax's) on a cold run, without showing their errors: callers see their
declarations.  The plugin leaves that code to mypy (checking JAX's own
modules with the hooks took about a second more), so a library's inferred
module variables are typed as without the plugin, while the same code in the
program's own modules gets its dtypes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_harness import parse, run_mypy, write_config

MODULE = """\
import jax.numpy as jnp

halves = jnp.zeros(3, jnp.int8) + 0.5
"""

PROGRAM = """\
import mine
import vendored

reveal_type(mine.halves)
reveal_type(vendored.halves)
"""


@pytest.mark.slow  # a cold mypy run over an installed package and JAX
def test_an_installed_package_s_code_is_typed_as_mypy_alone_types_it(tmp_path: Path) -> None:
    installed = tmp_path / "lib" / "site-packages"
    installed.mkdir(parents=True)
    (installed / "vendored.py").write_text(MODULE, encoding="utf-8")
    (tmp_path / "mine.py").write_text(MODULE, encoding="utf-8")
    program = tmp_path / "program.py"
    program.write_text(PROGRAM, encoding="utf-8")
    config = write_config(tmp_path, None)
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            "mypy_path = ", f"mypy_path = {tmp_path}:{installed}:"
        ),
        encoding="utf-8",
    )
    out, err, _ = run_mypy([program], config, tmp_path / "cache", seeded=True)
    found = parse(out)
    assert "Traceback" not in err, err
    assert found[4].revealed == "typing_pkg.typing.Array[typing_pkg.dtypes.weak_float]", (
        out
    )  # JAX: float32, weak
    assert found[5].revealed == "typing_pkg.typing.Array[Any]", out  # JAX's declared Array
