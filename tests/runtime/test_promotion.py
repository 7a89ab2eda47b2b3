"""promote_types, result_type and the parsing of dtype-likes."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import typing_pkg as tp
from typing_pkg.dtypelike import marker_named, to_marker
from typing_pkg.dtypes import ABSTRACT, BY_NAME, CONCRETE, WEAK


def test_every_concrete_marker_has_its_numpy_dtype() -> None:
    for marker in CONCRETE:
        dtype = np.dtype(marker)
        assert to_marker(dtype) is marker, marker
        assert to_marker(dtype.type) is marker, marker
        assert dtype.itemsize * 8 >= (marker.bits or 0)


def test_weak_markers_have_their_kinds_default_dtype() -> None:
    assert [np.dtype(m) for m in WEAK] == [
        np.dtype("int64"),
        np.dtype("float64"),
        np.dtype("complex128"),
    ]


def test_categories_have_no_dtype() -> None:
    for marker in ABSTRACT:
        with pytest.raises(TypeError, match="category"):
            np.dtype(marker)


def test_markers_are_subclasses_of_their_categories() -> None:
    assert issubclass(tp.float32, tp.floating) and issubclass(tp.float32, tp.inexact)
    assert issubclass(tp.uint8, tp.unsignedinteger) and not issubclass(tp.uint8, tp.signedinteger)
    assert issubclass(tp.weak_int, tp.integer) and tp.weak_int.weak
    assert issubclass(tp.complex64, tp.complexfloating) and issubclass(tp.bool_, tp.generic)
    assert all(issubclass(m, tp.DType) for m in BY_NAME.values())


def test_markers_are_not_values() -> None:
    with pytest.raises(TypeError, match="dtype marker"):
        tp.float32()


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("float32", tp.float32), ("f4", tp.float32), ("<f4", tp.float32), ("float", tp.float64),
        ("double", tp.float64), ("int", tp.int64), ("bool", tp.bool_), ("?", tp.bool_),
        ("bfloat16", tp.bfloat16), ("bf", tp.bfloat16), ("i*", tp.weak_int), ("c16", tp.complex128),
        ("weak_float", tp.weak_float), (bool, tp.bool_), (int, tp.weak_int), (float, tp.weak_float),
        (complex, tp.weak_complex), (np.float16, tp.float16), (np.dtype("uint16"), tp.uint16),
        (np.zeros(2, "int8"), tp.int8), (tp.int4, tp.int4), (tp.floating, tp.floating),
    ],
)  # fmt: skip
def test_dtype_likes(given: object, expected: type[tp.DType]) -> None:
    assert to_marker(given) is expected


@pytest.mark.parametrize(
    "name", ["int_", "uint", "single", "csingle", "half", "float", "double", "cdouble", "bool"]
)
def test_numpy_s_aliases_are_read_as_numpy_reads_them(name: str) -> None:
    # marker_named reads them without NumPy (the plugin reads jnp.int_ so on every cold run)
    assert marker_named(name) is to_marker(np.dtype(name))


def test_library_dtypes_are_read() -> None:
    import ml_dtypes

    assert to_marker(ml_dtypes.float8_e4m3fn) is tp.float8_e4m3fn
    assert to_marker(np.dtype(ml_dtypes.int4)) is tp.int4


@pytest.mark.parametrize(
    "bad", ["flaot32", "float33", object(), 3, None, "datetime64", np.dtype("U3")]
)
def test_bad_dtype_likes_raise_type_error_naming_the_accepted_forms(bad: object) -> None:
    with pytest.raises(TypeError, match=r"cannot interpret .* as a dtype.*expected a dtype marker"):
        to_marker(bad)


def test_a_misspelt_name_gets_a_suggestion() -> None:
    with pytest.raises(TypeError, match="did you mean 'float32'"):
        tp.promote_types("flaot32", "int8")


def test_promote_types_follows_the_rules() -> None:
    assert tp.promote_types(tp.float32, tp.int8) is tp.float32
    assert tp.promote_types(tp.uint8, tp.int8) is tp.int16
    assert tp.promote_types(tp.bfloat16, tp.float16) is tp.float32
    assert tp.promote_types("uint64", "int64", rules="jax-x64") is tp.weak_float  # u64 ∨ i64: f*
    assert tp.promote_types(int, "uint8") is tp.uint8
    assert tp.promote_types("uint32", "int32") is tp.int32  # x64 off: i64 is i32
    assert tp.promote_types("uint32", "int32", rules="jax-x32") is tp.int32  # another name
    assert tp.promote_types("uint32", "int32", rules="jax-x64") is tp.int64


def test_with_x64_off_64_bit_dtypes_are_canonicalised() -> None:
    # As jnp.result_type and every operator do (jnp.promote_types alone ignores x64).
    assert tp.promote_types("uint64", "int64") is tp.int32
    assert tp.promote_types(tp.float64, tp.int8) is tp.float32
    assert tp.result_type(np.zeros(2), np.zeros(2, np.int8)) is tp.float32


def test_undefined_promotion_raises_promotion_error_naming_dtypes_and_rules() -> None:
    with pytest.raises(tp.PromotionError, match=r"float8_e4m3fn and float16 .* 'jax' rules"):
        tp.promote_types("float8_e4m3fn", "float16")
    with pytest.raises(tp.PromotionError, match=r"int8 and int16 .* 'jax-strict' rules"):
        tp.promote_types(tp.int8, tp.int16, rules="jax-strict")
    assert issubclass(tp.PromotionError, TypeError)


def test_categories_do_not_promote() -> None:
    with pytest.raises(tp.PromotionError, match="floating is a category"):
        tp.promote_types(tp.floating, tp.int8)


def test_unknown_rules_are_a_clear_error() -> None:
    from typing_pkg.rules import UnknownRulesError

    with pytest.raises(UnknownRulesError, match="unknown rule set 'jaxx'") as raised:
        tp.promote_types(tp.int8, tp.int8, rules="jaxx")
    assert "valid names: jax, jax-x64, jax-strict," in str(raised.value)


def test_result_type_takes_arrays_scalars_and_dtypes() -> None:
    x = np.zeros(3, dtype=np.int16)
    assert tp.result_type(x, 1) is tp.int16
    assert tp.result_type(x, 1.0) is tp.weak_float  # JAX: int16 ∨ f* = f*
    assert tp.result_type(x, 1.0, rules="numpy") is tp.float64
    assert tp.result_type(tp.bfloat16, 2.0) is tp.bfloat16
    assert tp.result_type(1, 2.0) is tp.weak_float
    assert tp.result_type(True) is tp.bool_
    assert tp.result_type("int8", "uint8", 3) is tp.int16
    with pytest.raises(TypeError, match="at least one"):
        tp.result_type()


def test_markers_pickle_by_reference() -> None:
    assert pickle.loads(pickle.dumps(tp.bfloat16)) is tp.bfloat16


class _Held:
    """A hashable array stand-in (as torch tensors and JAX arrays are hashable by identity)."""

    dtype = np.dtype("float32")


@pytest.mark.slow  # imports torch
def test_promote_types_keeps_no_array_alive() -> None:
    import gc
    import weakref

    import torch

    tensor = torch.zeros(1000, 1000)
    held = _Held()
    refs: list[weakref.ref[object]] = [weakref.ref(tensor), weakref.ref(held)]
    assert tp.promote_types(tensor, tp.int8) is tp.float32
    assert tp.promote_types(tp.int8, held) is tp.float32
    del tensor, held
    gc.collect()
    assert [ref() for ref in refs] == [None, None]


def test_dtype_likes_are_still_cached() -> None:
    from typing_pkg.promotion import _promoted

    tp.promote_types("int8", np.dtype("uint8"), rules="numpy")
    assert _promoted["numpy"]["int8"][np.dtype("uint8")] is tp.int16
