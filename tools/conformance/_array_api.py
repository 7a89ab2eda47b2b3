"""Observing the Array API standard through ``array_api_strict``.

Operands are ``xp.ones((2, 2), dtype=dtype)`` for every dtype of
``array_api_strict`` at its default API version.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .backend import DTYPE_NAMES, PY_SCALARS, Backend, ResultNotArray, package_versions


class ArrayApiBackend(Backend):
    """Operands and operator application for array_api_strict."""

    library = "array-api"

    def __init__(self) -> None:
        """Import array_api_strict and collect its dtypes."""
        import array_api_strict as xp

        self.xp: Any = xp
        dtype_type = type(xp.int8)
        self.dtypes: dict[str, Any] = {}
        for name in DTYPE_NAMES:
            value = getattr(xp, name.removesuffix("_"), None)
            if isinstance(value, dtype_type):
                self.dtypes[name] = value
        self.array_type: Any = type(xp.ones((2, 2), dtype=xp.int8))
        version = xp.get_array_api_strict_flags()["api_version"]
        self.description = (
            f"array_api_strict at its default API version {version};"
            " operators applied eagerly to xp.ones((2, 2), dtype=dtype)"
        )

    def versions(self) -> list[str]:
        """Return the version of array_api_strict and NumPy under it."""
        return package_versions("array_api_strict", "numpy")

    def array_names(self) -> list[str]:
        """Return the operand dtype names, in truth-file order."""
        return list(self.dtypes)

    def skipped(self) -> list[str]:
        """Return the dtypes that are not operands, with the reason."""
        missing = [name for name in DTYPE_NAMES if name not in self.dtypes]
        return [f"{' '.join(missing)}: not an array_api_strict dtype"] if missing else []

    def dtype_name(self, dtype: Any) -> str:
        """Return our name of an array_api_strict dtype."""
        for name, known in self.dtypes.items():
            if dtype == known:
                return name
        return str(dtype)

    def evaluate(self, fn: Callable[..., Any], operands: Sequence[str]) -> tuple[str, bool | None]:
        """Apply ``fn`` to fresh arrays and scalars and return the result's dtype name."""
        xp = self.xp
        args = [
            PY_SCALARS[name] if name in PY_SCALARS else xp.ones((2, 2), dtype=self.dtypes[name])
            for name in operands
        ]
        out = fn(*args)
        if not isinstance(out, self.array_type):
            raise ResultNotArray(out)
        return self.dtype_name(out.dtype), None
