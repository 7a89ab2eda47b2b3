"""What every library backend of the observations shares.

A backend (``_jax.py``, ``_numpy.py``, ``_torch.py``, ``_array_api.py``)
creates operands of one library and applies an operator to them; this module
holds its base class, the operand names in truth-file order, the Python
scalar operands and how each library's errors are sorted into kinds
(:data:`ERROR_RULES`).  It imports no array library.
"""

from __future__ import annotations

import contextlib
import operator
import re
import warnings
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from typing_pkg.dtypes import CONCRETE, WEAK
from typing_pkg.ops import OPERATORS
from typing_pkg.rules.base import PY_SCALARS as PY_SCALAR_KINDS

__all__ = [
    "DTYPE_NAMES",
    "ERROR_KINDS",
    "ERROR_RULES",
    "PY_SCALARS",
    "WEAK_NAMES",
    "Backend",
    "ErrorRule",
    "ObservationError",
    "ResultNotArray",
    "classify_error",
    "format_error",
    "header_lines",
    "operator_function",
    "package_versions",
    "sort_names",
]

#: Our dtype names, in the order operands are listed in truth files.
DTYPE_NAMES: tuple[str, ...] = tuple(m.name for m in CONCRETE)
#: JAX's weakly typed arrays of the canonical int, float and complex dtype.
WEAK_NAMES: tuple[str, ...] = tuple(m.name for m in WEAK)
#: The Python scalar operands.
PY_SCALARS: Final[dict[str, bool | int | float | complex]] = dict(
    zip(PY_SCALAR_KINDS, (True, 1, 1.0, 1j), strict=True)  # py_bool, py_int, py_float, py_complex
)

ERROR_KINDS: tuple[str, ...] = ("dtype", "kernel", "shape", "bug")


@dataclass(frozen=True)
class ErrorRule:
    """An exception class (or base class) name and a message pattern that give an error kind."""

    exception: str
    pattern: str
    kind: str


#: How errors are classified, per library (the JAX rule sets share "jax").
#: The first rule whose exception class is the raised one or one of its bases
#: and whose pattern is found in the message's first line wins; no match
#: means ``bug``.
ERROR_RULES: dict[str, tuple[ErrorRule, ...]] = {
    "jax": (
        ErrorRule("TypePromotionError", r"no available implicit dtype promotion path", "dtype"),
        # "and does not accept dtype float32 at position 0. ...", "abs does not accept dtype int4."
        ErrorRule("TypeError", r"^\w+ does not accept dtype", "dtype"),
        ErrorRule("TypeError", r"^floor_divide does not support complex-valued inputs", "dtype"),
        ErrorRule("ValueError", r"^matmul input operand \d+ must have ndim at least 1", "shape"),
        # Internal failures stay "bug": "Invalid integer data type 'V'." (pow on
        # int1/int2/int4/uint1/uint2/uint4), and for matmul "`preferred_element_type`
        # must not be narrower ..." and "lax.dot_general argument type error: ...".
    ),
    "numpy": (
        ErrorRule("TypeError", r"^ufunc '\w+' not supported for the input types", "dtype"),
        ErrorRule("TypeError", r"^ufunc '\w+' did not contain a loop with signature", "dtype"),
        ErrorRule("TypeError", r"^Cannot cast ufunc '\w+' output from", "dtype"),
        ErrorRule("TypeError", r"^(The )?numpy boolean \w+, the `.` operator, is not", "dtype"),
        ErrorRule("ValueError", r"^matmul: Input operand \d+ does not have enough dim", "shape"),
        # "Integers to negative integer powers are not allowed." depends on values
        # (ones of ml_dtypes.int1 are -1), so it stays "bug".
    ),
    "torch": (
        # '"add_stub" not implemented for 'UInt16'' (NotImplementedError is a RuntimeError)
        ErrorRule("RuntimeError", r"not implemented for '\w+'", "kernel"),
        ErrorRule("RuntimeError", r"^Promotion for .* [Tt]ypes is not supported", "dtype"),
        ErrorRule("RuntimeError", r"^result type \w+ can't be cast to the desired output", "dtype"),
        ErrorRule("RuntimeError", r"^(Subtraction|Negation), the `-` operator, .*bool", "dtype"),
        ErrorRule("RuntimeError", r"^The `\+` operator, on a bool tensor is not", "dtype"),
        ErrorRule("TypeError", r"^~ \(operator.invert\) is only implemented on integer", "dtype"),
        # matmul does not promote: both operands must have the same dtype.
        ErrorRule("RuntimeError", r"^expected m1 and m2 to have the same dtype", "dtype"),
        # Python's message when Tensor.__matmul__ returns NotImplemented for a scalar.
        ErrorRule("TypeError", r"^unsupported operand type\(s\) for @=?: ", "shape"),
        # "Unknown Complex ScalarType for Float8_e4m3fn" (float8 op 1j) stays "bug".
    ),
    "array-api": (
        ErrorRule("TypeError", r"^Only [\w -]+ dtypes are allowed in __\w+__", "dtype"),
        ErrorRule("TypeError", r"cannot be type promoted together", "dtype"),
        ErrorRule("TypeError", r"^Python \w+ scalars (can only|cannot) be promoted with", "dtype"),
        ErrorRule("TypeError", r"^Cannot perform __\w+__ with dtypes", "dtype"),
        # NumPy's refusal when array_api_strict passes an operand through to it.
        ErrorRule("TypeError", r"^ufunc '\w+' not supported for the input types", "dtype"),
        ErrorRule("ValueError", r"^matmul: Input operand \d+ does not have enough dim", "shape"),
    ),
}


