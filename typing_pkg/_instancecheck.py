"""How ``isinstance(x, Array)`` recognises the arrays of other libraries.

Nothing here imports an array library.  A library's array class is looked up
in ``sys.modules`` when a check needs it, so a library that is not imported
costs nothing and is never imported by a check, and one imported later is
recognised from then on (an instance of its arrays cannot exist before).

Two kinds of recognition:

* by class (``numpy.ndarray``, ``torch.Tensor``, ``jax.Array``'s concrete
  array type, ``cupy.ndarray``, ``dask.array.Array``, array_api_strict's
  array): answered once per type by ``Array.__subclasshook__`` and remembered
  in ``ARRAY_TYPES``, the set the fast path of ``isinstance`` looks in first;
* by instance (JAX's tracers): ``jax.Array``'s own check looks at the tracer's
  abstract value (a tracer of a mutable ref is not an array), so for a tracer
  type the answer is never cached and JAX is asked every time.

Other types found not to be arrays are remembered in ``NOT_ARRAY_TYPES``
(Python scalars, NumPy scalars, …), forgotten when ``Array.register`` makes
them arrays.  A type that exists before a library is imported cannot subclass
that library's classes, so neither cache goes stale when a library is
imported later.

The dtype test of ``isinstance(x, Array[float32])`` reads ``x.dtype``, maps it
to a marker with ``typing_pkg.dtypelike.to_marker`` (NumPy, ml_dtypes, JAX,
PyTorch and array_api_strict dtypes) and remembers the verdict per dtype
object, so after the first array of a type and dtype the test is one set and
one dictionary lookup.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, Final, cast

from typing_pkg import dtypes
from typing_pkg.dtypelike import to_marker
from typing_pkg.dtypes import DType

__all__ = [
    "ARRAY_TYPES",
    "CLASS_LIBRARIES",
    "FAST_DTYPE_TYPES",
    "INSTANCE_LIBRARIES",
    "NOT_ARRAY_TYPES",
    "dtype_instancecheck",
    "forget_negatives",
    "is_library_array_class",
    "is_library_array_instance",
    "marker_of",
    "remember_non_array",
]

CLASS_LIBRARIES: Final[tuple[tuple[str, str], ...]] = (
    ("numpy", "ndarray"),
    ("torch", "Tensor"),
    ("jax", "Array"),  # by class: the concrete ArrayImpl (tracers: see below)
    ("cupy", "ndarray"),
    ("dask.array", "Array"),
    ("array_api_strict._array_object", "Array"),  # not re-exported by the package
)
"""(module, attribute) of each library's array base class, recognised by class."""

INSTANCE_LIBRARIES: Final[tuple[tuple[str, str, str, str], ...]] = (
    ("jax", "Array", "jax._src.core", "Tracer"),
)
"""(module, attribute) of the classes whose own ``isinstance`` must see the instance, and
(module, attribute) of the base of the types it decides by instance (JAX's tracers)."""

ARRAY_TYPES: Final[set[type]] = set()
"""Exact types known to be arrays by class: the fast path of ``isinstance(x, Array)``."""

NOT_ARRAY_TYPES: Final[set[type]] = set()
"""Exact types known not to be arrays: the fast path of a negative answer."""

_MAX_CACHED_TYPES: Final = 1024  # classes made on the fly must not pile up
_MAX_CACHED_DTYPES: Final = 512  # per alias; parametric dtypes (strings, structs) are unbounded


def _lookup(module: str, name: str) -> type | None:
    """Return ``module.name`` if the module is already imported and it is a class."""
    found = sys.modules.get(module)
    if found is None:
        return None
    cls = getattr(found, name, None)  # None while the module is still initialising
    return cls if isinstance(cls, type) else None


def is_library_array_class(cls: type) -> bool:
    """Return whether ``cls`` subclasses the array class of an imported library."""
    for module, name in CLASS_LIBRARIES:
        base = _lookup(module, name)
        if base is not None and issubclass(cls, base):
            return True
    return False


def is_library_array_instance(obj: object) -> bool:
    """Return whether a library that checks instances (JAX, for tracers) calls ``obj`` an array."""
    for module, name, _, _ in INSTANCE_LIBRARIES:
        base = _lookup(module, name)
        if base is not None and isinstance(obj, base):
            return True
    return False


