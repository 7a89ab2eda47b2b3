"""The typed JAX stubs (``typing-pkg stubs --jax``): what basedpyright infers through them."""

from __future__ import annotations

from pathlib import Path

import pytest
from jaxproject import write_project

from tools.checkers.run import basedpyright
from typing_pkg.api.jax_scipy_stats import DISTRIBUTIONS
from typing_pkg.stubgen import jax as jaxstubs

PROGRAM = """\
import jax
import jax.numpy as jnp

def keep(x: jax.Array) -> jax.Array:
    return x

key = jax.random.key(0)
x8 = jnp.zeros(3, dtype=jnp.int8)
reveal_type(jnp.zeros(3, jnp.bfloat16))
reveal_type(jnp.zeros(3))
reveal_type(jnp.exp(x8))
reveal_type(x8.astype(jnp.float16))
reveal_type(jax.random.normal(key, (3,)))
reveal_type(jnp.sum(x8))
reveal_type(jax.nn.softmax(jnp.ones(3, jnp.bfloat16)))
reveal_type(jnp.float32(2.0))
reveal_type(x8 + x8)
reveal_type(keep(x8))
reveal_type(jnp.exp(keep(x8)))
"""
EXPECTED = [
    "Array[bfloat16]",
    "Array[float32]",
    "Array[float32]",
    "Array[float16]",
    "Array[float32]",
    "Array[int32]",
    "Array[bfloat16]",
    "Array[float32]",
    "Array[int8]",
    "Array[Any]",  # a bare jax.Array annotation: unknown dtype
    "Array[Any]",  # and it stays unknown
]


def _reveal(
    tmp_path: Path, rules: str = "jax", program: str = PROGRAM
) -> tuple[list[str], list[str]]:
    write_project(tmp_path, program, rules)
    return basedpyright(cwd=tmp_path).diagnostics().in_order()


def test_results_carry_their_dtype(tmp_path: Path) -> None:
    types, errors = _reveal(tmp_path)
    assert errors == []
    assert types == EXPECTED


def test_x64_rules(tmp_path: Path) -> None:
    types, errors = _reveal(tmp_path, "jax-x64")
    assert errors == []
    assert types[1] == "Array[float64]"  # jnp.zeros(3): JAX's default float with x64 on
    assert types[2] == "Array[float32]"  # exp of int8 is float32 either way


