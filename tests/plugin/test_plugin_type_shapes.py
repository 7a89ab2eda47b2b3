"""mypy never crashes on the type shapes real JAX code has, and unknown dtypes add no error.

The module-level fuzz (``test_plugin_fuzz``) draws operator operands; this one
draws what the arrays live in and go through.  Each batch is one file: a
preamble of shapes whose array type is drawn per family (recursive pytree
aliases in the ``Union`` form with string forward references and as a PEP 695
``type``, a ``NamedTuple``, a dataclass with a ``Self`` method, a
``TypedDict``, generic classes, ``Protocol``s, ``ParamSpec``/``Concatenate``
decorators, an overload, ``Literal``, ``TypeGuard``/``TypeIs``,
``NoReturn``/``Never``, ``Callable[..., A]``, unannotated helpers building
them, lambdas, ``functools.partial``, names defined after their use; the
recursive-alias program that once crashed mypy with a ``RecursionError``), then
random functions (``random.Random`` with a seed Hypothesis draws) taking those
shapes and using them: operators on their elements, JAX calls, transformations
(``jit``, ``vmap``, ``grad``, ``value_and_grad(has_aux=True)``,
``lax.scan``/``fori_loop``/``while_loop``/``cond``), calls to the unannotated
helpers, unpacking and rebinding, partial types, ``float``/``int``/``format``/
f-strings; in the batches with known dtypes, also misuses (wrong ``argnums``,
bodies of the wrong arity, ``Never`` values) that must not crash the plugin.

Two properties, one in-process mypy run (``check_untyped_defs``) per batch:

* mypy finishes normally (no internal error, exit status 0 or 1), and a
  function whose arrays all have unknown dtypes (``Any``, ``jax.Array``,
  ``jnp.ndarray``, ``ArrayLike``, bare ``Array``, ``Array[Any]``,
  unannotated) carries no ``dtype-promotion`` error;
* on a batch where every array has an unknown dtype, the plugin adds no
  error at all: the same file checked without the plugin has every
  ``(line, code)`` the run with it reports.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from random import Random

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from plugin_harness import Outcome, parse, run_mypy, write_config

BATCH = 25  # functions per file; each has STATEMENTS statements
STATEMENTS = 8
EXAMPLES = int(os.environ.get("TYPING_PKG_SHAPES_BATCHES", "3"))
"""Batches per test (the no-added-error test runs mypy twice per batch)."""

# mypy raises the recursion limit when it runs; raising it first keeps Hypothesis quiet.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 2**14))

OPTIONS = "check_untyped_defs = True\npython_version = 3.12\n"  # 3.12: the ``type`` statement

UNKNOWN = ["jax.Array", "jnp.ndarray", "Array", "Array[Any]", "Any", "ArrayLike"]
KNOWN = ["Array[float32]", "Array[bfloat16]", "Array[int32]", "Array[float16]",
         "Array[bool_]", "Array[floating]", "Array[complex64]"]  # fmt: skip
BINARY = ["+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>"]

HEADER = """\
import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import (TYPE_CHECKING, Any, Concatenate, Generic, Literal, NamedTuple, Never,
                    NoReturn, Optional, ParamSpec, Protocol, Self, TypedDict, TypeGuard, TypeVar,
                    TypeVarTuple, Union, overload)

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.typing import ArrayLike
from typing_extensions import TypeIs

from typing_pkg import Array
from typing_pkg.dtypes import bfloat16, bool_, complex64, float16, float32, floating, int32

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")
Ts = TypeVarTuple("Ts")


def logged(f: Callable[P, R]) -> Callable[P, R]:
    @functools.wraps(f)
    def inner(*args: P.args, **kwargs: P.kwargs) -> R:
        return f(*args, **kwargs)

    return inner


def with_key(f: Callable[Concatenate[int, P], R]) -> Callable[P, R]:
    def inner(*args: P.args, **kwargs: P.kwargs) -> R:
        return f(0, *args, **kwargs)

    return inner


class Box(Generic[T]):
    def __init__(self, value: T) -> None:
        self.value = value

    def get(self) -> T:
        return self.value

    def map(self, f: Callable[[T], T]) -> "Box[T]":
        return Box(f(self.value))


class Cell[X]:
    def __init__(self, value: X) -> None:
        self.value = value

    def swap(self, value: X) -> Self:
        self.value = value
        return self


def ident[X](x: X) -> X:
    return x


def fail(message: str) -> NoReturn:
    raise ValueError(message)


def absurd(x: Never) -> Never:
    raise AssertionError(x)


def is_array(x: object) -> TypeGuard[jax.Array]:
    return isinstance(x, jax.Array)


def is_arr(x: object) -> TypeIs[jax.Array]:
    return isinstance(x, jax.Array)


def step(t):
    return t, 0


def first_leaf(t):
    return jax.tree.leaves(t)[0]


def make_tree(x):
    return [x, {"a": x, "b": (x, x)}]


def make_box(x):
    return Box(x)


def tree_scale(t, k=2.0):
    return jax.tree.map(lambda a: a * k, t)


def scan_body(carry, x):
    carry = carry + x
    return carry, carry * 2


def maybe(x):
    if x is None:
        return None
    return x * 2


def collect(x):
    xs = []
    for i in range(3):
        xs.append(x * i)
    return xs


def norm(x, eps=1e-5):
    return (x - jnp.mean(x)) / jnp.sqrt(jnp.var(x) + eps)


def recurse(x, depth):
    if depth == 0:
        return x
    return recurse(x * 2, depth - 1)


def ping(x, n):
    return x if n == 0 else pong(x, n - 1)


def pong(x, n):
    return ping(x + 1, n)


def gen(x):
    yield x
    yield x * 2


def raiser(x):
    fail(str(x))


def swap_pair(t):
    a, b = t
    return b, a


@jax.jit
def jitted(x, y):
    return x * y + 1


@logged
def dec_untyped(x):
    return jax.nn.relu(x) + 1


def late_user(x):
    return x * LATE_SCALE + late_helper(x)