def remember_non_array(cls: type) -> None:
    """Remember that instances of ``cls`` are not arrays, unless one of them might be."""
    for module, _, traced_module, traced_name in INSTANCE_LIBRARIES:
        if module in sys.modules:
            traced = _lookup(traced_module, traced_name)
            if traced is None or issubclass(cls, traced):
                return  # (perhaps) a tracer: the library decides each instance
    if len(NOT_ARRAY_TYPES) >= _MAX_CACHED_TYPES:
        NOT_ARRAY_TYPES.clear()
    NOT_ARRAY_TYPES.add(cls)


def forget_negatives(registered: type) -> None:
    """Forget the non-arrays that ``registered`` (just registered as an Array) makes arrays."""
    NOT_ARRAY_TYPES.difference_update([t for t in NOT_ARRAY_TYPES if issubclass(t, registered)])


# Keyed by (type, dtype): dtype objects of different libraries may hash and
# compare alike (array_api_strict's equal NumPy's hash, and warn when compared).
_markers: Final[dict[tuple[type, Any], type[DType] | None]] = {}


def marker_of(dtype: object) -> type[DType] | None:
    """Return the marker of a library's dtype object, or None if it has none (``object``, keys)."""
    key = (type(dtype), dtype)
    try:
        return _markers[key]
    except KeyError:
        pass
    except TypeError:  # unhashable: no caching
        return _marker_uncached(dtype)
    found = _markers[key] = _marker_uncached(dtype)
    if len(_markers) > _MAX_CACHED_DTYPES:
        _markers.clear()
    return found


def _marker_uncached(dtype: object) -> type[DType] | None:
    try:
        return to_marker(dtype)
    except (TypeError, ValueError):
        return None


FAST_DTYPE_TYPES: Final[set[type]] = set()
"""Array types whose dtype objects may key a plain dict: the fast path of ``Array[m]`` checks."""

_PLAIN_DTYPE_MODULES: Final = frozenset({"numpy", "numpy.dtypes", "torch", "builtins"})


def _plain_dtype(dtype: object) -> bool:
    """Return whether ``dtype`` hashes and compares only like its own library's dtypes.

    NumPy dtypes (JAX's too), PyTorch dtypes, strings and markers do; other
    libraries' may not (array_api_strict's hash like NumPy's and warn when
    compared to them), so their arrays keep to the slow path.
    """
    if type(dtype).__module__ in _PLAIN_DTYPE_MODULES:
        return True
    return isinstance(dtype, type) and issubclass(dtype, DType)


_WEAK_OF_KIND: Final[dict[str, type[DType]]] = {
    "i": dtypes.weak_int,
    "u": dtypes.weak_int,
    "f": dtypes.weak_float,
    "c": dtypes.weak_complex,
}


def _verdict(dtype: object, wanted: type[DType]) -> bool | None:
    """Return True/False, or None when only a weakly typed array of ``dtype`` matches."""
    found = marker_of(dtype)
    if found is None:
        return False
    if issubclass(found, wanted):
        return True
    weak = _WEAK_OF_KIND.get(found.kind)
    if weak is not None and issubclass(weak, wanted):
        return None
    return False


def dtype_instancecheck(
    wanted: type[DType], is_array: Callable[[Any], bool]
) -> Callable[[Any], bool]:
    """Return the check of ``isinstance(x, Array[wanted])``: an array whose dtype is a ``wanted``.

    ``is_array`` is ``isinstance(x, Array)``.  An array matches when the
    marker of its dtype is ``wanted`` or a subclass of it (categories), or
    when it is weakly typed (JAX) and the weak marker of its kind is
    (``Array[weak_float]``).  The fast path, for an array type known by class
    and a dtype already seen, is one set and one dict lookup; verdicts that
    depend on ``weak_type`` are not stored, so those arrays take the slow path.
    """
    verdicts: dict[Any, bool] = {}
    fast_types = FAST_DTYPE_TYPES

    def slow(instance: Any) -> bool:
        if not is_array(instance):
            return False
        try:
            dtype = instance.dtype
        except AttributeError:
            return False
        verdict = _verdict(dtype, wanted)
        kind = type(cast("object", instance))
        if verdict is not None and kind in ARRAY_TYPES and _plain_dtype(dtype):
            try:
                verdicts[dtype] = verdict
            except TypeError:  # unhashable after all
                pass
            else:
                if len(verdicts) > _MAX_CACHED_DTYPES:
                    verdicts.clear()
                fast_types.add(kind)
        if verdict is not None:
            return verdict
        return getattr(instance, "weak_type", False) is True

    def check(instance: Any) -> bool:
        if type(instance) in fast_types:
            try:
                return verdicts[instance.dtype]
            except (KeyError, AttributeError, TypeError):
                pass
        return slow(instance)

    return check
