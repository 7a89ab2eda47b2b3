"""``isinstance(x, Array)`` and ``isinstance(x, Array[m])`` at run time, and ``Array[m]`` itself."""

# Type checkers refuse a subscripted generic in isinstance() (mypy: misc) and a
# variable as a type argument (valid-type); both are what these tests exercise.
# mypy: disable-error-code="misc, valid-type"

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
import textwrap
import types
import typing
from pathlib import Path
from typing import Any, TypeVar, cast

import numpy as np
import pytest

import typing_pkg as tp
from typing_pkg import Array, DType
from typing_pkg._instancecheck import ARRAY_TYPES, NOT_ARRAY_TYPES
from typing_pkg.dtypes import ABSTRACT, CONCRETE, WEAK

ROOT = Path(__file__).resolve().parents[2]
MARKERS = (*ABSTRACT, *CONCRETE, *WEAK)
LIBRARIES = ("numpy", "ml_dtypes", "jax", "jaxlib", "torch", "cupy", "dask", "array_api_strict")


def matching(x: object) -> set[str]:
    """Return the names of the markers m for which ``isinstance(x, Array[m])`` holds."""
    return {m.name for m in MARKERS if isinstance(x, Array[m])}


def expected(marker: type[DType], *, weak: bool = False) -> set[str]:
    """Return the names of the markers an array of ``marker`` (weakly typed or not) matches."""
    found = {m.name for m in MARKERS if issubclass(marker, m)}
    if weak:
        weak_marker = {"i": tp.weak_int, "f": tp.weak_float, "c": tp.weak_complex}[marker.kind]
        found |= {m.name for m in MARKERS if issubclass(weak_marker, m)}
    return found


# ------------------------------------------------------------------------ NumPy


@pytest.mark.parametrize("marker", CONCRETE, ids=lambda m: m.name)
def test_numpy_array_of_each_dtype_matches_its_marker_and_categories(marker: type[DType]) -> None:
    x = np.zeros(3, dtype=np.dtype(marker))
    assert isinstance(x, Array)
    assert isinstance(x, Array[Any]) and isinstance(x, Array[DType])
    assert matching(x) == expected(marker)
    assert matching(x) == expected(marker)  # second time: from the caches


def test_numpy_arrays_of_every_shape_and_subclass_are_arrays() -> None:
    assert isinstance(np.array(1.0), Array)  # 0-d
    assert isinstance(np.zeros((2, 0, 3), np.int8), Array[tp.int8])
    assert isinstance(np.ma.masked_array([1.0, 2.0]), Array[tp.float64])
    assert isinstance(np.zeros(4)[::2], Array)  # a view
    assert isinstance(np.zeros(2, ">f4"), Array[tp.float32])  # byte-swapped


def test_numpy_arrays_without_a_marker_dtype_are_arrays_of_unknown_dtype() -> None:
    for x in (np.array(["a"]), np.array([object()]), np.zeros(2, "datetime64[s]")):
        assert isinstance(x, Array) and isinstance(x, Array[DType]) and isinstance(x, Array[Any])
        assert not isinstance(x, Array[tp.generic])
        assert matching(x) == {"DType"}


def test_scalars_and_containers_are_not_arrays() -> None:
    values = [
        np.float32(1), np.int8(1), np.bool_(True), 1, 1.5, True, 1j, "float32", b"x", None,
        [1.0, 2.0], (1,), {"a": 1}, object(), np.float32, tp.float32, Array,
    ]  # fmt: skip
    for value in values:
        assert not isinstance(value, Array), value
        assert not isinstance(value, Array[Any]), value
        assert matching(value) == set(), value


def test_numpy_ndarray_is_a_subclass_and_joins_the_fast_path() -> None:
    assert issubclass(np.ndarray, Array) and issubclass(np.ma.MaskedArray, Array)
    assert not issubclass(np.float32, Array) and not issubclass(float, Array)
    isinstance(np.zeros(1), Array)
    assert np.ndarray in ARRAY_TYPES
    isinstance(np.float32(1), Array)
    assert np.float32 in NOT_ARRAY_TYPES


# -------------------------------------------------------------------------- JAX


