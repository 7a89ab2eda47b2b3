"""Observing PyTorch.

Operands are ``torch.ones((2, 2), dtype=dtype)`` for every ``torch.dtype`` that
can be created and has one of our names; the others (sub-byte ``int1``..``int7``
and ``uint1``..``uint7``, ``bits*``, quantized and packed dtypes) are listed as
skipped with the error ``torch.ones`` raised.  Operators run eagerly on CPU.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from .backend import (
    DTYPE_NAMES,
    PY_SCALARS,
    Backend,
    ResultNotArray,
    format_error,
    package_versions,
)


def torch_dtype_name(dtype: Any) -> str:
    """Return our name of a torch dtype (``torch.bool`` is ``bool_``)."""
    name = str(dtype).removeprefix("torch.")
    return "bool_" if name == "bool" else name


class TorchBackend(Backend):
    """Operands and operator application for PyTorch."""

    library = "torch"
    description = "PyTorch (CPU); operators applied eagerly to torch.ones((2, 2), dtype=dtype)"

    def __init__(self) -> None:
        """Import torch and collect the dtypes whose tensors can be created."""
        import torch

        self.torch: Any = torch
        self.dtypes: dict[str, Any] = {}
        self._skipped: list[str] = []
        all_dtypes = {value for value in vars(torch).values() if isinstance(value, torch.dtype)}
        with self.quiet():
            for dtype in sorted(all_dtypes, key=str):
                name = torch_dtype_name(dtype)
                try:
                    torch.ones((2, 2), dtype=dtype)
                except Exception as exc:  # a dtype without tensors is skipped, not fatal
                    self._skipped.append(f"{dtype}: torch.ones fails: {format_error(exc)}")
                    continue
                if name not in DTYPE_NAMES:
                    self._skipped.append(f"{dtype}: none of our dtype names")
                else:
                    self.dtypes[name] = dtype
        self._names = [name for name in DTYPE_NAMES if name in self.dtypes]

    def versions(self) -> list[str]:
        """Return the version of torch."""
        return package_versions("torch")

    def array_names(self) -> list[str]:
        """Return the operand dtype names, in truth-file order."""
        return list(self._names)

    def skipped(self) -> list[str]:
        """Return the dtypes that are not operands, with the reason."""
        known = {
            torch_dtype_name(dtype)
            for dtype in cast("dict[str, Any]", vars(self.torch)).values()
            if isinstance(dtype, self.torch.dtype)
        }
        missing = [name for name in DTYPE_NAMES if name not in known]
        lines = list(self._skipped)
        if missing:
            lines.append(f"{' '.join(missing)}: no torch dtype of that name")
        return lines

    def evaluate(self, fn: Callable[..., Any], operands: Sequence[str]) -> tuple[str, bool | None]:
        """Apply ``fn`` to fresh tensors and scalars and return the result's dtype name."""
        torch = self.torch
        args = [
            PY_SCALARS[name] if name in PY_SCALARS else torch.ones((2, 2), dtype=self.dtypes[name])
            for name in operands
        ]
        out = fn(*args)
        if not isinstance(out, torch.Tensor):
            raise ResultNotArray(out)
        return torch_dtype_name(out.dtype), None