SEVERAL = """\
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from typing_pkg import Array, float32

def keep(x: jax.Array) -> jax.Array:
    return x

x = jnp.zeros(3)
i8 = jnp.zeros(3, jnp.int8)
u = keep(x)
reveal_type(jnp.maximum(i8, x))
reveal_type(jnp.maximum(1.0, i8))
reveal_type(jnp.where(x > 0, i8, 0))
reveal_type(jnp.dot(i8, i8))
reveal_type(jnp.maximum(u, x))
reveal_type(jnp.concatenate([i8, i8]))
reveal_type(jnp.stack([x, jnp.full(3, 1.0)]))
reveal_type(jnp.concatenate([x, i8]))
reveal_type(i8.at[0].set(1))
reveal_type(i8.at[0].divide(2))
reveal_type(i8[0])
a, b = jax.random.split(jax.random.PRNGKey(0))
reveal_type(a)
reveal_type(jnp.maximum.reduce(x))
reveal_type(jnp.split(i8, 3))
reveal_type(jnp.frexp(x))
reveal_type(jax.jit(jnp.exp)(i8))
reveal_type(jax.vmap(jnp.exp)(i8))

def loss(w: jax.Array, scale: float) -> jax.Array:
    return jnp.sum(w * scale)

class Model:
    @jax.jit
    def apply(self, w: jax.Array) -> jax.Array:
        return w

reveal_type(jax.jit(loss)(x, 2.0))
reveal_type(jax.jit(loss).lower)
reveal_type(Model().apply(x))
jax.grad(lambda w: jnp.sum(w**2))(x)
jax.jit(lambda w: jnp.sum(w**2))(x)

def scaled(w: Array[float32]) -> Array[float32]:
    return w

def pair(w: jax.Array) -> tuple[jax.Array, int]:
    return w, 1

class EnvState:
    def __init__(self, time: int) -> None: ...

reveal_type(jax.jit(scaled)(x))
reveal_type(jax.jit(pair)(x))
reveal_type(jax.jit(scaled, static_argnums=1)(x, "anything"))
EnvState(time=jnp.int32(0))
n: int = jax.jit(scaled)(x)
reveal_type(jnp.linalg.norm(x, ord=jnp.inf))

def length(v: jax.Array) -> float:
    return jnp.linalg.norm(v)  # JAX jits norm: its result is Any to JAX's types

def cosine(v: jax.Array, a: Any) -> float:
    reveal_type(jnp.linalg.norm(v))
    reveal_type(jax.lax.stop_gradient(1.0))
    reveal_type(jax.lax.stop_gradient(a))
    reveal_type(jax.lax.stop_gradient(x))
    return 1.0 - jnp.vdot(v, v) / jnp.linalg.norm(v)  # an array / Any is Any, as for JAX

def pairs(pair: tuple[jax.Array, jax.Array] | jax.Array) -> None:
    jnp.linalg.norm(pair)  # JAX's jitted norm takes anything

def one_hot(x: jax.Array, n: int, dtype=jnp.float32) -> jax.Array:
    return jax.nn.one_hot(x, n, dtype=dtype)

one_hot(i8, 3, np.dtype("float32"))  # a default of JAX's private scalar class: anything

def entropy(dtype: Any, hint: jax.Array | None = None) -> jax.Array:
    if hint is None:
        hint = jnp.zeros((3,), dtype=dtype)  # an array, not Unknown: hint is no longer None
    reveal_type(jnp.zeros((3,), dtype=dtype))
    reveal_type(jnp.concatenate([i8, i8], dtype=dtype))  # a sequence's None takes no Any
    reveal_type(jnp.matmul(i8, i8, preferred_element_type=dtype))  # nor two operands'
    return hint

reveal_type(jnp.zeros((3,), dtype=jnp.float16))  # a known dtype is not taken for unknown

def to_method(f):  # Flax nnx's rngs.params.uniform(shape): JAX's function, a key given
    @functools.wraps(f)
    def method(self, *args, **kwargs) -> jax.Array:
        return f(self(), *args, **kwargs)
    return method

class Stream:
    def __call__(self) -> jax.Array: ...
    uniform = to_method(jax.random.uniform)

Stream().uniform((3,))  # Flax nnx's pattern, clean (with or without jax.random's exclusion)
"""
SEVERAL_EXPECTED = [
    "Array[float32]",  # the join of int8 and float32, as for +
    "Array[weak_float]",  # a Python float and an int8 array: a weakly typed float, as JAX
    "Array[int8]",
    "Array[int8]",
    "Array[Any]",  # one operand of unknown dtype
    "Array[int8]",  # a sequence of one dtype keeps it
    "Array[Any]",  # float32 with weak_float: left to JAX's signature
    "Array[Any]",  # two dtypes: left to JAX's signature
    "Array[int8]",  # .at[...] keeps the dtype
    "Array[Any]",  # but not divide
    "Array[int8]",  # indexing keeps it
    "Array[uint32]",  # and iterating
    "Array[Any]",  # the ufunc's methods stay JAX's
    "list[Array[int8]]",  # JAX's result type, with the dtype
    "tuple[Array[Any], Array[Any]]",  # two results of different dtypes: not one marker
    # jax.jit hides the function's signature (JAX's JitWrapped takes anything): the result
    # is the function's declared array, not what its overloads give for the arguments, and
    # where that array's dtype is unknown, JAX's JitWrapped, whose call is Unknown
    "Unknown",
    "Array[float32]",  # jax.vmap keeps the signature (JAX's own annotation)
    "Unknown",  # loss's declared result: an array of unknown dtype
    "(...) -> Lowered",  # jit's result is still JAX's wrapper
    "Unknown",  # and a jitted method, as JAX's wrapper
    "Array[float32]",  # a declared dtype is kept
    "Unknown",  # what is not one array is what JAX's wrapper gives
    "Array[float32]",  # called with anything, as JAX's wrapper is
    # jnp.int32(0) and a jitted result are accepted where an int is (JAX says Any)
    "Array[float32]",  # a function JAX jits takes what JAX's JitWrapped takes (ord: float)
    "Unknown",  # its result of unknown dtype is what JAX's JitWrapped gives
    "float",  # stop_gradient(x: T) -> T returns a Python scalar as it came (a float subclass)
    "Any",  # and Any as Any
    "Array[float32]",
    "Array[Any]",  # a dtype of unknown value: an array of unknown dtype, not Unknown
    "Array[Any]",  # with a sequence (not the sequence's int8)
    "Array[Any]",  # with two operands (not their join)
    "Array[float16]",
]