def test_jax_arrays_and_tracers_are_arrays() -> None:
    import jax
    import jax.numpy as jnp

    def f(x: object) -> bool:
        return isinstance(x, Array)

    def g(x: object) -> bool:
        return isinstance(x, Array[tp.int32])

    x = jnp.array([1, 2, 3])
    assert f(x) and g(x)
    assert bool(jax.jit(f)(x)) and bool(jax.jit(g)(x))  # the seed's test, and with a dtype
    assert not bool(jax.jit(lambda x: isinstance(x, Array[tp.float32]))(x))

    seen: list[tuple[bool, set[str]]] = []

    def record(x: Any) -> Any:
        seen.append((isinstance(x, Array), matching(x)))
        return x

    jax.vmap(record)(x)
    jax.grad(lambda x: record(x).sum())(jnp.ones(3, jnp.float32))
    jax.jit(jax.vmap(record))(jnp.ones((2, 2), jnp.bfloat16))
    assert seen == [
        (True, expected(tp.int32)),
        (True, expected(tp.float32)),
        (True, expected(tp.bfloat16)),
    ]


def test_jax_weak_types_match_their_dtype_and_their_weak_marker() -> None:
    import jax
    import jax.numpy as jnp

    seen: list[set[str]] = []

    def record(x: Any) -> Any:
        seen.append(matching(x))
        return x

    jax.jit(record)(1.0)  # a Python float: a weakly typed float32 tracer
    jax.jit(record)(2)
    record(jnp.asarray(1.0))  # weakly typed concrete array
    record(jnp.asarray(1.0, jnp.float32))  # strongly typed
    assert seen == [
        expected(tp.float32, weak=True),
        expected(tp.int32, weak=True),
        expected(tp.float32, weak=True),
        expected(tp.float32),
    ]
    assert "weak_float" not in seen[-1]


def test_jax_decides_its_tracers_itself() -> None:
    import jax
    import jax.numpy as jnp

    assert hasattr(jax, "new_ref"), "the pinned JAX has mutable refs"
    seen: list[bool] = []

    def f(x: Any) -> Any:
        ref = jax.new_ref(x)  # a tracer that jax.Array does not count as an array
        seen.extend([isinstance(ref, jax.Array), isinstance(ref, Array), isinstance(x, Array)])
        return x

    jax.jit(f)(jnp.zeros(2))
    assert seen == [False, False, True]


def test_jax_key_arrays_are_arrays_of_unknown_dtype() -> None:
    import jax

    key = jax.random.key(0)
    assert isinstance(key, Array) and matching(key) == {"DType"}


# ---------------------------------------------------------------------- PyTorch


@pytest.mark.parametrize(
    ("name", "marker"),
    [
        ("bool", tp.bool_), ("int8", tp.int8), ("int16", tp.int16), ("int32", tp.int32),
        ("int64", tp.int64), ("uint8", tp.uint8), ("uint16", tp.uint16), ("uint32", tp.uint32),
        ("uint64", tp.uint64), ("float16", tp.float16), ("bfloat16", tp.bfloat16),
        ("float32", tp.float32), ("float64", tp.float64), ("complex32", tp.complex32),
        ("complex64", tp.complex64), ("complex128", tp.complex128),
        ("float8_e4m3fn", tp.float8_e4m3fn), ("float8_e5m2", tp.float8_e5m2),
    ],
)  # fmt: skip
@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
@pytest.mark.requires("torch")
def test_torch_tensors_match_their_marker(name: str, marker: type[DType]) -> None:
    import torch

    x = torch.zeros(2, dtype=getattr(torch, name))
    assert isinstance(x, Array)
    assert matching(x) == expected(marker)


@pytest.mark.requires("torch")
def test_torch_tensor_subclasses_are_arrays() -> None:
    import torch

    assert issubclass(torch.Tensor, Array)
    assert isinstance(torch.nn.Parameter(torch.zeros(2)), Array[tp.float32])
    assert not isinstance(torch.float32, Array)


# ------------------------------------------------------------ array_api_strict


@pytest.mark.requires("array_api_strict")
def test_array_api_strict_arrays() -> None:
    import array_api_strict as xp

    x = xp.asarray([1.0, 2.0], dtype=xp.float32)
    assert isinstance(x, Array) and matching(x) == expected(tp.float32)
    assert matching(xp.asarray([True])) == expected(tp.bool_)


# ------------------------------------------- libraries recognised without import


def _fake_library(monkeypatch: pytest.MonkeyPatch, module: str, name: str) -> type:
    mod = types.ModuleType(module)

    class Fake:
        dtype = np.dtype("float32")

    Fake.__name__ = Fake.__qualname__ = name
    setattr(mod, name, Fake)
    monkeypatch.setitem(sys.modules, module, mod)
    return Fake


