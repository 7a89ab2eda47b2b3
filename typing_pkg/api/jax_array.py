"""The result dtypes of ``jax.Array``'s methods and properties, as data.

The methods are ``jax.numpy``'s functions with the array as their first
argument (``x.sum()`` is ``jnp.sum(x)``: the same kind, with ``self`` in place
of ``a``; parameter names as in ``jax/_src/basearray.pyi``).  The indexed
updates ``x.at[i].set(y)``, ``.add``, … are listed as ``Array.at.set``, …:
they keep ``x``'s dtype (and its weak type), casting the values to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from typing_pkg.api.jax_config import JAX_RULES
from typing_pkg.api.kinds import (
    Cast,
    Fixed,
    Join,
    Keep,
    Kind,
    NotAnArray,
    Reduce,
    ToInexact,
    ToNumeric,
    ToReal,
)
from typing_pkg.api.namespace import Namespace

__all__ = ["ARRAY", "NAMESPACES"]

_SELF: Final = ("self",)
_KEEP: Final = Keep(_SELF)
_INDEX: Final = Fixed("i", _SELF)
_SUM: Final = Reduce(_SELF, convert="numeric", widen="promote_integers")
_MAX: Final = Reduce(_SELF, dtype=None)
_ANY: Final = Reduce(_SELF, convert="bool", dtype=None)
_CUMSUM: Final = Reduce(_SELF, widen="bool")
# the values are cast to the array's dtype: they must promote with it
_AT: Final = Keep(("self", "~values"), check=("values",))


def _not(reason: str) -> NotAnArray:
    return NotAnArray(reason)


ARRAY: Final[Mapping[str, Kind]] = {
    "T": _KEEP,
    "mT": _KEEP,
    "all": _ANY,
    "any": _ANY,
    "argmax": _INDEX,
    "argmin": _INDEX,
    "argpartition": Fixed("int32", _SELF, accepts="iuf", weak=True),
    "argsort": _INDEX,
    "nonzero": _INDEX,
    "searchsorted": Fixed("int32", ("self", "v")),
    "astype": Cast(_SELF),
    "view": Cast(_SELF, keep_weak=True, same_keeps=True),
    "byteswap": Keep(_SELF, weak=False),
    "choose": Join(("~self", "choices[]"), strong=True),
    "clip": Join(("self", "min?", "max?"), accepts="biuf"),
    "compress": Keep(_SELF, weak=False),
    "conj": _KEEP,
    "conjugate": _KEEP,
    "copy": _KEEP,
    "cumprod": _CUMSUM,
    "cumsum": _CUMSUM,
    "diagonal": Keep(_SELF, weak=False),
    "dot": Join(("self", "b"), dtype="preferred_element_type"),
    "flatten": _KEEP,
    "ravel": _KEEP,
    "repeat": _KEEP,
    "reshape": _KEEP,
    "round": Keep(_SELF, accepts="iufc"),
    "sort": _KEEP,
    "squeeze": _KEEP,
    "swapaxes": _KEEP,
    "take": Keep(
        ("self", "~indices"), requires=(("indices", "biu"),), adds=(("indices", "py_int"),)
    ),
    "transpose": _KEEP,
    "addressable_data": _KEEP,
    "to_device": _KEEP,
    "real": ToReal(_SELF),
    "imag": ToReal(_SELF),
    "max": _MAX,
    "min": _MAX,
    "ptp": Reduce(_SELF, dtype=None, accepts="iufc"),
    "mean": Reduce(_SELF, convert="inexact", requested_accepts="iufc"),
    "var": Reduce(_SELF, convert="real", after=("py_float",), requested_accepts="iufc"),
    "std": Reduce(_SELF, convert="real", requested_accepts="fc", after=("py_float",)),
    "sum": _SUM,
    "prod": _SUM,
    "trace": Reduce(_SELF, convert="numeric", widen="always"),
    "at.get": _KEEP,
    **dict.fromkeys(
        ("at.set", "at.add", "at.subtract", "at.mul", "at.multiply", "at.min", "at.max"),
        _AT,
    ),
    "at.apply": _KEEP,
    # divide and power compute x[i] / y and x[i] ** y with jnp.divide and jnp.power.
    "at.divide": ToInexact(("self", "~values"), accepts="biufc", check=("values",)),
    "at.power": ToNumeric(("self", "~values"), strong_kinds="iu", check=("values",)),
    "at": _not("an indexing helper: x.at[i].set(y) and the other updates are listed"),
    "flat": _not("JAX raises NotImplementedError (use flatten)"),
    "dtype": _not("a dtype"),
    "shape": _not("a tuple of ints"),
    "ndim": _not("an int"),
    "size": _not("an int"),
    "itemsize": _not("an int"),
    "nbytes": _not("an int"),
    "item": _not("a Python scalar"),
    "sharding": _not("a Sharding"),
    "device": _not("a Device or Sharding"),
    "committed": _not("a bool"),
    "is_fully_addressable": _not("a bool"),
    "is_fully_replicated": _not("a bool"),
    "addressable_shards": _not("a list of shards"),
    "global_shards": _not("a list of shards"),
    "copy_to_host_async": _not("returns None"),
}
"""``jax.Array``: every public member of ``dir(jax.Array)`` and the ``.at[...]`` updates."""


NAMESPACES: Final = (Namespace("jax.Array.", ARRAY, "JAX", JAX_RULES, aliases=("Array.",)),)
"""The namespaces this module holds (``typing_pkg.api`` finds them)."""
