"""Observing the result dtypes of real array libraries ("the truth").

:func:`observe` applies every operator of :data:`BINARY_OPS`,
:data:`INPLACE_OPS` and :data:`UNARY_OPS` to every pair of operands of one
rule set (:data:`RULE_SETS`) and records, per pair, the result dtype or the
error the library raised, as :class:`~typing_pkg.conformance.truthfile.Cell`
rows.  The operands are small ``(2, 2)`` arrays of ones of every dtype the
library can create, JAX's weakly typed arrays, and the Python scalars of
:data:`PY_SCALARS`; binary operators are applied as ``array op array``,
``array op scalar`` and ``scalar op array`` (the reflected methods), in-place
operators as ``array op= array`` and ``array op= scalar`` on a fresh array.

Errors are sorted into kinds by :data:`ERROR_RULES`, one readable table per
library of (exception class, message pattern) -> kind:

``dtype``
    the library refuses these dtypes for this operator;
``kernel``
    the operation is allowed but has no implementation for the dtype
    (PyTorch's "not implemented for");
``shape``
    the operands' shapes do not fit (``matmul`` with a scalar);
``bug``
    anything else, including results that are not arrays of the library.
    Errors no rule matches default to ``bug``, so nothing is silently called
    a dtype refusal.

Error messages are recorded verbatim; some list dtypes in set order, so they
are reproducible only with a fixed ``PYTHONHASHSEED`` (which
:func:`observe_in_subprocess` sets): compare results and error kinds, not
messages, with an in-process observation.  The JAX rule sets change JAX's
global configuration (``jax_enable_x64``, ``jax_numpy_dtype_promotion``), so
observe at most one JAX rule set per process; :func:`observe_in_subprocess`
runs one in a fresh interpreter.  Library imports happen only inside the
observing functions.
"""

from __future__ import annotations

import contextlib
import operator
import os
import re
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typing_pkg.dtypes import CONCRETE, WEAK

from .truthfile import Cell, format_truth, read_truth_file

__all__ = [
    "BINARY_OPS",
    "DTYPE_NAMES",
    "ERROR_KINDS",
    "ERROR_RULES",
    "INPLACE_OPS",
    "PY_SCALARS",
    "RULE_SETS",
    "UNARY_OPS",
    "WEAK_NAMES",
    "Backend",
    "ErrorRule",
    "ObservationError",
    "ResultNotArray",
    "classify_error",
    "format_error",
    "observe",
    "observe_in_subprocess",
    "observe_table_in_subprocess",
    "operator_function",
    "package_versions",
    "sort_names",
]

RULE_SETS: tuple[str, ...] = (
    "jax",
    "jax-x32",
    "jax-strict",
    "numpy",
    "torch",
    "array-api",
    "tensorflow",
)

BINARY_OPS: tuple[str, ...] = (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
    "and", "or", "xor", "lshift", "rshift",
    "lt", "le", "gt", "ge", "eq", "ne",
)  # fmt: skip
INPLACE_OPS: tuple[str, ...] = (
    "iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "imatmul",
    "iand", "ior", "ixor", "ilshift", "irshift",
)  # fmt: skip
UNARY_OPS: tuple[str, ...] = ("neg", "pos", "invert", "abs")

#: Our dtype names, in the order operands are listed in truth files.
DTYPE_NAMES: tuple[str, ...] = tuple(m.name for m in CONCRETE)
#: JAX's weakly typed arrays of the canonical int, float and complex dtype.
WEAK_NAMES: tuple[str, ...] = tuple(m.name for m in WEAK)
#: The Python scalar operands.
PY_SCALARS: dict[str, bool | int | float | complex] = {
    "py_bool": True,
    "py_int": 1,
    "py_float": 1.0,
    "py_complex": 1j,
}

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
    if op not in BINARY_OPS + INPLACE_OPS + UNARY_OPS:
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


def _observe_cell(backend: Backend, op: str, operands: Sequence[str]) -> Cell:
    """Apply one operator to one operand pair and record the outcome."""
    left, right = operands[0], operands[1] if len(operands) > 1 else ""
    try:
        result, weak = backend.evaluate(operator_function(op), operands)
    except Exception as exc:  # every failure is recorded
        kind = classify_error(backend.library, exc)
        return Cell(op, left, right, None, None, kind, format_error(exc))
    return Cell(op, left, right, result, weak, None, None)


