"""The result dtypes of ``jax.random``, as data.

Samplers take the ``dtype`` argument (``float`` by default, JAX's default
float; ``randint``, ``poisson``, ``geometric`` and ``rademacher`` default to
``int``), checked against the kinds each sampler accepts
(``jax/_src/random/core.py``: ``normal`` takes complex dtypes, ``uniform``
only real ones).  The key argument's dtype does not matter.  Typed key
arrays (``random.key``, ``wrap_key_data``) have a ``key<impl>`` dtype that no
marker names: their entries are "unknown", never wrong; ``PRNGKey`` and
``key_data`` give raw ``uint32`` key data, and ``split``, ``fold_in`` and
``clone`` keep the key's own type (raw ``uint32`` stays ``uint32``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from typing_pkg.api.jax_config import JAX_RULES
from typing_pkg.api.kinds import Fixed, Keep, Kind, NotAnArray, Sample, UnknownDtype
from typing_pkg.api.namespace import Namespace
from typing_pkg.dtypes import NARROW_FLOATS, SUB_BYTE_FLOATS

__all__ = ["NAMESPACES", "RANDOM"]

# uniform() refuses the types narrower than a byte: the samplers built on it too.
_SUB_BYTE: Final = frozenset(SUB_BYTE_FLOATS)
_FLOAT: Final = Sample("f", accepts="f", refuses=_SUB_BYTE)
_FLOAT_ANY: Final = Sample("f", accepts="f")
# these combine the sample with a float32 constant: the narrow floats do not promote.
_NARROW_FLOATS: Final = frozenset(NARROW_FLOATS)
_INT: Final = Sample("i", accepts="iu")
# Raw key data is uint32 (shape (2,) for the default threefry implementation).
_KEY: Final = Keep(
    ("key",),
    accepts="u",
    refuses=frozenset({"uint1", "uint2", "uint4", "uint8", "uint16", "uint64"}),
    scalars=False,
)

RANDOM: Final[Mapping[str, Kind]] = {
    **dict.fromkeys(
        (
            "uniform",
            "truncated_normal",
            "cauchy",
            "exponential",
            "gumbel",
            "laplace",
            "logistic",
            "pareto",
            "t",
            "maxwell",
            "double_sided_maxwell",
            "weibull_min",
            "rayleigh",
            "wald",
            "triangular",
            "ball",
        ),
        _FLOAT,
    ),
    # gamma-based samplers do not draw through uniform()
    **dict.fromkeys(
        (
            "beta",
            "gamma",
            "loggamma",
            "dirichlet",
            "chisquare",
            "f",
            "binomial",
            "generalized_normal",
        ),
        _FLOAT_ANY,
    ),
    "multivariate_normal": UnknownDtype(
        "the promotion of dtype= with mean's and cov's dtypes (not modelled)", pending=True
    ),
    "normal": Sample("f", accepts="fc", refuses=_SUB_BYTE),
    "orthogonal": Sample("f", accepts="fc", refuses=_SUB_BYTE),
    # lognormal accepts any inexact dtype sigma=np.float32(1) can be cast to safely.
    "lognormal": Sample(
        "f", accepts="fc", refuses=_NARROW_FLOATS | {"float16", "bfloat16"}, after=("float32",)
    ),
    # multinomial and rademacher cast their result with astype(dtype): any dtype.
    "multinomial": Sample("f", accepts="biufc"),
    "rademacher": Sample("i", accepts="biufc", after=("py_int",)),
    "randint": _INT,
    "poisson": _INT,
    "geometric": _INT,
    # bits draws whole bytes: the narrow unsigned types give uint8.
    "bits": Sample(
        "u", accepts="u", results=(("uint1", "uint8"), ("uint2", "uint8"), ("uint4", "uint8"))
    ),
    "bernoulli": Fixed("bool_", specs=()),
    "categorical": Fixed("i", specs=()),
    # an int a (or x) draws from arange(a): the default int
    "choice": Keep(("~key", "a"), python="count"),
    "permutation": Keep(("~key", "x"), python="int-only"),
    "PRNGKey": Fixed("uint32", specs=()),
    "key_data": Fixed("uint32", specs=()),
    "split": _KEY,
    "fold_in": _KEY,
    "clone": Keep(("key",), scalars=False),
    "key": UnknownDtype("a typed key array (dtype key<impl>), which no marker names", pending=True),
    "wrap_key_data": UnknownDtype(
        "a typed key array (dtype key<impl>), which no marker names", pending=True
    ),
    "key_dtype": NotAnArray("returns a key dtype"),
    "key_impl": NotAnArray("returns a PRNG implementation"),
    "random_gamma_p": NotAnArray("a lax primitive"),
}
"""``jax.random``: every public name."""


NAMESPACES: Final = (
    Namespace("jax.random.", RANDOM, "JAX", JAX_RULES, aliases=("random.", "jr.")),
)
"""The namespaces this module holds (``typing_pkg.api`` finds them)."""