class Model:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return x * self.w

    @staticmethod
    def shift(x, k=1.0):
        return x + k

    @classmethod
    def create(cls, x):
        return cls(x)

    @property
    def weight(self):
        return self.w


class GPair(NamedTuple, Generic[T]):
    first: T
    second: T


type Nested[X] = X | list[Nested[X]] | dict[str, Nested[X]]


@jax.custom_jvp
def safe_log(x):
    return jnp.log(x)


@safe_log.defjvp
def safe_log_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return safe_log(x), t / x


@jax.custom_vjp
def clip_grad(x):
    return x


def clip_fwd(x):
    return x, None


def clip_bwd(res, g):
    return (jnp.clip(g, -1, 1),)


clip_grad.defvjp(clip_fwd, clip_bwd)


@jax.checkpoint
def remat_fn(x):
    return jnp.sin(x) * 2


@functools.partial(jax.vmap, in_axes=(0, None))
def vmapped(x, y):
    return x * y


def make_fn(x):
    def inner(z):
        return z * x

    return inner


def kw_only(x, *, scale=2.0):
    return x * scale


def pos_only(x, /, y=1.0):
    return x + y


def star(*xs):
    return xs[0] + xs[-1]


def kwargs_fn(x, **kw):
    return x * kw.get("k", 1.0)


def with_global(x):
    global COUNTER
    COUNTER += 1
    return x


def closure_counter(x):
    total = x

    def add(y):
        nonlocal total
        total = total + y
        return total

    return add(x)


async def async_fn(x):
    return x * 2


def returns_lambda(x):
    return lambda z: z + x


def returns_partial(x):
    return functools.partial(kw_only, scale=x)


def tuple_star(x):
    return (*step(x), x)


def variadic(*args: *Ts) -> tuple[*Ts]:
    return args


def default_late(x, k=2.0):
    return x * k * LATE_SCALE


def branches(x, flag):
    if flag:
        return x
    elif flag is None:
        return None
    return -x


def loop_rebind(x):
    for _ in range(2):
        x = x * 2
    while x is None:
        x = 1
    return x


def try_helper(x):
    try:
        return x / 2
    except ZeroDivisionError:
        return x
    finally:
        pass


def with_block(x):
    with jax.default_device(jax.devices()[0]):
        y = x + 1
    return y


def match_helper(x):
    match x:
        case (p, q):
            return p + q
        case _:
            return x


if TYPE_CHECKING:

    def cond_def(x):
        return x * 2

else:

    def cond_def(x):
        return x + 1


class Wrapper(Generic[P, R]):
    def __init__(self, f: Callable[P, R]) -> None:
        self.f = f

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        return self.f(*args, **kwargs)


class Layer:
    scale = 2.0
    act = staticmethod(jax.nn.relu)

    def __init__(self, w):
        self.w = w
        self.cache = []

    def __call__(self, x):
        y = self.act(x * self.w) * self.scale
        self.cache.append(y)
        return y

    def twice(self, x):
        return self(self(x))


def is_f32(x: jax.Array) -> TypeGuard[Array[float32]]:
    return x.dtype == jnp.float32


def cast_to(x, dtype: Literal["float32", "int8"] = "float32"):
    return x.astype(dtype)


def late_jit_user(x):
    return LATE_JIT(x)