def test_cupy_and_dask_arrays_are_recognised_once_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    for module, name in (("cupy", "ndarray"), ("dask.array", "Array")):
        cls = _fake_library(monkeypatch, module, name)
        assert isinstance(cls(), Array) and isinstance(cls(), Array[tp.float32])
        assert not isinstance(cls(), Array[tp.int8])
        sub = type("Sub", (cls,), {})
        assert isinstance(sub(), Array) and issubclass(sub, Array)


def _run(code: str) -> str:
    path = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": str(ROOT) + (os.pathsep + path if path else "")}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_checks_import_no_library() -> None:
    out = _run(
        f"""
        import sys
        from typing_pkg import Array, float32, floating, int8

        class Duck:
            dtype = "float32"

        results = [
            isinstance(1.0, Array), isinstance([1.0], Array[float32]), isinstance(Duck(), Array),
            isinstance(object(), Array[floating]),
        ]
        Array.register(Duck)
        results += [isinstance(Duck(), Array), isinstance(Duck(), Array[float32]),
                    isinstance(Duck(), Array[int8])]
        print(results, sorted(m for m in {LIBRARIES!r} if m in sys.modules))
        """
    )
    assert out == "[False, False, False, False, True, True, False] []"


def test_numpy_checks_import_no_other_library() -> None:
    out = _run(
        f"""
        import sys
        import numpy as np
        from typing_pkg import Array, float32, floating, int8

        x = np.zeros(2, np.float32)
        results = [isinstance(x, Array), isinstance(x, Array[float32]), isinstance(x, Array[int8]),
                   isinstance(np.float32(1), Array), isinstance(x, Array[floating])]
        print(results, sorted(m for m in {LIBRARIES!r} if m in sys.modules))
        """
    )
    assert out == "[True, True, False, False, True] ['numpy']"


@pytest.mark.requires("torch")
def test_libraries_imported_after_the_first_checks_are_recognised() -> None:
    import jax  # noqa: F401  (both libraries must be importable here)
    import torch  # noqa: F401

    out = _run(
        """
        from typing_pkg import Array, float32, int32

        class Plain:
            dtype = "float32"

        before = [isinstance(Plain(), Array), isinstance(1.0, Array),
                  isinstance([], Array[float32])]
        import torch
        import jax, jax.numpy as jnp

        t = torch.zeros(2)
        x = jnp.array([1, 2, 3])
        after = [isinstance(t, Array), isinstance(t, Array[float32]), isinstance(x, Array),
                 bool(jax.jit(lambda x: isinstance(x, Array[int32]))(x)),
                 isinstance(Plain(), Array)]
        print(before, after)
        """
    )
    assert out == "[False, False, False] [True, True, True, True, False]"


# ---------------------------------------------------------------- registration


def test_register_makes_instances_and_subclass_instances_arrays() -> None:
    class Duck:
        def __init__(self, dtype: object) -> None:
            self.dtype = dtype

    class SubDuck(Duck):
        pass

    assert not isinstance(Duck("float32"), Array)  # remembered as not an array ...
    assert Duck in NOT_ARRAY_TYPES
    assert Array.register(Duck) is Duck  # ... until registered
    assert Duck not in NOT_ARRAY_TYPES
    assert isinstance(Duck("float32"), Array) and isinstance(SubDuck("int8"), Array)
    assert issubclass(SubDuck, Array)
    assert matching(Duck("float32")) == expected(tp.float32)
    assert matching(Duck(np.dtype("int8"))) == expected(tp.int8)
    assert matching(Duck(tp.bfloat16)) == expected(tp.bfloat16)
    assert matching(Duck("no such dtype")) == {"DType"}


def test_registered_class_without_dtype_is_an_array_of_unknown_dtype() -> None:
    @Array.register
    class Opaque:
        pass

    assert isinstance(Opaque(), Array) and matching(Opaque()) == {"DType"}


def test_registering_a_builtin_forgets_it_was_not_an_array() -> None:
    class MyFloat(float):
        pass

    assert not isinstance(MyFloat(1.0), Array)
    assert MyFloat in NOT_ARRAY_TYPES
    Array.register(MyFloat)
    assert isinstance(MyFloat(1.0), Array)


# ---------------------------------------------------------------- subclassing


def test_real_subclasses_check_as_plain_abcs() -> None:
    class Float32Array(Array[tp.float32]):
        dtype = np.dtype("float32")  # type: ignore[assignment]

    Float32Array.__abstractmethods__ = frozenset()  # the ~70 members, waived for the test
    x = Float32Array()  # type: ignore[abstract]
    assert Float32Array.__orig_bases__ == (Array[tp.float32],)  # type: ignore[attr-defined]
    assert isinstance(x, Array) and isinstance(x, Array[tp.float32])
    assert isinstance(x, Float32Array)
    assert not isinstance(np.zeros(2, np.float32), Float32Array)  # numpy is no subclass of it
    assert not issubclass(np.ndarray, Float32Array)


