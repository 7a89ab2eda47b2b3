"""``typing_pkg.result_dtype``: the runtime query of the JAX function table.

The expected dtypes are JAX's documented behaviour, written by hand (the
recorded truth checks the whole table in ``test_function_truth.py``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import typing_pkg as tp
from typing_pkg.api import UnknownFunctionError, explain, lookup, resolve
from typing_pkg.api.kinds import NotAnArray, Reduce, ToInexact
from typing_pkg.promotion import PromotionError

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("function", "args", "rules", "expected"),
    [
        ("jax.numpy.mean", ("int8",), "jax", tp.float32),
        ("jax.numpy.mean", ("int8",), "jax-x64", tp.float32),  # int8 → float32 even with x64
        ("jax.numpy.exp", ("int64",), "jax-x64", tp.float64),  # 64-bit ints → float64
        ("jax.numpy.exp", ("int64",), "jax", tp.float32),  # int64 is int32 with x64 off
        ("jax.numpy.exp", (tp.bfloat16,), "jax", tp.bfloat16),
        ("jax.numpy.sin", (int,), "jax", tp.weak_float),  # a Python int is weak
        ("jax.numpy.add", ("int8", float), "jax", tp.weak_float),  # i1 + f* = f*
        ("jax.numpy.add", ("bfloat16", "float16"), "jax", tp.float32),
        ("jax.numpy.abs", ("complex64",), "jax", tp.float32),
        ("jax.numpy.real", ("complex64",), "jax", tp.float32),
        ("jax.numpy.isnan", ("float16",), "jax", tp.bool_),
        ("jax.numpy.greater", ("int8", "uint8"), "jax", tp.bool_),
        ("jax.numpy.argmax", ("float16",), "jax", tp.int32),
        ("jax.numpy.argmax", ("float16",), "jax-x64", tp.int64),
        ("jax.numpy.sum", ("int8",), "jax", tp.int32),
        ("jax.numpy.sum", ("int8",), "jax-x64", tp.int64),
        ("jax.numpy.sum", ("uint8",), "jax", tp.uint32),
        ("jax.numpy.sum", ("bool",), "jax", tp.int32),
        ("jax.numpy.max", ("int8",), "jax", tp.int8),
        ("jax.numpy.cumsum", ("int8",), "jax", tp.int8),
        ("jax.numpy.reshape", ("bfloat16",), "jax", tp.bfloat16),
        ("jax.numpy.zeros", (), "jax", tp.float32),
        ("jax.numpy.zeros", (), "jax-x64", tp.float64),
        ("jax.numpy.full", (int,), "jax", tp.weak_int),  # full(3, 7) is weakly typed
        ("jax.numpy.array", ([float, float],), "jax", tp.float32),  # a list is not weak
        ("jax.numpy.concatenate", (["int8", "float16"],), "jax", tp.float16),
        ("jax.numpy.concatenate", ("int8", "float16"), "jax", tp.float16),  # gathered
        ("jax.numpy.where", ("bool", "int8", "float32"), "jax", tp.float32),
        ("jax.numpy.zeros_like", ("int8",), "jax", tp.int8),
        ("jax.random.normal", (), "jax", tp.float32),
        ("jax.random.randint", (), "jax-x64", tp.int64),
        ("jax.random.bernoulli", (), "jax", tp.bool_),
        ("jax.nn.relu", ("bfloat16",), "jax", tp.bfloat16),
        ("jax.nn.one_hot", ("int32",), "jax", tp.float32),
        ("jax.lax.add", ("int32", int), "jax", tp.int32),  # a Python int is int32 …
        ("jax.lax.exp", ("float16",), "jax", tp.float16),
        ("jax.Array.sum", ("int16",), "jax", tp.int32),
        ("jax.Array.T", ("int16",), "jax", tp.int16),
    ],
)
def test_result_dtypes(
    function: str, args: tuple[object, ...], rules: str, expected: object
) -> None:
    assert tp.result_dtype(function, *args, rules=rules) is expected
    assert tp.result_dtype(function, *args, rules=rules) is expected  # the cached answer


def test_lax_does_not_promote_a_python_int_under_x64() -> None:
    # … and int64 with x64 on, which lax.add refuses to mix with int32
    with pytest.raises(PromotionError, match=r"lax\.add needs one dtype"):
        tp.result_dtype("lax.add", "int32", int, rules="jax-x64")


def test_dtype_arguments_in_every_form() -> None:
    import jax.numpy as jnp
    import ml_dtypes

    for dtype in (tp.bfloat16, "bfloat16", "bf", ml_dtypes.bfloat16, jnp.bfloat16):
        assert tp.result_dtype("jnp.zeros", dtype=dtype) is tp.bfloat16


def test_numpy_and_jax_dtypes_and_python_types_as_dtype_arguments() -> None:
    import jax.numpy as jnp

    assert tp.result_dtype("jnp.ones", dtype=np.float16) is tp.float16
    assert tp.result_dtype("jnp.ones", dtype=np.dtype("int8")) is tp.int8
    assert tp.result_dtype("jnp.ones", dtype=jnp.int16) is tp.int16
    assert tp.result_dtype("jnp.ones", dtype=jnp.dtype("uint8")) is tp.uint8
    assert tp.result_dtype("jnp.ones", dtype=jnp.zeros(2, jnp.float16).dtype) is tp.float16
    # Python types mean JAX's default dtypes, strongly typed
    assert tp.result_dtype("jnp.ones", dtype=float) is tp.float32
    assert tp.result_dtype("jnp.ones", dtype=float, rules="jax-x64") is tp.float64
    assert tp.result_dtype("jnp.ones", dtype=int) is tp.int32
    assert tp.result_dtype("jnp.ones", dtype=bool) is tp.bool_
    assert tp.result_dtype("jnp.ones", dtype=complex) is tp.complex64
    # a 64-bit request is canonicalised with x64 off
    assert tp.result_dtype("jnp.ones", dtype="float64") is tp.float32
    assert tp.result_dtype("jnp.ones", dtype="float64", rules="jax-x64") is tp.float64
    assert tp.result_dtype("jnp.sum", "int8", dtype="int16") is tp.int16
    assert tp.result_dtype("Array.astype", "float32", dtype=float) is tp.float32


def test_options() -> None:
    assert tp.result_dtype("jnp.sum", "uint8", promote_integers=False) is tp.uint8
    assert tp.result_dtype("jnp.sum", "uint8", promote_integers=True) is tp.uint32
    assert tp.result_dtype("jnp.dot", "int8", "int8", preferred_element_type="int32") is tp.int32
    assert tp.result_dtype("lax.convert_element_type", "int8", new_dtype="float16") is tp.float16


def test_tuples_unknown_dtypes_and_aliases() -> None:
    assert tp.result_dtype("jnp.linalg.slogdet", "complex64") == (tp.complex64, tp.float32)
    assert tp.result_dtype("linalg.svd", "float16") == (tp.float16, tp.float16, tp.float16)
    assert tp.result_dtype("jnp.frexp", "float16") == (tp.float16, tp.int32)
    assert tp.result_dtype("random.key") is tp.key  # a typed key array (key<fry>)
    assert tp.result_dtype("random.split", tp.key) is tp.key
    assert tp.result_dtype("jnp.reshape", tp.key) is tp.DType  # not modelled: unknown
    assert resolve("jnp.mean") == resolve("mean") == "jax.numpy.mean"
    assert resolve("Array.at[].set") == "jax.Array.at.set"
    assert resolve("fft.rfft") == "jax.numpy.fft.rfft"
    assert resolve("jr.normal") == "jax.random.normal"
    assert isinstance(lookup("jnp.mean"), Reduce)
    assert isinstance(lookup("nn.softmax"), ToInexact)


def test_the_errors_are_clear() -> None:
    with pytest.raises(UnknownFunctionError, match=r"did you mean 'jax\.numpy\.mean'"):
        tp.result_dtype("jnp.meen", "int8")
    with pytest.raises(TypeError, match="does not return an array: returns a tuple of ints"):
        tp.result_dtype("jnp.shape")
    assert isinstance(lookup("jnp.float32"), NotAnArray)
    with pytest.raises(PromotionError, match="does not accept bool_"):
        tp.result_dtype("jnp.subtract", "bool", "bool")
    with pytest.raises(PromotionError, match="no implicit promotion"):
        tp.result_dtype("jnp.add", "int8", "float32", rules="jax-strict")
    with pytest.raises(TypeError, match="needs the dtypes of its array arguments: x, y"):
        tp.result_dtype("jnp.add", "int8")
    with pytest.raises(TypeError, match="unexpected option 'dtype'"):
        tp.result_dtype("jnp.exp", "int8", dtype="float32")
    with pytest.raises(TypeError, match="cannot interpret"):
        tp.result_dtype("jnp.exp", "int9")
    with pytest.raises(ValueError, match="follows JAX's rule sets"):
        tp.result_dtype("jnp.exp", "int8", rules="numpy")


def test_explain_gives_the_entry_and_the_outcome_without_raising() -> None:
    found = explain("jnp.subtract", "bool", "bool")
    assert found.function == "jax.numpy.subtract"
    assert found.text == "undefined: - does not accept bool_"
    assert explain("jnp.mean", "int8").text == "float32"


def test_importing_typing_pkg_does_not_load_the_table() -> None:
    code = (
        "import sys, typing_pkg\n"
        "print('typing_pkg.api' in sys.modules)\n"
        "typing_pkg.result_dtype('jnp.exp', 'int8')\n"
        "print('typing_pkg.api.jax_numpy' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.split() == ["False", "True"]


def test_result_dtype_keeps_no_array_alive() -> None:
    import gc
    import weakref

    import numpy as np

    class Held:
        """A hashable array stand-in (JAX arrays and torch tensors hash by identity)."""

        dtype = np.dtype("int8")

    held = Held()
    ref = weakref.ref(held)
    assert tp.result_dtype("jax.numpy.mean", held) is tp.float32
    del held
    gc.collect()
    assert ref() is None
