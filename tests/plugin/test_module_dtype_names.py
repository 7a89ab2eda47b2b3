"""Dtype names another module binds (``from pkg.util import f32``), cold, warm and changed.

JAX declares ``jnp.float32`` ``Any``: the plugin reads what ``f32`` stands for
from the module that binds it, which records it as mypy parses it
(``mypy_plugin.module_dtype_names``).  A warm run (that module read from
mypy's cache) must answer as a cold one, and a change to the alias must
reach the modules that import it.  The expected dtypes are JAX's: the
program is run too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_harness import imported, run_mypy, write_config, write_package

pytestmark = pytest.mark.slow

UTIL = """\
import jax.numpy as jnp

f32 = jnp.float32
i32 = jnp.int32
twice = jnp.float32
twice = jnp.float16
changed = jnp.float32


def widen():
    global changed
    changed = jnp.float16
"""
BASE = """\
from jax import numpy as jnp

NUM = jnp.int32
F64 = jnp.float64
if True:
    HALF = jnp.bfloat16
"""
MID = """\
from . import base as b
from .base import HALF
from pkg_dn import base

I = base.NUM
H = HALF
K = b.F64
"""
MAIN = """\
import jax.numpy as jnp

from pkg_dn import base
from pkg_dn.mid import H, I, K
from pkg_dn.util import changed, f32, i32, twice

a = jnp.zeros(3, dtype=f32)
b = jnp.asarray(0, base.NUM)
c = jnp.zeros(3, I)
d = jnp.ones(2, H)
e = jnp.zeros(3, K)
f = jnp.arange(3, dtype=i32)[:, None]
g = jnp.zeros(3, twice)
h = jnp.zeros(3, changed)
reveal_type(a)
reveal_type(b)
reveal_type(c)
reveal_type(d)
reveal_type(e)
reveal_type(f)
reveal_type(g)
reveal_type(h)
"""
EXPECTED = {
    "a": "float32", "b": "int32", "c": "int32", "d": "bfloat16",
    "e": "float32",  # float64 is float32 with x64 off
    "f": "int32",
}  # fmt: skip
"""The names whose dtype the program fixes; ``g`` (bound twice) and ``h`` (a function may
bind it again) are unknown to the plugin."""
ARRAY = "typing_pkg.typing.Array[{}]"


def _write(root: Path, util: str = UTIL) -> Path:
    modules = {"util": util, "base": BASE, "mid": MID, "main": MAIN}
    return write_package(root, "pkg_dn", modules) / "main.py"


def _revealed(output: str) -> dict[str, str]:
    lines = [line for line in output.splitlines() if "Revealed type is" in line][-8:]
    types = [line.split('Revealed type is "', 1)[1].rstrip('"') for line in lines]
    return dict(zip("abcdefgh", types, strict=True))


def _expected(dtypes: dict[str, str]) -> dict[str, str]:
    known = {n: ARRAY.format(f"typing_pkg.dtypes.{d}") for n, d in dtypes.items()}
    return {n: known.get(n, ARRAY.format("Any")) for n in "abcdefgh"}


@pytest.mark.filterwarnings("ignore:Explicitly requested dtype float64")
def test_the_dtypes_are_jax_s(tmp_path: Path) -> None:
    _write(tmp_path)
    (tmp_path / "pkg_dn" / "main.py").write_text(
        MAIN.split("reveal_type")[0], encoding="utf-8"
    )  # the program without its reveals
    with imported(tmp_path, "pkg_dn.main") as main:
        assert {n: str(getattr(main, n).dtype) for n in EXPECTED} == EXPECTED


def test_another_module_s_dtype_names_cold_warm_and_changed(tmp_path: Path) -> None:
    main = _write(tmp_path)
    config = write_config(tmp_path, None)
    cache = tmp_path / "cache"
    cold, _, _ = run_mypy([main], config, cache, seeded=True)
    assert _revealed(cold) == _expected(EXPECTED)
    main.write_text(MAIN + "# edited\n", encoding="utf-8")
    warm, _, _ = run_mypy([main], config, cache, seeded=True)
    assert _revealed(warm) == _expected(EXPECTED)
    util = UTIL.replace("f32 = jnp.float32", "f32 = jnp.float16")
    (tmp_path / "pkg_dn" / "util.py").write_text(util, encoding="utf-8")  # main unchanged
    changed, _, _ = run_mypy([main], config, cache, seeded=True)
    assert _revealed(changed) == _expected({**EXPECTED, "a": "float16"})
