"""The result dtypes of ``jax.scipy.stats``, as data.

Each distribution is a module (``jax.scipy.stats.norm``) whose functions
(``logpdf``, ``pdf``, ``cdf``, ``sf``, their logarithms, ``ppf``, ``isf``,
``logpmf``, ``pmf``) promote their arguments together and to an inexact dtype
(``promote_args_inexact``): an integer argument gives the default float,
``bfloat16`` stays ``bfloat16``.  The optional ``loc`` and ``scale`` are the
Python ints ``0`` and ``1`` when they are not passed: they take part in the
promotion (a boolean ``x`` alone joins them as a weakly typed int).

What differs between the functions is what their bodies do after the
promotion, read from ``jax/_src/scipy/stats``:

* a comparison (``x < loc``, ``jnp.where``) or ``lax.lgamma``/``igamma``
  refuses complex arguments: most distributions are real only;
* a body that combines the promoted arguments with an array it builds
  (``jnp.full_like``, ``jnp.array(np.pi)``, a ``lax`` constant of the
  result's dtype) realises a weakly typed result: ``strong``; where Python
  scalars alone keep the weak type (the whole computation stays on weak
  scalars), ``python_weak``;
* the normal distribution's ``cdf``/``sf`` and their logarithms, and
  ``truncnorm``, go through ``special.ndtr``/``log_ndtr``, which compute in
  ``float32`` or ``float64`` only; ``ppf``/``isf`` go through ``ndtri``, which
  takes a ``float32``/``float64`` probability as it is (no conversion).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from typing_pkg.api.jax_config import JAX_RULES
from typing_pkg.api.jax_scipy_special import NARROW_FOR_NDTR
from typing_pkg.api.kinds import Fixed, Kind, NotAnArray, ToInexact, UnknownDtype
from typing_pkg.api.namespace import Namespace
from typing_pkg.dtypes import SUB_BYTE_INTEGERS

__all__ = ["DISTRIBUTIONS", "NAMESPACES", "STATS"]

_LOC_SCALE: Final = ("loc=py_int", "scale=py_int")
_LOC: Final = "loc=py_int"
# ndtr and log_ndtr compute in float32 or float64 only; ndtri takes no other argument
_NDTR: Final = frozenset({"float32", "float64"})
# JAX computes some bodies in a 1- or 2-bit integer type as it is (an int1 result)
_SUB_BYTE: Final = frozenset(SUB_BYTE_INTEGERS)


def _real(*params: str, strong: bool = False) -> ToInexact:
    """The inexact join of ``params``, real dtypes only; ``strong``: realised unless the
    first argument is a Python scalar."""
    return ToInexact(params, accepts="f", strong=strong, python_weak=strong)


def _each(names: str, kind: Kind) -> dict[str, Kind]:
    """The functions ``names`` (space-separated), each of kind ``kind``."""
    return dict.fromkeys(names.split(), kind)


_CAUCHY: Final = ToInexact(("x", *_LOC_SCALE), strong=True, python_weak=True)
_NORMAL_CDF: Final = ToInexact(("x", *_LOC_SCALE), accepts="f", strong=True, computes_in=_NDTR)
# ppf(q) is jnp.asarray(ndtri(q) * scale + loc, float): the default float
_NDTRI: Final = Fixed("f", ("q", *_LOC_SCALE), accepts="f", refuses=NARROW_FOR_NDTR)

DISTRIBUTIONS: Final[Mapping[str, Mapping[str, Kind]]] = {
    "bernoulli": {
        **_each("logpmf pmf", _real("k", "p", _LOC, strong=True)),
        "cdf": _real("k", "p", strong=True),
        "ppf": _real("q", "p", strong=True),
    },
    "beta": _each("cdf logcdf logpdf logsf pdf sf", _real("x", "a", "b", *_LOC_SCALE, strong=True)),
    "betabinom": _each("logpmf pmf", _real("k", "n", "a", "b", _LOC, strong=True)),
    "binom": _each("logpmf pmf", _real("k", "n", "p", _LOC)),
    "cauchy": {
        **_each("cdf logcdf logpdf logsf pdf sf", _CAUCHY),
        **_each("isf ppf", ToInexact(("q", *_LOC_SCALE), strong=True, python_weak=True)),
    },
    "chi2": _each("cdf logcdf logpdf logsf pdf sf", _real("x", "df", *_LOC_SCALE, strong=True)),
    "dirichlet": _each("logpdf pdf", _real("x", "alpha", strong=True)),
    "expon": {
        **_each("cdf logcdf logpdf pdf sf", _real("x", *_LOC_SCALE)),
        "logsf": ToInexact(("x", *_LOC_SCALE), accepts="f", unknown_for=_SUB_BYTE),
        "ppf": ToInexact(("q", *_LOC_SCALE)),
    },
    "gamma": {
        **_each("cdf logcdf logpdf pdf", _real("x", "a", *_LOC_SCALE, strong=True)),
        **_each("logsf sf", _real("x", "a", *_LOC_SCALE)),
    },
    "gennorm": _each("cdf logpdf pdf", _real("x", "beta")),
    "geom": _each("logpmf pmf", _real("k", "p", _LOC, strong=True)),
    "gumbel_l": {
        **_each("cdf logcdf logpdf logsf pdf sf", _real("x", *_LOC_SCALE)),
        "ppf": _real("p", *_LOC_SCALE),
    },
    "gumbel_r": {
        **_each("cdf logcdf logpdf logsf pdf", _real("x", *_LOC_SCALE)),
        "sf": _real("x", *_LOC_SCALE, strong=True),
        "ppf": _real("p", *_LOC_SCALE),
    },
    "laplace": _each("cdf logpdf pdf", _real("x", *_LOC_SCALE, strong=True)),
    "logistic": {
        **_each("cdf sf", ToInexact(("x", *_LOC_SCALE))),
        **_each("isf logpdf pdf ppf", ToInexact(("x", *_LOC_SCALE), strong=True, python_weak=True)),
    },
    "multinomial": _each(
        "logpmf pmf",
        UnknownDtype(
            "p's inexact dtype once the counts x and n promote together to an integer type "
            "(two checks no kind holds yet)",
            pending=True,
        ),
    ),
    # a 0-d mean or cov takes a path without cholesky: nothing realises the result
    "multivariate_normal": _each(
        "logpdf pdf", ToInexact(("x", "mean", "cov"), strong=True, weak_scalars=("mean", "cov"))
    ),
    "nbinom": _each("logpmf pmf", _real("k", "n", "p", _LOC, strong=True)),
    "norm": {
        **_each("logpdf pdf", _CAUCHY),
        **_each("cdf logcdf logsf sf", _NORMAL_CDF),
        **_each("isf ppf", _NDTRI),
    },
    "pareto": {
        **_each("cdf logpdf logsf pdf sf", _real("x", "b", *_LOC_SCALE, strong=True)),
        "logcdf": _real("x", "b", *_LOC_SCALE),
        "ppf": ToInexact(("q", "b", *_LOC_SCALE), strong=True, python_weak=True),
    },
    "poisson": {
        "cdf": _real("k", "mu", _LOC, strong=True),
        **_each("logpmf pmf", _real("k", "mu", _LOC)),
        "entropy": ToInexact(("mu", _LOC), accepts="f", strong=True),
    },
    "t": _each("logpdf pdf", _real("x", "df", *_LOC_SCALE, strong=True)),
    "truncnorm": _each(
        "cdf logcdf logpdf logsf pdf sf",
        ToInexact(("x", "a", "b", *_LOC_SCALE), accepts="f", strong=True, computes_in=_NDTR),
    ),
    "uniform": {
        "cdf": ToInexact(("x", *_LOC_SCALE), accepts="f", strong=True, unknown_for=_SUB_BYTE),
        **_each("logpdf pdf", _real("x", *_LOC_SCALE)),
        "ppf": ToInexact(("q", *_LOC_SCALE)),
    },
    "vonmises": _each("logpdf pdf", _real("x", "kappa")),
    "wrapcauchy": _each("logpdf pdf", _real("x", "c")),
}
"""Each distribution's module of ``jax.scipy.stats``: every public name."""

STATS: Final[Mapping[str, Kind]] = {
    **{name: NotAnArray(f"the jax.scipy.stats.{name} module") for name in DISTRIBUTIONS},
    "gaussian_kde": NotAnArray("a kernel density estimator object"),
    "mode": UnknownDtype("a ModeResult pair (mode, count)", pending=True),
    "rankdata": UnknownDtype(
        "ranks: the default float or int by method (not modelled yet)", pending=True
    ),
    "sem": UnknownDtype("the standard error of the mean (not modelled yet)", pending=True),
}
"""``jax.scipy.stats``: every public name."""


NAMESPACES: Final = (
    Namespace("jax.scipy.stats.", STATS, "JAX", JAX_RULES, aliases=("stats.",)),
    *(
        Namespace(
            f"jax.scipy.stats.{name}.", entries, "JAX", JAX_RULES, aliases=(f"stats.{name}.",)
        )
        for name, entries in DISTRIBUTIONS.items()
    ),
)
"""The namespaces this module holds (``typing_pkg.api`` finds them)."""
