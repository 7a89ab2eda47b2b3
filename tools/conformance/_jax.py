"""Observing ``jax.numpy`` through ``jax.eval_shape``.

Operands are ``jax.ShapeDtypeStruct((2, 2), dtype)`` for every dtype in
``jax._src.dtypes._jax_types`` (with x64 off only those that are their own
canonical dtype) and JAX's weakly typed arrays ``weak_int``, ``weak_float``
and ``weak_complex``.  Operators are traced, never compiled; Python scalars
are closed over so they stay Python scalars.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Sequence
from typing import Any

from typing_pkg.rules import get_rules
from typing_pkg.rules.base import WEAK_PY_TYPES
from typing_pkg.rules.jax import JaxX64Rules

from .backend import (
    DTYPE_NAMES,
    PY_SCALARS,
    Backend,
    ResultNotArray,
    package_versions,
    sort_names,
)


def jax_mode(rules: str) -> tuple[bool, str]:
    """Return ``(jax_enable_x64, jax_numpy_dtype_promotion)`` of a JAX rule set."""
    found = get_rules(rules)
    if not isinstance(found, JaxX64Rules):
        raise ValueError(f"{rules!r} is not a JAX rule set")
    return found.x64, found.promotion_mode


def jax_dtype_name(dtype: Any) -> str:
    """Return our name of a NumPy-style dtype (``bool`` is ``bool_``)."""
    name = str(dtype)
    return "bool_" if name == "bool" else name


class JaxBackend(Backend):
    """Operands and operator application for one JAX rule set."""

    library = "jax"

    def __init__(self, rules: str) -> None:
        """Configure JAX for the rule set and build the operand specs."""
        import jax as jax_module
        from jax._src import dtypes as jax_dtypes

        jax: Any = jax_module

        x64, promotion = jax_mode(rules)
        jax.config.update("jax_enable_x64", x64)
        jax.config.update("jax_numpy_dtype_promotion", promotion)
        self.jax: Any = jax
        self.description = (
            f"jax.numpy with jax_enable_x64={x64}, jax_numpy_dtype_promotion={promotion!r};"
            " operators traced by jax.eval_shape on ShapeDtypeStruct((2, 2), dtype)"
            " (weak_* with weak_type=True); Python scalars closed over as constants"
        )
        self.specs: dict[str, Any] = {}
        self._skipped: list[str] = []
        for dtype in jax_dtypes._jax_types:  # pyright: ignore[reportPrivateUsage]
            name = jax_dtype_name(dtype)
            canonical = jax.dtypes.canonicalize_dtype(dtype)
            if canonical != dtype:
                canonical_name = jax_dtype_name(canonical)
                self._skipped.append(
                    f"{name}: canonicalizes to {canonical_name} with jax_enable_x64={x64}"
                )
            else:
                self.specs[name] = jax.ShapeDtypeStruct((2, 2), dtype)
        known = {jax_dtype_name(dtype) for dtype in jax_dtypes._jax_types}  # pyright: ignore[reportPrivateUsage]
        missing = [name for name in DTYPE_NAMES if name not in known]
        if missing:
            self._skipped.append(f"{' '.join(missing)}: not in jax._src.dtypes._jax_types")
        self._names = sort_names(list(self.specs))
        for weak, python_type in WEAK_PY_TYPES.items():
            dtype = jax.dtypes.canonicalize_dtype(python_type)
            self.specs[weak] = jax.ShapeDtypeStruct((2, 2), dtype, weak_type=True)
            self._names.append(weak)

    def versions(self) -> list[str]:
        """Return the versions of jax and the libraries it builds on."""
        return package_versions("jax", "jaxlib", "numpy", "ml_dtypes")

    def array_names(self) -> list[str]:
        """Return the JAX dtypes and weak arrays, in truth-file order."""
        return list(self._names)

    def skipped(self) -> list[str]:
        """Return the dtypes that are not operands, with the reason."""
        return list(self._skipped)

    def evaluate(self, fn: Callable[..., Any], operands: Sequence[str]) -> tuple[str, bool | None]:
        """Trace ``fn`` on the operands with ``jax.eval_shape`` and return dtype and weak flag."""
        array_type = self.jax.Array
        specs = [self.specs[name] for name in operands if name not in PY_SCALARS]

        def traced(*arrays: Any) -> Any:
            supplied = iter(arrays)
            args = [PY_SCALARS[name] if name in PY_SCALARS else next(supplied) for name in operands]
            out = fn(*args)
            if not isinstance(out, array_type):
                raise ResultNotArray(out)
            return out

        out = self.jax.eval_shape(traced, *specs)
        return jax_dtype_name(out.dtype), bool(out.weak_type)

    @contextlib.contextmanager
    def quiet(self) -> Generator[None, None, None]:
        """Silence warnings and turn off traceback filtering (it makes each error ~10x slower)."""
        config = self.jax.config
        old = config.jax_traceback_filtering
        config.update("jax_traceback_filtering", "off")
        try:
            with super().quiet():
                yield
        finally:
            config.update("jax_traceback_filtering", old)
