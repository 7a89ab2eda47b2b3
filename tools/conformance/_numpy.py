"""Observing NumPy 2 with the ml_dtypes extension types.

Operands are ``np.ones((2, 2), dtype)`` for NumPy's bool, integer, float16/32/64
and complex64/128 dtypes and every ml_dtypes type (``longdouble`` and
``clongdouble`` are left out).  Operators run eagerly with NumPy's floating
point warnings silenced.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Sequence
from typing import Any

from typing_pkg.dtypes import CONCRETE
from typing_pkg.dtypes import ML_DTYPES as FROM_ML_DTYPES

from .backend import DTYPE_NAMES, PY_SCALARS, Backend, ResultNotArray, package_versions

NUMPY_DTYPES: tuple[str, ...] = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
)  # fmt: skip
ML_DTYPES: tuple[str, ...] = tuple(m.name for m in CONCRETE if m.name in FROM_ML_DTYPES)


def numpy_dtype_name(dtype: Any) -> str:
    """Return our name of a NumPy dtype (``bool`` is ``bool_``)."""
    name = str(dtype)
    return "bool_" if name == "bool" else name


class NumpyBackend(Backend):
    """Operands and operator application for NumPy + ml_dtypes."""

    library = "numpy"
    description = (
        "NumPy 2 with ml_dtypes; operators applied eagerly to np.ones((2, 2), dtype)"
        " (errors silenced with np.errstate(all='ignore'))"
    )

    def __init__(self) -> None:
        """Import NumPy and ml_dtypes and collect the operand dtypes."""
        import ml_dtypes
        import numpy as np

        self.np: Any = np
        dtypes = [np.dtype(name) for name in NUMPY_DTYPES]
        dtypes += [np.dtype(getattr(ml_dtypes, name)) for name in ML_DTYPES]
        self.dtypes: dict[str, Any] = {numpy_dtype_name(dtype): dtype for dtype in dtypes}
        self._names = [name for name in DTYPE_NAMES if name in self.dtypes]
        unknown = sorted(set(self.dtypes) - set(self._names))
        if unknown:
            raise RuntimeError(f"NumPy operand dtypes without one of our names: {unknown}")

    def versions(self) -> list[str]:
        """Return the versions of NumPy and ml_dtypes."""
        return package_versions("numpy", "ml_dtypes")

    def array_names(self) -> list[str]:
        """Return the operand dtype names, in truth-file order."""
        return list(self._names)

    def skipped(self) -> list[str]:
        """Return the dtypes that are not operands, with the reason."""
        missing = [name for name in DTYPE_NAMES if name not in self.dtypes]
        lines = ["longdouble clongdouble: platform-dependent, not in our dtype names"]
        if missing:
            lines.append(f"{' '.join(missing)}: not provided by NumPy or ml_dtypes")
        return lines

    def evaluate(self, fn: Callable[..., Any], operands: Sequence[str]) -> tuple[str, bool | None]:
        """Apply ``fn`` to fresh arrays and scalars and return the result's dtype name."""
        np = self.np
        args = [
            PY_SCALARS[name] if name in PY_SCALARS else np.ones((2, 2), self.dtypes[name])
            for name in operands
        ]
        out = fn(*args)
        if not isinstance(out, np.ndarray):
            raise ResultNotArray(out)
        return numpy_dtype_name(out.dtype), None

    @contextlib.contextmanager
    def quiet(self) -> Generator[None, None, None]:
        """Silence warnings and NumPy floating point errors."""
        with super().quiet(), self.np.errstate(all="ignore"):
            yield