def test_generic_subclasses_use_typings_machinery() -> None:
    T = TypeVar("T", bound=DType)

    class Tagged(Array[T]):
        pass

    alias = Tagged[tp.int8]
    assert typing.get_origin(alias) is Tagged and typing.get_args(alias) == (tp.int8,)
    assert vars(Tagged)["__parameters__"] == (T,)


# ------------------------------------------------------------------- Array[m]


def test_aliases_are_cached_and_introspectable() -> None:
    alias = cast("Any", Array[tp.float32])  # statically a class; at run time a GenericAlias
    assert repr(alias) == "Array[float32]" and repr(Array[Any]) == "Array[Any]"
    assert repr(Array[tp.weak_int]) == "Array[weak_int]"
    assert typing.get_origin(alias) is Array and typing.get_args(alias) == (tp.float32,)
    assert alias.__origin__ is Array and alias.__args__ == (tp.float32,)
    assert alias.__parameters__ == ()
    assert alias != Array[tp.float64]
    assert pickle.loads(pickle.dumps(alias)) is alias
    assert pickle.loads(pickle.dumps(Array[Any])) is Array[Any]
    assert copy.copy(alias) is alias and copy.deepcopy(alias) is alias
    assert alias is Array[tp.float32] and alias is Array[(tp.float32,)]  # cached


def test_aliases_work_in_annotations() -> None:
    def f(x: Array[tp.float32], y: Array[tp.int8] | None, z: list[Array[Any]]) -> Array[tp.bool_]:
        raise NotImplementedError

    hints = typing.get_type_hints(f)
    assert hints["x"] is Array[tp.float32]
    assert hints["y"] == Array[tp.int8] | None
    assert hints["z"] == list[Array[Any]]
    assert hints["return"] is Array[tp.bool_]
    namespace: dict[str, Any] = {"Array": Array, "tp": tp, "Any": Any}
    exec("def g(x: Array[tp.floating], y: 'Array[tp.int8]') -> None: pass", namespace)
    assert typing.get_type_hints(namespace["g"]) == {
        "x": Array[tp.floating],
        "y": Array[tp.int8],
        "return": type(None),
    }


def test_arrays_own_annotations_resolve() -> None:
    hints = typing.get_type_hints(Array.__getitem__)
    assert typing.get_origin(hints["return"]) is Array
    assert typing.get_type_hints(Array.__lt__)["return"] is Array[tp.bool_]


def test_aliases_in_unions_and_tuples() -> None:
    x = np.zeros(2, np.float32)
    assert isinstance(x, Array[tp.float32] | None) and isinstance(None, Array[tp.float32] | None)
    assert not isinstance(x, Array[tp.int8] | None)
    assert isinstance(x, (Array[tp.int8], Array[tp.floating]))


def test_issubclass_with_a_dtype_is_refused() -> None:
    with pytest.raises(TypeError, match="belongs to the instance"):
        issubclass(np.ndarray, Array[tp.float32])
    assert issubclass(np.ndarray, Array[Any]) and issubclass(np.ndarray, Array[DType])
    assert not issubclass(float, Array[Any])


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        (int, "for Python's int: typing_pkg.weak_int"),
        (float, "for Python's float: typing_pkg.weak_float"),
        (bool, "for Python's bool: typing_pkg.bool_"),
        ("x", "'x' is none of these"),
        ("float32", "dtype marker"),
        (None, "dtype marker"),
        ([1], "dtype marker"),
        (np.float32, "dtype marker"),
        (np.zeros(2), "dtype marker"),
        ((tp.float32, tp.int8), "exactly one dtype argument"),
        ((), "exactly one dtype argument"),
    ],
)
def test_bad_arguments_raise_type_error(argument: object, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        Array[argument]


def test_type_variables_give_typings_generic_alias() -> None:
    T = TypeVar("T", bound=DType)
    alias = cast("Any", Array[T])
    assert typing.get_origin(alias) is Array and alias.__parameters__ == (T,)
    # Substituting gives typing's own alias: an annotation, not an isinstance target.
    assert typing.get_args(alias[tp.float32]) == (tp.float32,)


def test_array_and_its_aliases_cannot_be_instantiated() -> None:
    with pytest.raises(TypeError, match="abstract"):
        Array()  # type: ignore[abstract]
    with pytest.raises(TypeError, match="abstract"):
        Array[tp.float32]()  # type: ignore[abstract]
