"""Observing the result dtypes of real array libraries ("the truth").

:func:`observe` applies every operator of ``typing_pkg.ops`` to every pair of operands of one
rule set (:data:`RULE_SETS`) and records, per pair, the result dtype or the
error the library raised, as :class:`~tools.conformance.truthfile.Cell`
rows.  The operands are small ``(2, 2)`` arrays of ones of every dtype the
library can create, JAX's weakly typed arrays, and the Python scalars of
:data:`~tools.conformance.backend.PY_SCALARS`; binary operators are applied as ``array op array``,
``array op scalar`` and ``scalar op array`` (the reflected methods), in-place
operators as ``array op= array`` and ``array op= scalar`` on a fresh array.

Errors are sorted into kinds by :data:`~tools.conformance.backend.ERROR_RULES`,
one readable table per library of (exception class, message pattern) -> kind:

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

import os
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from typing_pkg.ops import BINARY, INPLACE, UNARY
from typing_pkg.rules import BUILTIN

from .backend import (
    PY_SCALARS,
    Backend,
    ObservationError,
    classify_error,
    format_error,
    header_lines,
    operator_function,
)
from .truthfile import Cell, format_truth, read_truth_file

__all__ = [
    "RULE_SETS",
    "TRANSCRIBED",
    "in_sample",
    "observe",
    "observe_in_subprocess",
    "observe_table_in_subprocess",
]

TRANSCRIBED: Final = frozenset({"tensorflow"})
"""Built-in rule sets whose library is not installed: their truth is transcribed from a
document (``tools/transcribe_seeds.py``)."""
RULE_SETS: Final[tuple[str, ...]] = tuple(n for n in BUILTIN if n not in TRANSCRIBED)
"""The rule sets observed from a live library."""


def _observe_cell(backend: Backend, op: str, operands: Sequence[str]) -> Cell:
    """Apply one operator to one operand pair and record the outcome."""
    left, right = operands[0], operands[1] if len(operands) > 1 else ""
    try:
        result, weak = backend.evaluate(operator_function(op), operands)
    except Exception as exc:  # every failure is recorded
        kind = classify_error(backend.library, exc)
        return Cell(op, left, right, None, None, kind, format_error(exc))
    return Cell(op, left, right, result, weak, None, None)


def in_sample(op: str, operands: Sequence[str], every: int) -> bool:
    """Whether the cell is in the sample of every ``every``-th cell, chosen by a hash of the
    cell (the same in every run and process; ``every=1``: all)."""
    return every == 1 or zlib.crc32("\0".join((op, *operands)).encode()) % every == 0


def observe_backend(backend: Backend, every: int = 1) -> list[Cell]:
    """Observe every operator on every operand pair of a backend (or ``in_sample``'s)."""
    arrays = backend.array_names()
    scalars = list(PY_SCALARS)
    cells: list[Cell] = []
    pairs = [(left, right) for left in arrays for right in arrays + scalars]
    reflected = [(left, right) for left in scalars for right in arrays]
    cases = [
        *((op, pair) for op in BINARY for pair in pairs + reflected),
        *((op, pair) for op in INPLACE for pair in pairs),
        *((op, (left,)) for op in UNARY for left in arrays),
    ]
    with backend.quiet():
        cells.extend(
            _observe_cell(backend, op, operands)
            for op, operands in cases
            if in_sample(op, operands, every)
        )
    return cells


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


def observe(rules: str, every: int = 1) -> tuple[list[str], list[Cell]]:
    """Observe one rule set in this process and return its truth-file comment lines and cells
    (every cell, or the sample of every ``every``-th: ``in_sample``)."""
    if rules not in RULE_SETS:
        raise ValueError(f"unknown rule set {rules!r}; expected one of {', '.join(RULE_SETS)}")
    backend = _backend(rules)
    cells = observe_backend(backend, every)
    meta = [
        *header_lines(rules),
        f"rules: {rules}: {backend.description}",
        "versions: " + ", ".join(backend.versions()),
        "array operands: " + " ".join(backend.array_names()),
        "scalar operands: " + " ".join(f"{name}={value!r}" for name, value in PY_SCALARS.items()),
        *(f"skipped: {line}" for line in backend.skipped()),
        f"error_kind: ERROR_RULES[{backend.library!r}] in tools/conformance/observe.py"
        " (unmatched errors are 'bug')",
    ]
    return meta, cells


def _repo_root() -> Path:
    """Return the directory that contains the ``typing_pkg`` package."""
    return Path(__file__).resolve().parents[2]


_CHILD_CODE = (
    "import sys\n"
    "from tools.conformance.observe import child_main\n"
    "sys.exit(child_main(sys.argv[1], sys.argv[2], int(sys.argv[3])))\n"
)


def child_main(rules: str, out_path: str, every: int = 1) -> int:
    """Observe a rule set and write its truth file to ``out_path`` (the subprocess entry point)."""
    meta, cells = observe(rules, every)
    Path(out_path).write_text(format_truth(meta, cells), encoding="utf-8")
    return 0


def observe_table_in_subprocess(rules: str, every: int = 1) -> tuple[list[str], list[Cell]]:
    """Observe one rule set in a fresh Python interpreter and return its comment lines and
    cells (every cell, or the sample of every ``every``-th: ``in_sample``)."""
    if rules not in RULE_SETS:
        raise ValueError(f"unknown rule set {rules!r}; expected one of {', '.join(RULE_SETS)}")
    return run_observer(_CHILD_CODE, rules, str(every))


def run_observer(child_code: str, rules: str, *arguments: str) -> tuple[list[str], list[Cell]]:
    """Run ``child_code`` in a fresh Python interpreter and return the truth file it writes.

    The child is called as ``python -c child_code rules out_path *arguments``
    and writes the truth file of ``rules`` to ``out_path``; one interpreter
    per rule set, so that JAX's configuration does not leak from one to another.
    """
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
            [sys.executable, "-c", child_code, rules, str(out), *arguments],
            cwd=root,
            env=env,
            check=False,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
        if proc.returncode != 0 or not out.exists():
            tail = "\n".join(proc.stderr.strip().splitlines()[-8:])
            raise ObservationError(
                f"observing {rules!r} in a subprocess failed with exit code {proc.returncode}:\n"
                + tail
            )
        return read_truth_file(out)


def observe_in_subprocess(rules: str) -> list[Cell]:
    """Observe one rule set in a fresh Python interpreter and return its cells."""
    return observe_table_in_subprocess(rules)[1]
