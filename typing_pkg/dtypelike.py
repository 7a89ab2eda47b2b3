"""Turning anything a user may pass as a dtype into a marker.

``to_marker`` accepts every ``DTypeLike`` form:

* a marker (``typing_pkg.float32``, also a category such as ``floating``);
* Python ``bool`` (→ ``bool_``), ``int``, ``float``, ``complex`` (→ the weak
  markers: a Python scalar type is weakly typed, as in JAX and NEP 50);
* a string: a marker name (``"float32"``, ``"weak_int"``), a code of JAX's
  table (``"f4"`` is float32 there as in NumPy, ``"i*"``, ``"bf"``), or
  anything NumPy parses (``"float"``, ``"double"``, ``"<i8"``); NumPy's
  reading wins for its own aliases, so ``"int"`` is ``int64``, not weak;
* a NumPy dtype or scalar type, an ml_dtypes type, a JAX dtype
  (``jnp.bfloat16``), a PyTorch dtype (``torch.float32``), an array_api_strict
  dtype;
* any object with a ``.dtype`` (an array; a JAX array that is weakly typed
  gives the weak marker of its kind).

Anything else raises ``TypeError`` naming the accepted forms.  No library is
imported here unless the input comes from it (NumPy parses the strings we do
not know ourselves).
"""

from __future__ import annotations

import difflib
from typing import Any, Final, cast

from typing_pkg import dtypes
from typing_pkg.dtypes import BY_NAME, CONCRETE, EXTENDED, WEAK, DType, DTypeMeta

__all__ = ["ACCEPTED_FORMS", "marker_named", "to_marker"]

ACCEPTED_FORMS: Final = (
    "a dtype marker (typing_pkg.float32), a dtype name or alias ('float32', 'f4', "
    "'bfloat16', 'i*'), a NumPy, ml_dtypes, JAX, PyTorch or array_api_strict dtype or "
    "scalar type, Python bool/int/float/complex, or an object with a .dtype"
)

_PY_TYPES: Final[dict[type, type[DType]]] = {
    bool: dtypes.bool_,
    int: dtypes.weak_int,
    float: dtypes.weak_float,
    complex: dtypes.weak_complex,
}

# Names other libraries print for our markers (NumPy's "bool", PyTorch's aliases).
_ALIASES: Final[dict[str, type[DType]]] = {
    "bool": dtypes.bool_,
    "half": dtypes.float16,
    "chalf": dtypes.complex32,
    "float": dtypes.float64,
    "double": dtypes.float64,
    "cfloat": dtypes.complex64,
    "cdouble": dtypes.complex128,
    # NumPy's scalar type names that JAX exports too (jnp.int_, jnp.single)
    "int_": dtypes.int64,
    "uint": dtypes.uint64,
    "single": dtypes.float32,
    "csingle": dtypes.complex64,
    "short": dtypes.int16,
    "int": dtypes.int64,
    "long": dtypes.int64,
    "complex": dtypes.complex128,
    "prng_key": dtypes.key,  # jax.dtypes.prng_key, as jaxtyping's Key names it
}

_BY_STRING: Final[dict[str, type[DType]]] = {
    **{m.code: m for m in (*CONCRETE, *WEAK)},
    **_ALIASES,
    **BY_NAME,
}


def marker_named(name: str) -> type[DType] | None:
    """The marker a name alone gives (a marker's name or code, an alias, JAX's ``key<fry>``);
    None for another.

    Imports no library, unlike ``to_marker``, which asks NumPy about the strings it
    does not know (``"<i8"``, and ``"e"``, NumPy's code of float16).
    """
    found = _BY_STRING.get(name)
    if found is None and name.startswith("key<") and name.endswith(">"):
        return dtypes.key  # a typed PRNG key of any implementation (fry, rbg, …)
    return found


def _from_string(text: str) -> type[DType] | None:
    found = marker_named(text)
    if found is not None:
        return found
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - NumPy is a dependency
        return None
    try:
        parsed = np.dtype(text)
    except TypeError:
        return None
    return _from_numpy_name(parsed.name)


def _from_numpy_name(name: str) -> type[DType] | None:
    return _BY_STRING.get(name)


def _library_dtype(obj: object) -> type[DType] | None:
    """Read a dtype object of NumPy, PyTorch or array_api_strict without importing them."""
    module = type(obj).__module__
    if module == "numpy" or module.startswith("numpy."):
        name = getattr(obj, "name", None)
        return _from_numpy_name(name) if isinstance(name, str) else None
    if module == "torch":
        return _BY_STRING.get(str(obj).removeprefix("torch."))
    if module.startswith("jax"):  # JAX's extended dtypes: key<fry>
        found = marker_named(str(obj))
        if found in EXTENDED:
            return found
    np_dtype = getattr(obj, "_np_dtype", None)  # array_api_strict's DType
    if np_dtype is not None:
        return _library_dtype(np_dtype)
    return None


def _suggest(text: str) -> str:
    close = difflib.get_close_matches(text, [m.name for m in (*CONCRETE, *WEAK)], n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def to_marker(obj: Any) -> type[DType]:
    """Return the marker for a ``DTypeLike``; raise ``TypeError`` for anything else."""
    if type(obj) is DTypeMeta:
        return cast("type[DType]", obj)
    if isinstance(obj, type):
        found = _PY_TYPES.get(obj)
        if found is not None:
            return found
        dtype_attr = getattr(obj, "dtype", None)  # NumPy / ml_dtypes / JAX scalar types
        if dtype_attr is not None and not isinstance(dtype_attr, property):
            found = _library_dtype(dtype_attr)
            if found is not None:
                return found
        if obj.__module__ == "numpy" or obj.__module__.startswith(("ml_dtypes", "numpy.")):
            import numpy as np

            found = _from_numpy_name(np.dtype(obj).name)
            if found is not None:
                return found
    elif isinstance(obj, str):
        found = _from_string(obj)
        if found is not None:
            return found
        raise TypeError(
            f"cannot interpret {obj!r} as a dtype{_suggest(obj)} (expected {ACCEPTED_FORMS})"
        )
    else:
        found = _library_dtype(obj)
        if found is not None:
            return found
        dtype_attr = getattr(obj, "dtype", None)
        if dtype_attr is not None and not isinstance(obj, (bool, int, float, complex)):
            found = _library_dtype(dtype_attr) or (
                _from_string(dtype_attr) if isinstance(dtype_attr, str) else None
            )
            if found is None and type(dtype_attr) is DTypeMeta:
                found = cast("type[DType]", dtype_attr)
            if found is not None:
                if getattr(obj, "weak_type", False) is True and found.kind in "ifc":
                    return _WEAK_OF_KIND[found.kind]
                return found
    raise TypeError(f"cannot interpret {obj!r} as a dtype (expected {ACCEPTED_FORMS})")


_WEAK_OF_KIND: Final[dict[str, type[DType]]] = {
    "i": dtypes.weak_int,
    "u": dtypes.weak_int,
    "f": dtypes.weak_float,
    "c": dtypes.weak_complex,
}
