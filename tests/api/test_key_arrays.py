"""Typed PRNG key arrays against JAX running: which keys each ``jax.random`` function takes,
what operators do with keys, and what the table gives for them.

JAX refuses a key that is neither a typed key array (``jax.random.key``, dtype
``key<fry>``) nor raw ``uint32`` key data; ``typing_pkg.api.jax_random``
says so as data (``KEY_DTYPES``, ``key_refusal``) and the plugin reports it.
Each expectation here is JAX's own answer, read by calling it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import pytest

from typing_pkg import Array
from typing_pkg.api import result_dtype
from typing_pkg.api.jax_random import KEY_OPERATORS, key_operator, key_refusal
from typing_pkg.dtypelike import marker_named, to_marker
from typing_pkg.dtypes import key, uint32
from typing_pkg.ops import BINARY, UNARY
from typing_pkg.rules import get_rules
from typing_pkg.rules.base import Undefined

jnp = jax.numpy  # the test extras install JAX: a missing JAX fails here, never skips

# Each function taking a key, called with what else it needs.
DRAWS: dict[str, Callable[[Any], Any]] = {
    "normal": lambda k: jax.random.normal(k, (2,)),
    "uniform": lambda k: jax.random.uniform(k, (2,)),
    "bernoulli": lambda k: jax.random.bernoulli(k, 0.5, (2,)),
    "randint": lambda k: jax.random.randint(k, (2,), 0, 3),
    "choice": lambda k: jax.random.choice(k, 5),
    "permutation": lambda k: jax.random.permutation(k, 5),
    "categorical": lambda k: jax.random.categorical(k, jnp.zeros(3)),
    "gamma": lambda k: jax.random.gamma(k, 1.0),
    "bits": lambda k: jax.random.bits(k, (2,)),
    "split": lambda k: jax.random.split(k),
    "fold_in": lambda k: jax.random.fold_in(k, 1),
    "clone": jax.random.clone,
}
ARRAY: Any = Array  # Array[m] of a marker variable, for isinstance (checkers refuse the form)
KEY_MARKERS = (key, uint32)
"""A typed key's marker and raw key data's."""
KEY_DTYPES_TRIED = sorted(t for t in get_rules("jax").types if not t.startswith("weak_"))


def _key_of(dtype: str) -> Any:
    """A key of ``dtype``: a typed key, or key data of that dtype (shape (2,), as threefry's)."""
    if dtype == key.name:
        return jax.random.key(0)
    return jax.ShapeDtypeStruct((2,), jnp.dtype(dtype))  # type: ignore[no-untyped-call]


def _jax_takes(draw: Callable[[Any], Any], dtype: str) -> bool:
    given = _key_of(dtype)
    try:
        if isinstance(given, jax.ShapeDtypeStruct):
            jax.eval_shape(draw, given)
        else:
            draw(given)
    except TypeError:
        return False
    return True


@pytest.mark.parametrize("function", sorted(DRAWS))
def test_the_keys_each_function_takes_are_jax_s(function: str) -> None:
    draw = DRAWS[function]
    for dtype in [key.name, *KEY_DTYPES_TRIED]:
        takes = _jax_takes(draw, dtype)
        assert (key_refusal(f"jax.random.{function}", dtype) is None) == takes, dtype


def test_split_fold_in_and_clone_keep_a_typed_key_and_key_data_reads_it() -> None:
    typed = jax.random.key(0)
    for name in ("split", "fold_in", "clone"):
        assert marker_named(str(DRAWS[name](typed).dtype)) is key
        assert result_dtype(f"random.{name}", key) is key
    assert str(jax.random.key_data(typed).dtype) == "uint32"
    assert result_dtype("random.key_data") is uint32
    assert result_dtype("random.wrap_key_data", "uint32") is key


def _jax_operator(op: str, left: Any, right: Any | None) -> str | None:
    """The dtype JAX gives ``left OP right`` (or ``OP left``), None where it refuses."""
    import operator

    function = getattr(operator, f"{op}_", None) or getattr(operator, op)
    try:
        out = function(left) if right is None else function(left, right)
    except (TypeError, ValueError, AssertionError):  # keys @ keys fails an assertion in JAX
        return None
    dtype = str(out.dtype)
    return "bool_" if dtype == "bool" else key.name if dtype.startswith("key<") else dtype


OTHERS: dict[str, Callable[[], Any]] = {
    "key": lambda: jax.random.split(jax.random.key(1)),
    "py_int": lambda: 1,
    "uint32": lambda: jnp.zeros((2,), jnp.uint32),
    "float32": lambda: jnp.zeros((2,), jnp.float32),
}


@pytest.mark.parametrize("op", [*BINARY, *UNARY])
def test_the_operators_keys_take_are_jax_s(op: str) -> None:
    typed = jax.random.split(jax.random.key(0))  # two keys: matmul needs one dimension
    if op in UNARY:
        expected = _jax_operator(op, typed, None)
        found = key_operator(op, key.name, None)
        assert (None if isinstance(found, Undefined) else found) == expected
        return
    for other, make in OTHERS.items():
        for left, right, names in (
            (typed, make(), (key.name, other)),
            (make(), typed, (other, key.name)),
        ):
            if op == "matmul" and other == "py_int":
                continue  # keys @ 1: refused for the scalar before the dtype
            expected = _jax_operator(op, left, right)
            found = key_operator(op, *names)
            assert (None if isinstance(found, Undefined) else found) == expected, names
    assert set(KEY_OPERATORS) <= {*BINARY, *UNARY}


def test_every_implementation_s_key_dtype_reads_as_the_key_marker() -> None:
    for impl in ("threefry2x32", "rbg", "unsafe_rbg"):
        typed = jax.random.key(0, impl=impl)
        assert to_marker(typed.dtype) is key
        assert marker_named(str(typed.dtype)) is key
        assert {m.name for m in KEY_MARKERS if isinstance(typed, ARRAY[m])} == {key.name}
    assert marker_named("key") is key
    assert marker_named("key<") is None
