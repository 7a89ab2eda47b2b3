"""The result dtypes of ``jax.random``, as data.

Samplers take the ``dtype`` argument (``float`` by default, JAX's default
float; ``randint``, ``poisson``, ``geometric`` and ``rademacher`` default to
``int``), checked against the kinds each sampler accepts
(``jax/_src/random/core.py``: ``normal`` takes complex dtypes, ``uniform``
only real ones).  Every function's ``key`` must be a typed key array
(``random.key``, ``wrap_key_data``: the ``key`` marker, JAX's ``key<impl>``)
or raw ``uint32`` key data (``PRNGKey``); JAX refuses any other dtype
(:data:`KEY_DTYPES`).  ``key_data`` gives the raw data of either, and
``split``, ``fold_in`` and ``clone`` keep the key's own type.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from typing_pkg.api.jax_config import JAX_RULES
from typing_pkg.api.kinds import Fixed, Keep, Kind, NotAnArray, RequestJoined, Sample
from typing_pkg.api.kinds.base import short
from typing_pkg.api.namespace import Namespace
from typing_pkg.dtypes import EXTENDED_KIND, NARROW_FLOATS, SUB_BYTE_FLOATS, key
from typing_pkg.ops import SYMBOL
from typing_pkg.rules.base import Undefined

__all__ = [
    "KEY_DTYPES",
    "KEY_OPERATORS",
    "KEY_PARAMETER",
    "KEY_REFUSAL",
    "KEY_UNCHECKED",
    "NAMESPACES",
    "RANDOM",
    "key_operator",
    "key_refusal",
]

KEY_PARAMETER: Final = "key"
"""The parameter every ``jax.random`` function that draws takes its key by."""
KEY_UNCHECKED: Final = frozenset({"clone"})
"""The functions taking a ``key`` of any dtype: ``clone`` copies whatever it is given."""
KEY_DTYPES: Final = (key.name, "uint32")
"""What JAX accepts as a key: a typed key array, or raw key data, ``uint32`` only
("JAX encountered invalid PRNG key data: expected key_data.dtype = uint32")."""
KEY_OPERATORS: Final[Mapping[str, str]] = {"eq": "bool_", "ne": "bool_", "pos": key.name}
"""The operators key arrays take (binary ones with key arrays; JAX refuses any other operand)."""
KEY_REFUSAL: Final = "does not accept key arrays"
"""How a refusal of a key operand reads (no cast fixes it: no hint follows)."""


def key_refusal(function: str, given: str) -> Undefined | None:
    """Why JAX refuses ``given`` (an operand: a marker, a ``py_*`` kind) as ``function``'s key,
    or None if it takes it."""
    if given in KEY_DTYPES or short(function) in KEY_UNCHECKED:
        return None
    return Undefined(
        f"{short(function)} needs a key array (jax.random.key) or uint32 key data "
        f"(jax.random.PRNGKey) as its key, not {given}"
    )


def key_operator(op: str, left: str, right: str | None) -> str | Undefined:
    """What ``left OP right`` (or ``OP left``) gives when an operand is a key array."""
    if op in KEY_OPERATORS and left == (left if right is None else right) == key.name:
        return KEY_OPERATORS[op]
    return Undefined(
        f"{SYMBOL[op]} {KEY_REFUSAL} (jax.random.key): keys take only == and != with keys "
        "(and unary +); jax.random.key_data(k) gives their raw uint32 data"
    )


# uniform() refuses the types narrower than a byte: the samplers built on it too.
_SUB_BYTE: Final = frozenset(SUB_BYTE_FLOATS)
_FLOAT: Final = Sample("f", accepts="f", refuses=_SUB_BYTE)
_FLOAT_ANY: Final = Sample("f", accepts="f")
# these combine the sample with a float32 constant: the narrow floats do not promote.
_NARROW_FLOATS: Final = frozenset(NARROW_FLOATS)
_INT: Final = Sample("i", accepts="iu")
# Raw key data is uint32 (shape (2,) for the default threefry implementation).
_NOT_KEY_DATA: Final = frozenset({"uint1", "uint2", "uint4", "uint8", "uint16", "uint64"})
_KEY: Final = Keep(
    ("key",), accepts="u" + EXTENDED_KIND, refuses=_NOT_KEY_DATA, scalars=False, keys=True
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
    # mean + einsum(cholesky(cov), normal(key, shape, dtype)); dtype defaults to mean's
    "multivariate_normal": RequestJoined(
        ("~key", "mean", "cov"),
        strong=True,
        accepts="f",
        dtype="dtype",
        dtype_accepts="f",
        scalars=False,
        refuses=_SUB_BYTE,
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
    "clone": Keep(("key",), scalars=False, accepts="biufc" + EXTENDED_KIND, keys=True),
    "key": Fixed(key.name, specs=()),
    "wrap_key_data": Fixed(
        key.name, specs=("key_bits_array",), accepts="u", refuses=_NOT_KEY_DATA, scalars=False
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
