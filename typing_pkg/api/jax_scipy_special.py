"""The result dtypes of ``jax.scipy.special``, as data.

JAX's special functions promote their arguments together and to an inexact
dtype (``promote_args_inexact``): an integer array gives the default float,
a ``bfloat16`` one stays ``bfloat16``, Python scalars stay weakly typed.
``logsumexp``, ``softmax`` and ``log_softmax`` are ``jax.nn``'s.  Functions
returning a pair (``fresnel``, ``sici``), or whose dtype is not the
promotion of the arguments (``bernoulli`` of a Python int, the spherical
harmonics, Bessel functions, ``wofz``) are listed with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from typing_pkg.api.jax_config import JAX_RULES
from typing_pkg.api.jax_nn import NN
from typing_pkg.api.kinds import Keep, Kind, ToInexact, UnknownDtype
from typing_pkg.api.namespace import Namespace
from typing_pkg.dtypes import NARROW_FLOATS, SUB_BYTE_INTEGERS

__all__ = ["NAMESPACES", "NARROW_FOR_NDTR", "SPECIAL"]

_REAL: Final = ToInexact(("x",), accepts="f")
_SUB_BYTE: Final = frozenset(SUB_BYTE_INTEGERS)
NARROW_FOR_NDTR: Final = frozenset({*NARROW_FLOATS, "bfloat16", "float16"})
"""The floats ``ndtr``, ``log_ndtr`` and ``ndtri`` refuse: they compute in float32/float64."""
_FLOAT32_64: Final = Keep(("x",), accepts="f", refuses=NARROW_FOR_NDTR, weak=False)

SPECIAL: Final[Mapping[str, Kind]] = {
    # real functions: a complex input is refused
    **dict.fromkeys(
        (
            "digamma",
            "entr",
            "erf",
            "erfc",
            "erfinv",
            "gammaln",
            "i0",
            "i0e",
            "i1",
            "i1e",
        ),
        _REAL,
    ),
    # JAX computes them from a sub-byte integer as it is (an int1 result): not modelled
    "dawsn": ToInexact(("x",), accepts="f", strong=True, unknown_for=_SUB_BYTE),
    "erfcx": ToInexact(("x",), strong=True, unknown_for=_SUB_BYTE),
    # the result is realised (strongly typed)
    **dict.fromkeys(("exp1", "expi", "gammasgn"), ToInexact(("x",), accepts="f", strong=True)),
    "gamma": ToInexact(("x",), strong=True),
    "logit": ToInexact(("x",), strong=True, python_weak=True),
    # a complex input meets an int32 inside (strict promotion refuses it): not modelled
    "loggamma": ToInexact(
        ("x",), strong_kinds="c", unknown_for=frozenset({"complex64", "complex128", "weak_complex"})
    ),
    "expit": ToInexact(("x",)),
    # the normal distribution's functions and spence take float32 and float64 only
    **dict.fromkeys(("log_ndtr", "ndtr", "spence"), _FLOAT32_64),
    "ndtri": Keep(("p",), accepts="f", refuses=NARROW_FOR_NDTR, weak=False),
    "beta": ToInexact(("a", "b"), accepts="f", strong=True),
    "betaln": ToInexact(("a", "b"), accepts="f"),
    "betainc": ToInexact(("a", "b", "x"), accepts="f"),
    "boxcox": ToInexact(("x", "lmbda")),
    "boxcox1p": ToInexact(("x", "lmbda")),
    "comb": ToInexact(("N", "k"), accepts="f"),
    "expn": ToInexact(("n", "x"), accepts="f", strong=True),
    "factorial": ToInexact(("n",), accepts="f"),
    "gammainc": ToInexact(("a", "x"), accepts="f"),
    "gammaincc": ToInexact(("a", "x"), accepts="f"),
    "hyp2f1": ToInexact(("a", "b", "c", "x"), accepts="f", strong=True),
    "kl_div": ToInexact(("p", "q"), accepts="f", strong=True, python_weak=True),
    "rel_entr": ToInexact(("p", "q"), accepts="f", strong=True, python_weak=True),
    "poch": ToInexact(("z", "m"), accepts="f", strong=True),
    "xlog1py": ToInexact(("x", "y")),
    "xlogy": ToInexact(("x", "y")),
    "zeta": ToInexact(("x", "q"), accepts="f"),
    "polygamma": ToInexact(("n", "x"), accepts="f", requires=(("n", "iu"),)),
    "logsumexp": NN["logsumexp"],
    "softmax": NN["softmax"],
    "log_softmax": NN["log_softmax"],
    "hyp1f1": UnknownDtype(
        "adds a Python int to a boolean inside: refused under strict promotion whatever the "
        "arguments, the promotion of the arguments otherwise (not modelled yet)",
        pending=True,
    ),
    "multigammaln": UnknownDtype("d must be a concrete Python int: not traced", pending=True),
    "owens_t": UnknownDtype("computed with float32 constants: not modelled yet", pending=True),
    "bernoulli": UnknownDtype(
        "the Bernoulli numbers up to a Python int n: the default float", pending=True
    ),
    "bessel_jn": UnknownDtype("a stack of Bessel functions computed by a recurrence", pending=True),
    "fresnel": UnknownDtype("a pair (S, C)", pending=True),
    "sici": UnknownDtype("a pair (Si, Ci)", pending=True),
    "sph_harm_y": UnknownDtype(
        "complex spherical harmonics of integer degrees and angles", pending=True
    ),
    "wofz": UnknownDtype("the complex Faddeeva function", pending=True),
}
"""``jax.scipy.special``: every public name."""


NAMESPACES: Final = (
    Namespace("jax.scipy.special.", SPECIAL, "JAX", JAX_RULES, aliases=("special.",)),
)
"""The namespaces this module holds (``typing_pkg.api`` finds them)."""