sq = lambda a: a * a
half = functools.partial(tree_scale, k=0.5)
COUNTER = 0
"""


@dataclass(frozen=True)
class Family:
    """Shapes sharing one array type ``{E}``, and the names that carry it into a function."""

    source: str
    words: tuple[str, ...]
    late: bool = False  # defined after the functions using it (mypy defers them)


FAMILIES = {
    "tree": Family('''
Tree = Union[{E}, Iterable["Tree"], Mapping[Any, "Tree"]]


def tree_stop(t: Tree) -> Tree:
    return jax.lax.stop_gradient(t)


def tree_step(t: Tree) -> tuple[Tree, int]:
    return t, 0


def tree_rebind(u: Tree) -> None:
    u, n = tree_step(u)
''', ("Tree", "tree_stop", "tree_step")),
    "ptree": Family('''
type PTree = {E} | list[PTree] | tuple[PTree, ...] | dict[str, PTree]


def ptree_stop(t: PTree) -> PTree:
    return jax.tree.map(lambda z: z * 2, jax.lax.stop_gradient(t))
''', ("PTree", "ptree_stop")),
    "otree": Family('''
OTree = Optional[Union[{E}, list["OTree"], dict[str, "OTree"]]]
''', ("OTree",)),
    "pair": Family('''
class Pair(NamedTuple):
    x: {E}
    y: {E}
    n: int = 0


def make_pair(x):
    return Pair(x, x * 2)
''', ("Pair", "make_pair", "PairTree")),
    "params": Family('''
@dataclass
class Params:
    w: {E}
    b: {E}
    name: str = "p"

    def apply(self, x):
        return x * self.w + self.b

    def scaled(self, k: float) -> Self:
        return dataclasses.replace(self, w=self.w * k)


def make_params(x):
    return Params(w=x, b=x + 1)


def loss_fn(params, x):
    pred = params.apply(x)
    return jnp.mean(pred**2)


def loss_aux(params, x):
    pred = x * params.w + params.b
    return jnp.mean(pred), {{"pred": pred}}
''', ("Params", "make_params", "loss_fn", "loss_aux", "SubParams", "late_class")),
    "stats": Family('''
class Stats(TypedDict):
    mean: {E}
    var: {E}


def make_stats(x):
    return Stats(mean=jnp.mean(x), var=jnp.var(x))
''', ("Stats", "make_stats")),
    "holder": Family('''
class HasArr(Protocol):
    @property
    def arr(self) -> {E}: ...


class Holder:
    def __init__(self, arr: {E}) -> None:
        self.arr = arr

    def with_arr(self, arr: {E}) -> Self:
        self.arr = arr
        return self
''', ("HasArr", "Holder")),
    "functions": Family('''
Fn = Callable[..., {E}]


class Scaler(Protocol):
    def __call__(self, x: {E}, /) -> {E}: ...


@logged
def dec_scale(x: {E}, k: float = 2.0) -> {E}:
    return x * k


@with_key
def keyed(key: int, x: {E}) -> {E}:
    return x


@overload
def ov(x: {E}) -> {E}: ...
@overload
def ov(x: list[{E}]) -> list[{E}]: ...
def ov(x: Any) -> Any:
    return x


def pick(x: {E}, mode: Literal["relu", "neg"] = "relu") -> {E}:
    if mode == "relu":
        return jax.nn.relu(x)
    return -x


def apply_fn(f: Fn, x: {E}) -> {E}:
    return f(x)
''', ("Fn", "Scaler", "dec_scale", "keyed", "ov", "pick", "apply_fn")),
    "nodes": Family('''
class Node(NamedTuple):
    value: {E}
    children: list["Node"]


class TNode(TypedDict):
    value: {E}
    kids: list["TNode"]


@dataclass
class DNode:
    value: {E}
    kids: "list[DNode]"


A1 = Union[{E}, list["A2"]]
A2 = Union[{E}, dict[str, "A1"]]
PairTree = Union[Pair, list["PairTree"]]


@jax.tree_util.register_pytree_node_class
class Registered:
    def __init__(self, a: {E}) -> None:
        self.a = a

    def tree_flatten(self):
        return (self.a,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)
''', ("Node", "TNode", "DNode", "A1", "A2", "Registered")),
    "late": Family('''
def late_helper(x):
    return x - LATE_ARR


def _late_source() -> {E}:
    raise NotImplementedError


LATE_SCALE = 2.0
LATE_ARR = _late_source()
LATE_TREE = make_tree([LATE_ARR])
LATE_NORM = norm(LATE_ARR)
LATE_STEP, _ = step(LATE_TREE)
LATE_JIT = jax.jit(late_helper)


@dataclass
class SubParams(Params):
    extra: {E} | None = None


def late_class(x):
    return SubParams(x, x).scaled(2.0).w
''', ("LATE_ARR", "LATE_TREE", "LATE_JIT", "late_user", "late_helper", "late_jit_user",
        "SubParams", "late_class"), late=True),
}  # fmt: skip

# Parameter shapes: the annotation and the expressions of an array inside (``$p``: the
# parameter).  ``{E}`` is the parameter's own array type; the others use their family's.
SHAPES = {
    "array": ("{E}", ("$p",)),
    "optional": ("Optional[{E}]", ("($p if $p is not None else $a)",)),
    "list": ("list[{E}]", ("$p[0]", "$p[-1]")),
    "dict": ("dict[str, {E}]", ('$p["w"]',)),
    "tuple": ("tuple[{E}, {E}]", ("$p[0]", "$p[1]")),
    "variadic": ("tuple[{E}, ...]", ("$p[0]",)),
    "box": ("Box[{E}]", ("$p.get()", "$p.value")),
    "cell": ("Cell[{E}]", ("$p.value",)),
    "callable": ("Callable[..., {E}]", ("$p($a)",)),
    "tree": ("Tree", ("first_leaf($p)", "jax.tree.leaves($p)[0]")),
    "ptree": ("PTree", ("first_leaf($p)",)),
    "otree": ("OTree", ("first_leaf($p)",)),
    "pair": ("Pair", ("$p.x", "$p[1]")),
    "params": ("Params", ("$p.w", "$p.b", "$p.apply($a)")),
    "stats": ("Stats", ('$p["mean"]', '$p["var"]')),
    "hasarr": ("HasArr", ("$p.arr",)),
    "holder": ("Holder", ("$p.arr", "$p.with_arr($p.arr).arr")),
    "fn": ("Fn", ("$p($a)",)),
    "scaler": ("Scaler", ("$p($a)",)),
    "never": ("Never", ("$p",)),
    "node": ("Node", ("$p.value", "$p.children[0].value")),
    "tnode": ("TNode", ('$p["value"]', '$p["kids"][0]["value"]')),
    "dnode": ("DNode", ("$p.value", "$p.kids[0].value")),
    "a1": ("A1", ("first_leaf($p)",)),
    "pairtree": ("PairTree", ("first_leaf($p)",)),
    "nested": ("Nested[{E}]", ("first_leaf($p)",)),
    "gpair": ("GPair[{E}]", ("$p.first", "$p[1]")),
    "registered": ("Registered", ("$p.a",)),
    "model": ("Model", ("$p($a)", "$p.weight")),
    "treelist": ("list[Tree]", ("first_leaf($p)",)),
    "ptreedict": ("dict[str, PTree]", ("first_leaf($p)",)),
    "unionshape": ("Pair | Params | None", ("first_leaf($p)",)),
    "typeobj": ("type[Model]", ("$p($a)($a)",)),
}

# Array expressions ($X: an array expression, $O: an operator); KNOWN_* give a known dtype.
ARRAY_FORMS = [
    "$X $O $X", "-$X", "abs($X)", "$X ** 2", "2.0 * $X", "1 - $X", "jnp.mean($X)",
    "jnp.where($X > 0, $X, 0.0)", "jax.lax.stop_gradient($X)", "jax.nn.relu($X)", "jnp.tanh($X)",
    "jnp.sum($X, axis=0)", "jnp.maximum($X, $X)", "$X.at[0].set($X)", "$X.at[1:].add(1.0)",
    "$X.mean()", "$X.reshape(-1)", "$X.T", "norm($X)", "dec_scale($X)", "keyed($X)",
    'pick($X, "neg")', "ov($X)", "sq($X)", "late_user($X)", "recurse($X, 2)", "ping($X, 1)",
    "apply_fn(jax.nn.relu, $X)", "dec_untyped($X)", "jitted($X, $X)", "ident($X)",
    "Box($X).get()", "make_pair($X).x", "make_params($X).apply($X)", 'make_stats($X)["mean"]',
    "first_leaf(make_tree($X))", "collect($X)[0]", "step($X)[0]",
    "jax.random.normal(key, $X.shape, dtype=$X.dtype)", "$X.astype($X.dtype)",
    "Model($X)($X)", "Model.shift($X)", "Model.create($X).weight", "Registered($X).a",
    "GPair($X, $X).first", "safe_log($X)", "clip_grad($X)", "remat_fn($X)", "vmapped($X, $X)",
    "make_fn($X)($X)", "kw_only($X, scale=2.0)", "pos_only($X)", "star($X, $X)",
    "star(*[$X, $X])", "kwargs_fn($X, k=2.0)", "with_global($X)", "closure_counter($X)",
    "returns_lambda($X)($X)", "returns_partial(2.0)($X)", "tuple_star($X)[0]",
    "variadic($X, 1)[0]", "norm(*($X,))", 'norm(**{"x": $X})', "norm(x=$X)",
    "norm($X, eps=1e-3)", "default_late($X)", "loop_rebind($X)", "try_helper($X)",
    "with_block($X)", "match_helper($X)", "Node($X, []).value", "DNode($X, []).value",
    "$X[None]", "$X[..., 0]", "$X[::2]", "$X[0, 1]", "$X.at[:, 0].multiply(2)", "$X.at[0].get()",
    "$X + np.float32(1)", "np.ones(3) + $X", "$X * np.int8(2)", "$X + 1j", "$X ** 0.5",
    "2 ** $X", "int($X) * $X", "jnp.stack([$X, $X])",
    "jnp.concatenate([$X, $X])", "jnp.zeros_like($X)", "jnp.full_like($X, 2)",
    'jnp.einsum("ij,jk->ik", $X, $X)', "jnp.linalg.norm($X)", "jnp.clip($X, 0, 1)",
    "jax.nn.softmax($X)", "jax.lax.dynamic_slice($X, (0,), (1,))", "jax.lax.select($X > 0, $X, $X)",
    "jax.lax.convert_element_type($X, $X.dtype)", "jnp.split($X, 2)[0]",
    "jax.vmap(jax.grad(lambda z: jnp.sum(z ** 2)))($X)", "jax.jit(jax.vmap(norm))($X)",
    "jax.hessian(lambda z: jnp.sum(z ** 3))($X)", "jax.jacfwd(norm)($X)", "jax.jacrev(norm)($X)",
    "jax.checkpoint(norm)($X)", "jax.remat(norm)($X)", "lax.map(norm, $X)",
    'jax.jit(norm, static_argnames=("eps",))($X, eps=1e-3)', "jax.jit(lambda *zs: zs[0])($X, $X)",
    "jax.jit(lambda z, k=2: z * k)($X)", "jax.jit(jax.grad(jax.jit(norm)))($X)",
    "jax.vmap(jax.vmap(norm))($X)", "jax.grad(lambda *zs: jnp.sum(zs[0]))($X)",
    "jax.grad(kw_only)($X, scale=2.0)", "jax.vmap(norm)(*[$X])",
    "lax.cond(True, lambda: $X, lambda: $X)",
    "lax.cond(True, lambda p, q: p + q, lambda p, q: p - q, $X, $X)",
    "lax.switch(1, [lambda z: z, lambda z: -z], $X)",
    "lax.while_loop(lambda c: jnp.mean(c) > 0, lambda c: c * 0.5, $X)",
    "cond_def($X)", "Wrapper(norm)($X)", "Layer($X)($X)", "Layer($X).twice($X)",
    "late_jit_user($X)", "late_class($X)", "functools.partial(norm, $X)()",
    "functools.reduce(lambda p, q: p + q, [$X, $X])", "list(map(norm, [$X, $X]))[0]",
    "jax.tree_util.Partial(norm)($X)", "jax.named_call(norm)($X)", "$X.block_until_ready()",
    "jax.device_put($X)", 'jnp.asarray($X, dtype=$X.dtype)', "jnp.array(($X, $X))",
    'lax.scan(lambda c, xy: (c + xy[0], xy[1]), $X, ($X, $X))[0]',
    "lax.scan(scan_body, $X, $X, reverse=True, unroll=2)[1]", "lax.associative_scan(jnp.add, $X)",
    'jax.vmap(loss_fn, in_axes=(None, 0))(make_params($X), $X)', "jax.jit(Layer($X))($X)",
    "jax.jit(make_params($X).apply)($X)", "jax.grad(Model($X).__call__)($X)",
    "LATE_JIT($X)", "SubParams($X, $X).scaled(2.0).b",
    "$X.at[0].set($X, mode=\"drop\")", "jax.lax.stop_gradient(($X, [$X]))[1][0]",
]  # fmt: skip
KNOWN_FORMS = [  # also misuses: type errors the plugin may report, that must not crash it
    "jnp.fft.fft($X)",
    "$X < $X",
    "jnp.where($X)[0]",
    "pow($X, 2)",
    "float($X) + 1",
    "jnp.linalg.svd($X)",
    "jnp.linalg.eigh($X)[0]",
    "jnp.unique($X)",
    "jnp.argmax($X)", "jax.nn.one_hot($X, 3)", "$X[$X > 0]", "$X.at[$X > 0].set(0.0)",
    "jnp.meshgrid($X, $X)[0]", "jnp.ix_($X)[0]", "jnp.nonzero($X)[0]", "$X.item()",
    "jax.grad(Pair)($X, $X)",
    "jax.vmap(make_pair, in_axes=[0])($X)",
    "jax.grad(norm, has_aux=True)($X)",
    "jax.value_and_grad(step, has_aux=True)($X)",
    "jax.grad(loss_fn, argnums=1)(make_params($X), $X)",
    "jax.grad(loss_fn, argnums=(0, 1))(make_params($X), $X)",
    "jax.grad(loss_fn, argnums=5)($X, $X)",
    "jax.grad(loss_fn, argnums=-1)($X, $X)", "jax.grad(loss_fn, argnums=())($X, $X)",
    "jax.grad(loss_aux, has_aux=bool($X))($X, $X)", "jax.grad(s)($X)", "jax.jit(u)($X)",
    "jax.vmap(t)($X)", "jax.grad(ov)($X)", "jax.jit(ov)($X)", "jax.grad(async_fn)($X)",
    "jax.value_and_grad(loss_aux, has_aux=True, argnums=(0, 1))(make_params($X), $X)",
    "lax.scan(lambda c, z: c, $X, $X)", "lax.scan(lambda c, z: (c, z, z), $X, $X)",
    "lax.scan(scan_body, $X)", "lax.fori_loop(0, 3, lambda c: c, $X)",
    "lax.cond(True, lambda z: z, lambda z: Pair(z, z), $X)", "lax.fori_loop(0, 3, step, $X)",
    "lax.while_loop(step, step, $X)", "lax.cond($X, norm, norm)", "lax.switch($X, [norm], $X)",
    "lax.scan(lambda c, z: (c.astype(jnp.int8), z), $X, $X)",
    "lax.fori_loop(0, 3, lambda i, c: c.astype(jnp.float16), $X)",
    "lax.cond(True, lambda z: z.astype(jnp.int8), lambda z: z, $X)",
    '"{:d}".format($X)', "len($X)", "bool($X)", "complex($X)", "$X.tolist()", "list($X)",
    "sum([$X, $X])", "divmod($X, 2)", "round($X)", "max($X, $X)", "np.asarray($X) + $X",
    "absurd($X)", "branches($X, $X)", "jax.eval_shape(norm, $X)", "cast_to($X)",
    'cast_to($X, "int8")', "is_f32($X)",
    "jax.device_get($X)",
    "$X.view(jnp.int32)",
    "jax.ShapeDtypeStruct($X.shape, $X.dtype)",
    "step(*$X)",
    "norm(*$X)",
    "norm(**$X)",
    "async_fn($X)", "jax.tree.map(norm, $X, $X)", "jax.tree.map(lambda p, q: p + q, ($X,), [$X])",
    "$X.astype(jnp.float32)", '$X.astype("bfloat16")', "jnp.zeros(3)", "$X > 0",
    "jax.random.normal(key, (3,), dtype=jnp.float16)", "jnp.ones_like($X, dtype=jnp.int8)",
    "jnp.asarray($X, dtype=jnp.int32)", "jax.random.uniform(key, (2,))",
]  # fmt: skip
TREE_FORMS = [
    "s", "t", "u", "make_tree($X)", "make_pair($X)", "make_params($X)", "make_stats($X)",
    "($X, $X)", '{"w": $X, "b": $X}', "[$X, $X]", "tree_scale(s)", "half(t)", "Pair($X, $X)",
    "Params($X, $X)", "Stats(mean=$X, var=$X)", "LATE_TREE", "step(s)[0]", "swap_pair(($X, $X))",
    "Box($X)", "Holder($X)", "Node($X, [])", "Node($X, [Node($X, [])])", "DNode($X, [])",
    "GPair($X, $X)", "Registered($X)", "(s, t)", "[s, t]", '{"s": s, "t": t}', "(u, (u, [u]))",
    "None", "()", "[]", "{}", "Pair($X, $X)._asdict()", "dataclasses.asdict(Params($X, $X))",
]  # fmt: skip
FUNCTIONS = [
    "norm", "dec_scale", "keyed", "sq", "jax.nn.relu", "lambda z: z + 1", "make_pair", "maybe",
    "dec_untyped", "late_user", "collect", "ident", "first_leaf", "make_tree", "tree_scale",
    "step", "functools.partial(norm, eps=1e-3)", "logged(norm)", "half", "make_params",
    "Model.shift", "Model.create", "safe_log", "clip_grad", "remat_fn", "make_fn($X)", "kw_only",
    "pos_only", "star", "kwargs_fn", "closure_counter", "returns_lambda($X)", "tuple_star",
    "jax.jit(norm)", "jax.vmap(norm)", "jax.checkpoint(norm)", "Model($X)",
    "loop_rebind", "try_helper", "match_helper", "default_late", "with_global",
]  # fmt: skip

# Statements ($T: a tree expression, $T0: one tree expression each time, $F: a function).
STATEMENTS_FORMS = [
    "chk: jax.Array = $X", "chk: jnp.ndarray = $X\nchk = $X", "y = $X", "y += $X", "$A += $X",
    "$A = $A * $X", "_ = $X", "_ = $T",
    "u2, n = step($T)", "u, n = step(u)", "u, _ = step(u)", "_, n = step(u)",
    "r = jax.lax.stop_gradient($T)", "r = jax.tree.map(lambda z: z * 2, $T)",
    "r = jax.tree_util.tree_map(jnp.mean, $T)", "r = jax.tree.map(lambda p, q: p + q, $T0, $T0)",
    "r = jax.tree.leaves($T)",
    "r = jax.tree.map(lambda z: z - 0.1 * z, $T, is_leaf=lambda v: v is None)",
    "r = jax.jit($F)($X)", "r = jax.jit(tree_scale)($T)", "r = jax.jit(step)($T)",
    "r = jax.vmap($F)($X)", "r = jax.vmap(lambda p, q: p * q, in_axes=(0, None))($X, $X)",
    "g = jax.grad(loss_fn)(make_params($X), $X)", "g = jax.grad(lambda w: jnp.sum(w * $X))($X)",
    "(l, aux), g = jax.value_and_grad(loss_aux, has_aux=True)(make_params($X), $X)",
    "l, g = jax.value_and_grad(loss_fn)(Params($X, $X), $X)",
    "c, ys = lax.scan(scan_body, $X, $X)", "c, ys = lax.scan(lambda c, z: (c, None), $T, $X)",
    "c, ys = lax.scan(lambda c, z: (c._replace(x=c.x + z), c.y), make_pair($X), $X)",
    "v = lax.fori_loop(0, 3, lambda i, c: c + $X, $X)",
    "v = lax.fori_loop(0, 3, lambda i, c: c, $T)",
    "v = lax.fori_loop(0, 3, lambda i, c: jax.tree.map(lambda z: z * 2, c), $T)",
    "v = lax.while_loop(lambda c: c[1] < 3, lambda c: (c[0] * 2, c[1] + 1), ($X, 0))",
    "v = lax.cond(jnp.mean($X) > 0, lambda z: z, lambda z: -z, $X)",
    "v = lax.cond(True, lambda z: z, lambda z: z, $T)",
    'm = "{:.2f}".format(float(jnp.mean($X)))', 'm = "{:.3f}".format($X)',
    "m = f'{float($X):.2f} {int(jnp.sum($X))}'", "k = int($X)", "fl = float($X)",
    "xs = []\nxs.append($X)\ny = xs[0] + $X", 'd = {}\nd["k"] = $X\ny = d["k"]',
    "acc = None\nfor i in range(2):\n    acc = $X if acc is None else acc + $X",
    "o = maybe($X)\nif o is not None:\n    y = o + 1",
    "if is_array(u):\n    _ = u + 1", "if is_arr(u):\n    y = u * 2",
    'if jnp.mean($X) > 1:\n    fail("big")', "if y is None:\n    raiser($X)",
    "h = Holder($X).with_arr($X)\ny = h.arr * 2", "p2 = make_params($X).scaled(2.0)\ny = p2.w",
    "hs: HasArr = Holder($X)\ny = hs.arr + 1", "sc: Scaler = dec_scale\ny = sc($X)",
    "fn: Fn = lambda *args: $X\ny = apply_fn(fn, $X)",
    "fn2: Callable[..., jax.Array] = jax.nn.relu\ny = fn2($X)",
    "pf = functools.partial(norm, eps=1e-3)\ny = pf($X)", "r = half($T)",
    "f = lambda z: z * $X\ny = f($X)",
    "@jax.jit\ndef inner(z):\n    return z * 2 + $X\n\ny = inner($X)",
    "@logged\ndef inner2(z, scale=2):\n    return z * scale\n\ny = inner2($X)",
    "@functools.partial(jax.jit, static_argnums=1)\ndef inner3(z, k):\n    return z * k\n\n"
    "y = inner3($X, 2)",
    "bx = Box($X)\nbx = bx.map(lambda z: z * 2)\ny = bx.get() + 1",
    "bx2 = make_box($X)\ny = bx2.value", "ce = Cell($X).swap($X)\ny = ce.value",
    'st = make_stats($X)\ny = st["mean"] + st["var"]', 'st2: Stats = {"mean": $X, "var": $X}',
    "y = ov($X)", "ys2 = ov([$X, $X])", 'y = pick($X, "neg")',
    "y = $X * LATE_SCALE", "y = late_user($X)", "y = LATE_ARR + $X",
    "p, q, n = make_pair($X)", "p, (q, r2) = $X, ($X, $X)", "*rest, last = [$X, $X]",
    "pr = make_pair($X)._replace(x=$X)", "pp = dataclasses.replace(make_params($X), w=$X)",
    "for g_ in gen($X):\n    y = g_ + 1",
    "k1, k2 = jax.random.split(key)\ny = jax.random.normal(k1, $X.shape, dtype=$X.dtype)",
    "if (w := $X) is not None:\n    y = w", "ys3 = [z * 2 for z in [$X, $X]]",
    'dd = {k_: v_ + 1 for k_, v_ in {"a": $X}.items()}', 'jax.debug.print("{x}", x=$X)',
    "y = jitted($X, $X)\ny = jitted(y, y)",
    "@jax.grad\ndef inner4(z):\n    return jnp.sum(z)\n\ny = inner4($X)",
    "@functools.partial(jax.grad, has_aux=True)\ndef inner5(z):\n    return jnp.sum(z), z\n\n"
    "g, aux = inner5($X)",
    "@jax.vmap\n@jax.jit\ndef inner6(z):\n    return z + 1\n\ny = inner6($X)",
    "@jax.custom_jvp\ndef inner7(z):\n    return z\n\ny = inner7($X)",
    "for row in $X:\n    y = row * 2", "p, q = $X", "r, *rest = $X", "k = $X.shape[0] + $X.ndim",
    "r = jax.tree.reduce(lambda p, q: p + q, $T)", "r = jax.tree_util.tree_flatten($T)",
    "r = jax.tree.leaves($T, is_leaf=lambda n: n is None)",
    "r = jax.tree_util.tree_map(lambda z: z, $T, is_leaf=lambda n: isinstance(n, Pair))",
    "r = jax.tree.map(lambda z: z, *[$T0, $T0])", "r = jax.jit(step)(*($X,))",
    "l, g = jax.value_and_grad(jax.jit(loss_fn))(make_params($X), $X)",
    "c, ys = lax.scan(scan_body, $X, None, length=3)",
    "c, ys = lax.scan(lambda c, z: (c, z), $T, $X)",
    "v = lax.fori_loop(0, 3, lambda i, c: (c[0] + i, c[1]), ($X, $T))",
    "v = lax.while_loop(lambda c: c[1] < 3, lambda c: (jax.tree.map(lambda z: z, c[0]), c[1] + 1),"
    " ($T, 0))",
    "v = lax.cond(jnp.mean($X) > 0, lambda z: z, lambda z: z, $T)",
    "r = jax.lax.stop_gradient(s)", "r = jax.lax.stop_gradient(t)",
    "r = jax.tree.map(lambda z: z * 2, s)", "r = jax.tree.map(lambda z: z * 2, t)",
    "u, n = step(s)\nu, n = step(u)", "r = jax.jit(tree_scale)(s)",
    "c, ys = lax.scan(lambda c, z: (c, z), s, $X)", "v = lax.fori_loop(0, 3, lambda i, c: c, t)",
    "async def inner8(z):\n    return z * 2\n\nr = inner8($X)",
    "def inner9(z, *zs, k=1, **kw):\n    return z * k\n\ny = inner9($X, $X, k=2, extra=3)",
    "def inner10(z):\n    yield z\n\nfor z in inner10($X):\n    y = z",
    "class Local:\n    def __init__(self, z):\n        self.z = z\n\n    def get(self):\n"
    "        return self.z\n\ny = Local($X).get()",
]  # fmt: skip
KNOWN_STATEMENTS = [
    "y = $X.astype(jnp.float32)", "y = jax.random.normal(key, (3,), dtype=jnp.bfloat16)",
    "y = jnp.zeros(3)\ny += $X", "m = '{:.2f}'.format(jnp.ones(()))", "$A = $A.astype(jnp.int8)",
    "u, n = step($T)",
    "r = $T + $X",
    "r = jax.tree.map($F, $T, $T)",
    "r = jax.tree.map(norm, $T, $T)",
    "y = absurd(s)", "y = absurd(u)", "u = s + 1", "u += $X", "r = $X($X)", "r = s($X)",
    "r = jax.grad(t)($X)", "y: Never = $X", "y: NoReturn = $X", "y: Tree = $X\ny += 1",
    "y = jax.tree.map(lambda z: z.astype(jnp.int8), $T)",
    "y = lax.fori_loop(0, 3, lambda i, c: jax.tree.map(lambda z: z.astype(jnp.int8), c), $T)",
    "if is_f32($A):\n    y = $A + 1", "r = cast_to($X) + $X",
    "r = jax.jit(s)($X)",
    "r = jax.vmap(s, in_axes=(0, 1))($X)",
    "r = jax.value_and_grad(t, has_aux=True)($X)",
]  # fmt: skip
_TOKEN = re.compile(r"\$(X|O|T0|T|F|A)")
LOCALS = re.compile(
    r"(?<![.\w])(chk|u2|r|v|c|ys|g|l|aux|m|k|fl|xs|d|acc|o|h|p2|hs|sc|fn|fn2|pf|f|inner|inner2"
    r"|inner3|bx|bx2|ce|st|st2|ys2|p|q|r2|rest|last|pr|pp|g_|k1|k2|w|ys3|dd|z|i|k_|v_)\b(?![='\"])"
)
"""The names a statement binds (lambda parameters too; not attributes, keywords, f-string
prefixes or names in strings): each statement has its own (``r_3``),
so that no name is rebound to another type (mypy's own error, which precise types expose)."""


@dataclass(frozen=True)
class Program:
    """A batch's source, and the lines where every array has an unknown dtype."""

    text: str
    unknown_lines: frozenset[int]


def _fill(form: str, draw: Callable[[str], str]) -> str:
    return _TOKEN.sub(lambda match: draw(match[1]), form)


@dataclass(frozen=True)
class Grammar:
    """The forms one function draws from."""

    arrays: tuple[str, ...]
    trees: tuple[str, ...]
    functions: tuple[str, ...]
    statements: tuple[str, ...]
    shapes: tuple[str, ...]


@functools.cache
def grammar(known: bool, banned: frozenset[str] = frozenset()) -> Grammar:
    """The forms of a function that may use known dtypes, or else none of the ``banned`` names
    (those of the families of known dtype: the function's arrays then all have unknown ones)."""
    pattern = re.compile(rf"\b({'|'.join(sorted(banned))})\b") if banned else None

    def allowed(forms: list[str]) -> tuple[str, ...]:
        return tuple(f for f in forms if pattern is None or pattern.search(f) is None)

    return Grammar(
        arrays=allowed(ARRAY_FORMS + KNOWN_FORMS if known else ARRAY_FORMS),
        trees=allowed(TREE_FORMS),
        functions=allowed(FUNCTIONS),
        statements=allowed(STATEMENTS_FORMS + KNOWN_STATEMENTS if known else STATEMENTS_FORMS),
        # ``Never``'s operators are int's and float's to mypy (``s * 2`` is an int): a precise
        # helper result then exposes mypy's own errors.
        shapes=tuple(
            k
            for k in sorted(SHAPES)
            if (known or k != "never") and allowed([" ".join((SHAPES[k][0], *SHAPES[k][1]))])
        ),
    )


def _array(rng: Random, atoms: Sequence[str], forms: Grammar, depth: int = 2) -> str:
    if depth == 0 or rng.randrange(3) == 0:
        return rng.choice(atoms)

    def part(token: str) -> str:
        if token == "O":
            return rng.choice(BINARY)
        return _array(rng, atoms, forms, depth - 1)

    return f"({_fill(rng.choice(forms.arrays), part)})"


def _statement(
    rng: Random, index: int, atoms: Sequence[str], targets: Sequence[str], forms: Grammar
) -> str:
    form = LOCALS.sub(lambda match: f"{match[1]}_{index}", rng.choice(forms.statements))
    same_tree: list[str] = []
    target = rng.choice(targets)

    def part(token: str) -> str:
        if token == "A":
            return target
        if token == "F":
            return _fill(rng.choice(forms.functions), part)
        if token in ("T", "T0"):
            if token == "T0" and same_tree:
                return same_tree[0]
            tree = _fill(rng.choice(forms.trees), part)
            if token == "T0":
                same_tree.append(tree)
            return tree
        return _array(rng, atoms, forms)

    return _fill(form, part)


def _function(
    rng: Random, index: int, forms: Grammar, known: bool, module: bool = False
) -> list[str]:
    """Return a function's lines (``known``: its parameters may have known dtypes), or with
    ``module`` the same statements at the module's top level, its parameters declared there."""
    pool = UNKNOWN + KNOWN if known else UNKNOWN
    types = {name: rng.choice(pool) for name in "abst"}
    kinds = {name: rng.choice(forms.shapes) for name in "st"}
    b_annotated = rng.random() < 0.5  # else unannotated: Any
    # ArrayLike holds Python and NumPy scalars: such a value goes through jnp.asarray first.
    a = "jnp.asarray(a)" if types["a"] == "ArrayLike" else "a"
    b = "jnp.asarray(b)" if b_annotated and types["b"] == "ArrayLike" else "b"
    atoms = [a, b, "y"]
    targets = ["y", *(n for n, e in zip("ab", (a, b), strict=True) if e == n)]
    params = [f"a: {types['a']}", f"b: {types['b']}" if b_annotated else "b"]
    for name in "st":
        annotation, elements = SHAPES[kinds[name]]
        params.append(f"{name}: {annotation.format(E=types[name])}")
        element_type = types[name] if "{E}" in annotation else None
        atoms += [
            f"jnp.asarray({e})" if element_type == "ArrayLike" else e
            for e in (e.replace("$p", name).replace("$a", a) for e in elements)
        ]
    arrow = rng.choice([" -> None", ""])
    indent = "" if module else "    "
    lines = [f"def case_{index}({', '.join(params)}, key: jax.Array){arrow}:"]
    if module:  # `b = ...` has no annotation: Any
        lines = [p if ":" in p else f'{p} = globals()["{p}"]' for p in params] + ["key: jax.Array"]
    lines += [f"{indent}y = {a}", f"{indent}u = s"]
    for number in range(STATEMENTS):
        statement = _statement(rng, number, atoms, targets, forms)
        lines += [f"{indent}{line}" if line else "" for line in statement.splitlines()]
    return lines


def make_program(seed: int, known: bool) -> Program:
    """A batch: the preamble with drawn array types, ``BATCH`` functions, the late definitions.

    With ``known``, every other function may use known dtypes; the others use only unknown
    ones, and no name of a family whose array type has a known dtype.
    """
    rng = Random(seed)
    # ArrayLike as a field or result type would give unions of Python scalars, which operators
    # refuse: mypy's own errors, that a helper's precise result exposes (no added error then).
    arrays = [t for t in UNKNOWN if t != "ArrayLike"]
    types = {name: rng.choice(UNKNOWN + KNOWN if known else arrays) for name in FAMILIES}
    banned = frozenset(w for n, f in FAMILIES.items() if types[n] not in arrays for w in f.words)
    lines = [
        f"# Generated by tests/plugin/test_plugin_type_shapes.py, seed {seed}.",
        *HEADER.splitlines(),
    ]
    for name, family in FAMILIES.items():
        if not family.late:
            lines += [*family.source.format(E=types[name]).splitlines(), ""]
    unknown_lines: set[int] = set()
    for index in range(BATCH):
        mixed = known and index % 2 == 0
        function = _function(rng, index, grammar(mixed, frozenset() if mixed else banned), mixed)
        if not mixed:
            unknown_lines.update(range(len(lines) + 1, len(lines) + len(function) + 1))
        lines += [*function, "", ""]
    for name, family in FAMILIES.items():
        if family.late:
            lines += [*family.source.format(E=types[name]).splitlines(), ""]
    # The same at the top level (after every definition: mypy reports a name used before it).
    lines += ["", *_function(rng, BATCH, grammar(known), known, module=True)]
    if not known:
        unknown_lines = set(range(1, len(lines) + 1))
    return Program("\n".join(lines) + "\n", frozenset(unknown_lines))


# ------------------------------------------------------------------------- the tests


def config(directory: Path, plugin: bool) -> Path:
    """``write_config``'s configuration with ``OPTIONS``, without the plugin if asked."""
    path = write_config(directory, "jax")
    text = path.read_text(encoding="utf-8").replace("[mypy]\n", f"[mypy]\n{OPTIONS}")
    if not plugin:
        text = text.replace("plugins = mypy_plugin\n", "")
    path.write_text(text, encoding="utf-8")
    return path


def check(source: Path, configuration: Path, cache_dir: Path) -> dict[int, Outcome]:
    """mypy's errors per line; mypy must finish normally."""
    out, err, status = run_mypy([source], configuration, cache_dir)
    assert "INTERNAL ERROR" not in out + err and "Traceback" not in out + err, (out + err)[-6000:]
    assert status in (0, 1), f"mypy exit status {status}\n{err}\n{out[-3000:]}"
    return parse(out)


def dtype_errors(outcomes: dict[int, Outcome], lines: frozenset[int], text: str) -> list[str]:
    """The ``dtype-promotion`` errors on ``lines``."""
    source = text.splitlines()
    return [
        f"{number}: {source[number - 1].strip()}: {message}"
        for number in sorted(lines & outcomes.keys())
        for message, code in outcomes[number].errors
        if code == "dtype-promotion"
    ]


def errors(outcomes: dict[int, Outcome]) -> set[tuple[int, str | None]]:
    """Each line's error codes."""
    return {(number, code) for number, said in outcomes.items() for _, code in said.errors}


@pytest.fixture(scope="module")
def configs(tmp_path_factory: pytest.TempPathFactory) -> dict[bool, tuple[Path, Path]]:
    """The configuration and cache directory with the plugin (``True``) and without it."""
    found = {}
    for plugin in (True, False):
        directory = tmp_path_factory.mktemp("plugin" if plugin else "bare")
        found[plugin] = (config(directory, plugin), directory / "cache")
    return found


# Hypothesis draws the seed of a batch (``make_program(seed, known)`` rebuilds it): its first
# example, the simplest, is a full program too.  Shrinking a batch would take minutes (one mypy
# run per attempt); a failure already names its lines.
SEEDS = st.integers(0, 2**32 - 1)
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=list(HealthCheck),
    derandomize=True,  # the same seeds every run: CI is repeatable, a failure reproducible
)