def test_several_arrays(tmp_path: Path) -> None:
    types, errors = _reveal(tmp_path, program=SEVERAL)
    assert errors == []
    assert types == SEVERAL_EXPECTED


def test_check_finds_stale_stubs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from typing_pkg.cli import main

    out = tmp_path / "typings"
    assert main(["stubs", "--jax", "--out", str(out), "--check"]) == 1  # nothing there yet
    jaxstubs.write(out)
    assert jaxstubs.check(out) == []
    assert main(["stubs", "--jax", "--out", str(out), "--check"]) == 0
    (out / jaxstubs.PACKAGE / "random.pyi").write_text("stale\n", encoding="utf-8")
    (out / jaxstubs.PACKAGE / "extra.pyi").write_text("\n", encoding="utf-8")
    assert {s.path for s in jaxstubs.check(out)} == {
        f"{jaxstubs.PACKAGE}/random.pyi",
        f"{jaxstubs.PACKAGE}/extra.pyi",
    }
    capsys.readouterr()
    assert main(["stubs", "--jax", "--out", str(out), "--check"]) == 1
    assert "regenerate them with: python -m typing_pkg stubs --jax" in capsys.readouterr().err


def test_another_jax_gets_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from typing_pkg.cli import main

    out = tmp_path / "typings"
    assert main(["stubs", "--jax", "--out", str(out)]) == 0
    assert "note:" not in capsys.readouterr().err  # the tested JAX
    header = (out / jaxstubs.PACKAGE / "random.pyi").read_text(encoding="utf-8").splitlines()[0]
    assert f"from JAX {jaxstubs.TESTED_JAX}'s stubs" in header
    monkeypatch.setattr(jaxstubs, "jax_version", lambda root=None: "0.99.0")
    assert main(["stubs", "--jax", "--out", str(out)]) == 0
    note = capsys.readouterr().err
    assert note.startswith("note: these stubs come from JAX 0.99.0's own;")
    assert note.count("\n") == 1


def test_partial_package_keeps_jax() -> None:
    files = jaxstubs.generate()
    assert files["py.typed"] == "partial\n"
    assert set(files) == {
        "py.typed",
        "_src/basearray.pyi",
        "_src/inferred.pyi",  # a module of the stubs only: InferredArray for pyright
        "numpy/__init__.pyi",
        "nn/__init__.pyi",
        "random.pyi",
        "lax/__init__.pyi",
        "numpy/linalg.pyi",
        "numpy/fft.pyi",
        "scipy/special.pyi",
        "scipy/linalg.pyi",
        *(f"scipy/stats/{name}.pyi" for name in DISTRIBUTIONS),  # not stats/__init__: JAX's
        "__init__.pyi",
    }


def test_needs_a_jax_rule_set() -> None:
    with pytest.raises(ValueError, match="JAX rule set"):
        jaxstubs.generate("numpy")
