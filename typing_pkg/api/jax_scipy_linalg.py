"""The result dtypes of ``jax.scipy.linalg``, as data.

The decompositions and solvers promote their arguments to an inexact dtype
(``promote_dtypes_inexact``), as ``jax.numpy.linalg``'s do; the special
matrices (``hilbert``, ``pascal``, …) have a fixed or requested dtype.
Functions whose outputs depend on a flag (``eigh``'s ``eigvals_only``,
``svd``'s ``compute_uv``, ``qr``'s ``mode`` and ``pivoting``, ``lu``'s
``permute_l``, ``hessenberg``'s ``calc_q``) have one kind per value of the flag
(:class:`~typing_pkg.api.kinds.Flag`).  Functions whose array argument is inside
a tuple (``cho_solve``'s ``(c, lower)``, ``lu_solve``'s ``(lu, piv)``) are
listed with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from typing_pkg.api.jax_config import JAX_RULES
from typing_pkg.api.kinds import (
    Fixed,
    Flag,
    Join,
    Keep,
    Kind,
    Outputs,
    ToComplex,
    ToInexact,
    ToReal,
    UnknownDtype,
)
from typing_pkg.api.namespace import Namespace
from typing_pkg.dtypes import SUB_BYTE_INTEGERS

__all__ = ["LINALG", "NAMESPACES"]

_INEXACT: Final = ToInexact(("a",), scalars=False)
_STRONG: Final = ToInexact(("a",), strong=True, scalars=False)
_GIVEN_INEXACT: Final = Keep(("a",), accepts="fc", weak=False)
_KEPT_INEXACT: Final = Keep(("a",), accepts="fc")
_REAL: Final = ToReal(("a",), inexact=True, accepts="f", scalars=False)
_STRONG_REAL: Final = ToReal(("a",), inexact=True, accepts="f", strong=True, scalars=False)
_PIVOTS: Final = Fixed("int32", ("a",), weak=True)
_WIDE: Final = frozenset({"float32", "float64", "complex64", "complex128"})
_SUB_BYTE: Final = frozenset(SUB_BYTE_INTEGERS)


def _flag(flag: str) -> UnknownDtype:
    return UnknownDtype(f"one array or a tuple by the {flag} flag (not modelled yet)", pending=True)


def _qr(*outputs: Kind) -> Flag:
    """``qr``'s outputs, and the int32 pivots after them when ``pivoting=True``."""
    return Flag(
        "pivoting",
        False,
        ((False, Outputs(outputs)), (True, Outputs((*outputs, _PIVOTS)))),
        scalars=False,
    )


def _inside(pair: str) -> UnknownDtype:
    return UnknownDtype(
        f"the factor's dtype is read inside the {pair} tuple (not modelled yet)", pending=True
    )