@SETTINGS
@given(seed=SEEDS)
def test_shapes_never_crash(
    seed: int, configs: dict[bool, tuple[Path, Path]], tmp_path: Path
) -> None:
    program = make_program(seed, True)
    source = tmp_path / "shapes_batch.py"
    source.write_text(program.text, encoding="utf-8")
    outcomes = check(source, *configs[True])
    wrong = dtype_errors(outcomes, program.unknown_lines, program.text)
    assert not wrong, wrong
    assert program.unknown_lines, "no function with only unknown dtypes: the strategy drifted"


@SETTINGS
@given(seed=SEEDS)
def test_unknown_dtypes_add_no_error(
    seed: int, configs: dict[bool, tuple[Path, Path]], tmp_path: Path
) -> None:
    program = make_program(seed, False)
    source = tmp_path / "shapes_batch.py"
    source.write_text(program.text, encoding="utf-8")
    outcomes = check(source, *configs[True])
    wrong = dtype_errors(outcomes, program.unknown_lines, program.text)
    assert not wrong, wrong
    bare = check(source, *configs[False])
    lines = program.text.splitlines()
    added = [
        f"{number}: {lines[number - 1].strip()}: {m} [{c}]"
        for number, code in sorted(errors(outcomes) - errors(bare), key=str)
        for m, c in outcomes[number].errors
        if c == code
    ]
    assert not added, "\n".join(added)
