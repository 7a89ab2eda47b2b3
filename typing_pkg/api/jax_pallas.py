"""The result dtypes of ``jax.experimental.pallas``, as data.

A Pallas kernel's own values are mostly references (``x_ref[...]`` reads
one); of the names the module exports, ``program_id`` is the array whose
dtype the program fixes: the kernel's position along a grid axis, an
``int32`` whatever the configuration.  ``num_programs`` is a Python int for
a static grid; the kernel primitives that keep or make arrays
(``broadcast_to``, ``reciprocal``, ``multiple_of``, ``empty``,
``semaphore_read``) are not modelled yet; the rest are classes, decorators
and utilities.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from typing_pkg.api.jax_config import JAX_RULES
from typing_pkg.api.kinds import Fixed, Kind, NotAnArray, UnknownDtype
from typing_pkg.api.namespace import Namespace

__all__ = ["NAMESPACES", "PALLAS"]

_CLASS: Final = NotAnArray("a class or a type of Pallas's kernel specifications")
_UTILITY: Final = NotAnArray("a decorator, a kernel entry point or a utility")
_PENDING: Final = UnknownDtype("a kernel primitive not modelled yet", pending=True)

PALLAS: Final[Mapping[str, Kind]] = {
    # the grid position: lax's int32 index, a strongly typed int32 under x64 too
    "program_id": Fixed("int32", specs=()),
    "num_programs": UnknownDtype("a Python int for a static grid, an int32 array otherwise"),
    **dict.fromkeys(("broadcast_to", "reciprocal", "multiple_of", "empty"), _PENDING),
    "semaphore_read": _PENDING,
    "empty_like": UnknownDtype("a pytree of arrays like its argument"),
    "get_global": UnknownDtype("a reference, not an array"),
    "select_ref": UnknownDtype("a reference, not an array"),
    "empty_ref_like": UnknownDtype("a reference, not an array"),
    "run_scoped": UnknownDtype("the result of a callable"),
    "run_state": UnknownDtype("the result of a callable"),
    "core_map": _UTILITY,
    "kernel": _UTILITY,
    "pallas_call": _UTILITY,
    "pallas_export_experimental": _UTILITY,
    "lower_as_mlir": _UTILITY,
    "estimate_cost": _UTILITY,
    "loop": _UTILITY,
    "when": _UTILITY,
    "with_scoped": _UTILITY,
    "enable_debug_checks": _UTILITY,
    "enable_poison_buffers": _UTILITY,
    "debug_check": _UTILITY,
    "debug_print": _UTILITY,
    "delay": _UTILITY,
    "semaphore_signal": _UTILITY,
    "semaphore_wait": _UTILITY,
    "align_to": NotAnArray("a Python int"),
    "cdiv": NotAnArray("a Python int (or an int array for array arguments)"),
    "next_power_of_2": NotAnArray("a Python int"),
    "strides_from_shape": NotAnArray("a tuple of Python ints"),
    "ds": NotAnArray("a slice of a reference"),
    "dslice": NotAnArray("a slice of a reference"),
    "pallas_call_p": NotAnArray("a primitive"),
    "ANY": NotAnArray("a memory space"),
    "HOST": NotAnArray("a memory space"),
    "no_block_spec": NotAnArray("a block specification"),
    "squeezed": NotAnArray("a block dimension"),
    **dict.fromkeys(
        (
            "BlockDim",
            "BlockSpec",
            "Blocked",
            "BoundedSlice",
            "Buffered",
            "CompilerParams",
            "CostEstimate",
            "DeviceIdType",
            "Element",
            "GridSpec",
            "Indirect",
            "MemoryRef",
            "MemorySpace",
            "RevisitMode",
            "Slice",
            "Squeezed",
            "semaphore",
        ),
        _CLASS,
    ),
}
"""``jax.experimental.pallas``: every public name."""

NAMESPACES: Final = (
    Namespace("jax.experimental.pallas.", PALLAS, "JAX", JAX_RULES, aliases=("pl.",)),
)
"""The namespaces this module holds (``typing_pkg.api`` finds them)."""
