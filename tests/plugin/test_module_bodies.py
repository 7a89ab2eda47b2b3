"""Another module's unannotated functions typed at each call, cold, warm, changed and in a daemon.

``loss(params, x)`` defined in ``pkg_mb/model.py`` and called in
``pkg_mb/main.py``: the plugin checks the body with the call's argument types
(``mypy_plugin.module_bodies``).  mypy keeps no function body in its cache,
so a warm run parses the module again; it must answer as a cold one, and a
change to a body must reach the modules that call it although the module's
interface did not change.  The expected dtypes are JAX's: the program is run.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from plugin_harness import imported, run_mypy, write_config, write_package

from tools.checkers import run as checkers

pytestmark = pytest.mark.slow

UTIL = """\
import jax.numpy as jnp


def widen(x):
    return x.astype(jnp.float32)
"""
MODEL = """\
import jax
import jax.numpy as jnp

from pkg_mb import util

HALF = jnp.bfloat16


def dense(x, w, b):
    return jnp.tanh(x @ w + b)


def to_half(x):
    y = jnp.exp(x)
    return y.astype(HALF)


@jax.jit
def predict(params, x):
    h = dense(x, params[0], params[1])
    return h * 2


def scaled(x, s=0.5):
    def inner(v):
        return v * s
    return inner(x)


def raises(x):
    return x * jnp.ones(3, jnp.float8_e4m3fn)


def calls_raises(x):
    def nested(v):
        return v * jnp.ones(3, jnp.float8_e4m3fn)
    return raises(x) + nested(x)


def via_util(x):
    return util.widen(x)


class Layer:
    def __call__(self, x):
        return x.astype(jnp.int8)
"""
MAIN = """\
import jax.numpy as jnp

from pkg_mb import model
from pkg_mb.model import dense, predict, to_half

x = jnp.ones((2, 3), dtype=jnp.bfloat16)
w = jnp.ones((3, 3), dtype=jnp.bfloat16)
b = jnp.zeros(3, dtype=jnp.float16)
bb = jnp.zeros(3, dtype=jnp.bfloat16)
i = jnp.arange(3)

a = dense(x, w, bb)
c = dense(x, w, b)
d = to_half(i)
e = predict((w, bb), x)
f = model.scaled(x)
g = model.via_util(x)
h = model.Layer()(x)
reveal_type(a)
reveal_type(c)
reveal_type(d)
reveal_type(e)
reveal_type(f)
reveal_type(g)
reveal_type(h)
model.calls_raises(x)  # JAX raises in model.py: that module's business
"""
EXPECTED = {
    "a": "bfloat16", "c": "float32", "d": "bfloat16", "e": "bfloat16", "f": "bfloat16",
    "h": "int8",
}  # fmt: skip
"""The names whose dtype the program fixes and the plugin follows; ``g`` calls a third
module's function, which the plugin leaves ``Any``."""
NAMES = "acdefgh"


def _write(root: Path) -> Path:
    return write_package(root, "pkg_mb", {"util": UTIL, "model": MODEL, "main": MAIN}) / "main.py"


def _revealed(output: str) -> dict[str, str]:
    """The reveals of ``main.py``; nothing else is reported (the dtype bug that
    ``model.calls_raises(x)`` makes happen in ``model.py`` is not)."""
    lines = [line for line in output.splitlines() if "Revealed type is" in line]
    assert not [line for line in output.splitlines() if ": error:" in line], output
    assert len(lines) == len(NAMES), output
    types = [line.split('Revealed type is "', 1)[1].rstrip('"') for line in lines]
    return dict(zip(NAMES, types, strict=True))


def _expected(dtypes: dict[str, str]) -> dict[str, str]:
    array = "typing_pkg.typing.InferredArray[typing_pkg.dtypes.{}, Any]"
    return {n: array.format(dtypes[n]) if n in dtypes else "Any" for n in NAMES}


def test_the_dtypes_are_jax_s(tmp_path: Path) -> None:
    _write(tmp_path)
    (tmp_path / "pkg_mb" / "main.py").write_text(MAIN.split("reveal_type")[0], encoding="utf-8")
    with imported(tmp_path, "pkg_mb.main") as main:
        assert {n: str(getattr(main, n).dtype) for n in EXPECTED} == EXPECTED
        assert str(main.g.dtype) == "float32"


def test_another_module_s_functions_cold_warm_and_changed(tmp_path: Path) -> None:
    main = _write(tmp_path)
    config = write_config(tmp_path, None)
    cache = tmp_path / "cache"
    files = sorted(main.parent.glob("*.py"))
    cold, _, _ = run_mypy(files, config, cache, seeded=True)
    assert _revealed(cold) == _expected(EXPECTED)
    main.write_text(MAIN + "# edited\n", encoding="utf-8")  # main checked, model from the cache
    warm, _, _ = run_mypy(files, config, cache, seeded=True)
    assert _revealed(warm) == _expected(EXPECTED)
    model = MODEL.replace("return y.astype(HALF)", "return y.astype(jnp.float16)")
    (main.parent / "model.py").write_text(model, encoding="utf-8")  # main unchanged
    changed, _, _ = run_mypy(files, config, cache, seeded=True)
    assert _revealed(changed) == _expected({**EXPECTED, "d": "float16"})


def test_a_daemon_follows_a_changed_body(tmp_path: Path) -> None:
    main = _write(tmp_path)
    config = write_config(tmp_path, None)
    files = [str(p) for p in sorted(main.parent.glob("*.py"))]
    dmypy = checkers.dmypy_command(tmp_path / "status")

    def check() -> dict[str, str]:
        done = subprocess.run(
            [*dmypy, "run", "--", "--config-file", str(config), *files],
            capture_output=True, text=True, cwd=tmp_path, check=False, timeout=600,
        )  # fmt: skip
        return _revealed(done.stdout)

    try:
        assert check() == _expected(EXPECTED)
        model = MODEL.replace("return y.astype(HALF)", "return y.astype(jnp.float16)")
        (main.parent / "model.py").write_text(model, encoding="utf-8")
        assert check() == _expected({**EXPECTED, "d": "float16"})
    finally:
        subprocess.run([*dmypy, "stop"], capture_output=True, check=False, timeout=60)