def observe_backend(backend: Backend) -> list[Cell]:
    """Observe every operator on every operand pair of a backend."""
    arrays = backend.array_names()
    scalars = list(PY_SCALARS)
    cells: list[Cell] = []
    pairs = [(left, right) for left in arrays for right in arrays + scalars]
    reflected = [(left, right) for left in scalars for right in arrays]
    with backend.quiet():
        for op in BINARY_OPS:
            cells.extend(_observe_cell(backend, op, pair) for pair in pairs + reflected)
        for op in INPLACE_OPS:
            cells.extend(_observe_cell(backend, op, pair) for pair in pairs)
        for op in UNARY_OPS:
            cells.extend(_observe_cell(backend, op, (left,)) for left in arrays)
    return cells


def header_lines(rules: str) -> list[str]:
    """Return the truth-file comment lines common to every rule set."""
    return [
        "Generated by tools/make_truth.py: do not edit.",
        f"Regenerate with: python tools/make_truth.py --rules {rules}",
    ]


def _backend(rules: str) -> Backend:
    """Create the backend of a rule set (importing its library)."""
    if rules.startswith("jax"):
        from ._jax import JaxBackend

        return JaxBackend(rules)
    if rules == "numpy":
        from ._numpy import NumpyBackend

        return NumpyBackend()
    if rules == "torch":
        from ._torch import TorchBackend

        return TorchBackend()
    if rules == "array-api":
        from ._array_api import ArrayApiBackend

        return ArrayApiBackend()
    raise ValueError(f"no backend for rule set {rules!r}")


def observe(rules: str) -> tuple[list[str], list[Cell]]:
    """Observe one rule set in this process and return its truth-file comment lines and cells."""
    if rules not in RULE_SETS:
        raise ValueError(f"unknown rule set {rules!r}; expected one of {', '.join(RULE_SETS)}")
    if rules == "tensorflow":
        from ._tensorflow import observe_tensorflow

        return observe_tensorflow()
    backend = _backend(rules)
    cells = observe_backend(backend)
    meta = [
        *header_lines(rules),
        f"rules: {rules}: {backend.description}",
        "versions: " + ", ".join(backend.versions()),
        "array operands: " + " ".join(backend.array_names()),
        "scalar operands: " + " ".join(f"{name}={value!r}" for name, value in PY_SCALARS.items()),
        *(f"skipped: {line}" for line in backend.skipped()),
        f"error_kind: ERROR_RULES[{backend.library!r}] in typing_pkg/conformance/observe.py"
        " (unmatched errors are 'bug')",
    ]
    return meta, cells


def _repo_root() -> Path:
    """Return the directory that contains the ``typing_pkg`` package."""
    return Path(__file__).resolve().parents[2]


_CHILD_CODE = (
    "import sys\n"
    "from typing_pkg.conformance.observe import child_main\n"
    "sys.exit(child_main(sys.argv[1], sys.argv[2]))\n"
)


def child_main(rules: str, out_path: str) -> int:
    """Observe a rule set and write its truth file to ``out_path`` (the subprocess entry point)."""
    try:
        meta, cells = observe(rules)
    except FileNotFoundError as exc:
        print(f"error: {rules}: {exc}", file=sys.stderr)
        return 2
    Path(out_path).write_text(format_truth(meta, cells), encoding="utf-8")
    return 0


def observe_table_in_subprocess(rules: str) -> tuple[list[str], list[Cell]]:
    """Observe one rule set in a fresh Python interpreter and return its comment lines and cells."""
    if rules not in RULE_SETS:
        raise ValueError(f"unknown rule set {rules!r}; expected one of {', '.join(RULE_SETS)}")
    root = str(_repo_root())
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    env.setdefault("JAX_PLATFORMS", "cpu")
    # Some messages list dtypes in set order (JAX's TypePromotionError): fix the hash seed.
    env["PYTHONHASHSEED"] = "0"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / f"{rules}.csv"
        # -c puts the working directory first on sys.path: run in the repository so
        # that this very copy of typing_pkg is the one imported.
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD_CODE, rules, str(out)],
            cwd=root,
            env=env,
            check=False,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
        if proc.returncode != 0 or not out.exists():
            tail = "\n".join(proc.stderr.strip().splitlines()[-5:])
            raise ObservationError(
                f"observing {rules!r} in a subprocess failed with exit code {proc.returncode}:\n"
                + tail
            )
        return read_truth_file(out)


def observe_in_subprocess(rules: str) -> list[Cell]:
    """Observe one rule set in a fresh Python interpreter and return its cells."""
    return observe_table_in_subprocess(rules)[1]