LINALG: Final[Mapping[str, Kind]] = {
    # the special matrices are built with jnp.zeros/jnp.array: realised
    "block_diag": Join(("*arrs",), strong=True, scalars=False),
    "cho_factor": UnknownDtype("a pair (factor, lower: bool): not modelled yet", pending=True),
    "cho_solve": _inside("(c, lower)"),
    "cholesky": _INEXACT,
    "circulant": Keep(("c",), scalars=False),
    "companion": ToInexact(("a",), strong=True, scalars=False, unknown_for=_SUB_BYTE),
    "convolution_matrix": Keep(("a",), weak=False, scalars=False),
    "det": ToInexact(("a",), scalars=False, unknown_for=_SUB_BYTE),
    "dft": UnknownDtype("a complex DFT matrix of n (not modelled yet)", pending=True),
    "eigh": Flag(
        "eigvals_only",
        False,
        ((False, Outputs((_REAL, _INEXACT))), (True, _REAL)),
        scalars=False,
    ),
    "eigh_tridiagonal": _flag("eigvals_only"),
    # the Padé approximants are computed in float32/float64 (complex64/complex128) only
    "expm": ToInexact(("A",), strong=True, scalars=False, computes_in=_WIDE),
    "expm_frechet": _flag("compute_expm"),
    # abs(a[:, None] - a): JAX's narrow integers differ (int1 gives int8, int4 is refused)
    "fiedler": ToReal(
        ("a",), accepts="iufc", scalars=False, unknown_for=_SUB_BYTE | {"int4", "uint4"}
    ),
    "fiedler_companion": ToInexact(("a",), strong=True, scalars=False, unknown_for=_SUB_BYTE),
    "funm": UnknownDtype("the result of a callable"),
    "hadamard": UnknownDtype(
        "an n × n matrix of dtype= (int by default): not modelled yet", pending=True
    ),
    "hankel": Join(("c", "r?"), strong=True, scalars=False),
    "helmert": Fixed("f", specs=()),
    "hessenberg": Flag(
        "calc_q",
        False,
        ((False, _KEPT_INEXACT), (True, Outputs((_KEPT_INEXACT, _GIVEN_INEXACT)))),
        scalars=False,
    ),
    "hilbert": Fixed("f", specs=()),
    "inv": _STRONG,
    "invhilbert": Fixed("f", specs=()),
    "invpascal": Fixed("f", specs=()),
    "leslie": Join(("f", "s"), scalars=False),
    # p (real: float32 for a complex64 matrix) and l are made of constants, strongly typed;
    # permute_l=True multiplies them, a real by an inexact array (refused under strict)
    "lu": Flag(
        "permute_l",
        False,
        (
            (False, Outputs((_STRONG_REAL, _STRONG, _INEXACT))),
            (
                True,
                Outputs((ToInexact(("a",), strong=True, scalars=False, mixes="real"), _INEXACT)),
            ),
        ),
        scalars=False,
    ),
    "lu_factor": Outputs((_INEXACT, Fixed("int32", ("a",), weak=True)), scalars=False),
    "lu_solve": _inside("(lu, piv)"),
    # built from jnp.arange(n, dtype=np.float32): float32 whatever the configuration
    "pascal": Fixed("float32", specs=()),
    # polar and schur take inexact arrays only (no conversion)
    "polar": Outputs((_GIVEN_INEXACT, _GIVEN_INEXACT), scalars=False),
    # mode="r" gives a tuple of one array, (r,); JAX refuses mode="raw"
    "qr": Flag(
        "mode",
        "full",
        (
            ("full", _qr(_INEXACT, _INEXACT)),
            ("economic", _qr(_INEXACT, _INEXACT)),
            ("r", _qr(_INEXACT)),
        ),
        scalars=False,
    ),
    "qr_multiply": _flag("mode"),
    "rsf2csf": Outputs((ToComplex(("T", "Z")), ToComplex(("T", "Z")))),
    "schur": Outputs((_KEPT_INEXACT, _KEPT_INEXACT), scalars=False),
    "solve": ToInexact(("a", "b"), scalars=False),
    "solve_sylvester": UnknownDtype(
        "solved through schur or eig of the promoted arrays, float32 from bfloat16 (not modelled "
        "yet)",
        pending=True,
    ),
    "solve_triangular": ToInexact(("a", "b"), scalars=False),
    "sqrtm": UnknownDtype(
        "complex64, or complex128 for a 64-bit input under x64 (a rule no kind holds yet)",
        pending=True,
    ),
    "svd": Flag(
        "compute_uv",
        True,
        ((True, Outputs((_INEXACT, _REAL, _INEXACT))), (False, _REAL)),
        scalars=False,
    ),
    "toeplitz": Join(("c", "r?"), strong=True, scalars=False),
}
"""``jax.scipy.linalg``: every public name."""

NAMESPACES: Final = (
    Namespace("jax.scipy.linalg.", LINALG, "JAX", JAX_RULES, aliases=("jsp.linalg.",)),
)
"""The namespaces this module holds (``typing_pkg.api`` finds them)."""