class ResultNotArray(Exception):
    """Raised by a backend when an operator's result is not an array of the library."""

    def __init__(self, result: object) -> None:
        """Describe the offending result."""
        text = repr(result)
        if len(text) > 40:
            text = text[:37] + "..."
        kind = type(result).__name__
        super().__init__(f"result is a {kind} ({text}), not an array of the library")


class ObservationError(RuntimeError):
    """Raised when observing a rule set in a subprocess fails."""


def operator_function(op: str) -> Callable[..., Any]:
    """Return the Python function that applies the operator named ``op``."""
    if op == "abs":
        return abs
    if op in ("and", "or"):
        return getattr(operator, op + "_")  # type: ignore[no-any-return]
    if op not in OPERATORS:
        raise ValueError(f"unknown operator {op!r}")
    return getattr(operator, op)  # type: ignore[no-any-return]


def _first_line(exc: BaseException) -> str:
    """Return the first non-empty line of an exception's message."""
    for line in str(exc).splitlines():
        if line.strip():
            return line.strip()
    return ""


def format_error(exc: BaseException) -> str:
    """Return ``ExceptionType: first line of message``, at most 160 characters."""
    line = _first_line(exc)
    text = f"{type(exc).__name__}: {line}" if line else type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def classify_error(library: str, exc: BaseException) -> str:
    """Return the error kind of ``exc`` raised by ``library`` according to :data:`ERROR_RULES`."""
    if isinstance(exc, ResultNotArray):
        return "bug"
    names = {cls.__name__ for cls in type(exc).__mro__}
    line = _first_line(exc)
    for rule in ERROR_RULES[library]:
        if rule.exception in names and re.search(rule.pattern, line):
            return rule.kind
    return "bug"


def package_versions(*distributions: str) -> list[str]:
    """Return ``name version`` of each installed distribution."""
    from importlib.metadata import PackageNotFoundError, version

    lines: list[str] = []
    for name in distributions:
        try:
            lines.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            lines.append(f"{name} (not installed)")
    return lines


def sort_names(names: Sequence[str]) -> list[str]:
    """Sort operand names in truth-file order: dtypes, weak arrays, Python scalars, the rest."""
    order = {name: i for i, name in enumerate(DTYPE_NAMES + WEAK_NAMES + tuple(PY_SCALARS))}
    return sorted(names, key=lambda name: (order.get(name, len(order)), name))


class Backend:
    """How to create operands of one library and apply an operator to them."""

    #: Key into :data:`ERROR_RULES`.
    library: str = ""
    #: One line saying how the operands are made and the operators applied.
    description: str = ""

    def versions(self) -> list[str]:
        """Return ``name version`` of every library involved."""
        raise NotImplementedError

    def array_names(self) -> list[str]:
        """Return the names of the array operands, in truth-file order."""
        raise NotImplementedError

    def skipped(self) -> list[str]:
        """Return one line per dtype that is not an operand, with the reason."""
        raise NotImplementedError

    def evaluate(self, fn: Callable[..., Any], operands: Sequence[str]) -> tuple[str, bool | None]:
        """Apply ``fn`` to fresh operands and return the result's dtype name and weak flag."""
        raise NotImplementedError

    @contextlib.contextmanager
    def quiet(self) -> Generator[None, None, None]:
        """Silence warnings while observing."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield


def header_lines(rules: str) -> list[str]:
    """Return the truth-file comment lines common to every rule set."""
    return [
        "Generated by tools/make_truth.py: do not edit.",
        f"Regenerate with: python tools/make_truth.py --rules {rules}",
    ]
