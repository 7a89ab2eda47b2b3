"""Idioms of public JAX code on which the plugin once crashed or added an error.

Each line that must get an error says so (``# E: code``); each ``reveal_type``
states what it must show (``# R: type``).  Every other line must be clean, as
it is without the plugin: ``tests/plugin/test_public_idioms.py`` checks it in
one mypy run.
"""

import abc
import dataclasses
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any, NamedTuple, Union, overload

from typing_extensions import TypeAliasType

import jax
import jax.numpy as jnp
import numpy as np
import numpy.typing as npt
from jax.typing import ArrayLike

from typing_pkg import Array, float32, int8, int16

# A recursive pytree alias (flax, optax, equinox, chex spell it this way).
Tree = Union[jax.Array, Iterable["Tree"], Mapping[Any, "Tree"]]
Nested = TypeAliasType("Nested", "jax.Array | list[Nested] | dict[str, Nested]")


def stop(t: Tree) -> Tree:
    return jax.lax.stop_gradient(t)


def step(t: Tree) -> tuple[Tree, int]:
    return t, 0


def unpack(u: Tree) -> None:
    u, n = step(u)


def nested(t: Nested) -> Nested:
    return jax.tree.map(lambda x: x * 2, t)


# ArrayLike: a value of unknown dtype, never complex by one member of its union.
def roll(i: ArrayLike, n: int) -> jax.Array:
    return (i + jnp.arange(n)) % n


# A JAX result formats like a jax.Array.
def show(x: jax.Array) -> str:
    loss = jnp.mean(x)
    return "{:.2f}".format(loss) + f"{loss:.3f}"


# JAX hides norm's annotation (ord: int | str | None) behind jit; ord=jnp.inf runs.
def norm(x: jax.Array, ord: float) -> jax.Array:
    return jnp.linalg.norm(x, ord=ord)


# A declared annotation is never weakened: JAX rebinds a to int16 / float32.
def inplace(a: Array[int8], b: Array[int16], f: Array[float32]) -> None:
    a += b  # E: misc
    a -= f  # E: misc
    a //= b  # E: misc
    a *= 2
    reveal_type(a)  # R: typing_pkg.typing.Array[typing_pkg.dtypes.int8]


# A NumPy data loader: a helper typed at its call, then the name rebound to floats.
def loader() -> npt.NDArray[np.float32]:
    def load():  # type: ignore[no-untyped-def]
        return np.zeros((3, 4), np.uint8)

    x = load()
    x = x.astype(np.float32) / 255.0
    x = x.reshape(-1)
    return x


# NumPy's stubs guess a dtype for an operand of dtype Any: the plugin says unknown.
def guess(a: npt.NDArray[Any], h: npt.NDArray[np.float16]) -> None:
    reveal_type(a @ h)  # R: numpy.ndarray[tuple[Any, ...], numpy.dtype[Any]]
    reveal_type(a * 2.0)  # R: numpy.ndarray[tuple[Any, ...], numpy.dtype[Any]]


# `_` reused across unpackings of different types.
def underscore(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    _, a = jax.lax.scan(lambda c, y: (c, y), 0.0, x)
    _, (b, c) = jax.lax.scan(lambda c, y: (c, (y, y)), jnp.zeros(()), x)
    return a, b + c


# JAX types jnp.float32 as Any: its users pass it where they annotated a dtype,
# and even write it as a type.
def box(low: float, dtype: jnp.dtype = jnp.float32) -> None: ...


def spaces(x: jax.Array, dtype: Union[jnp.float32, jnp.float64] = jnp.float32) -> None:
    box(0.0, dtype=jnp.int32)
    reveal_type(x.astype(jnp.float16))  # R: typing_pkg.typing.Array[typing_pkg.dtypes.float16]


# A pytree field indexed by key: jax.Array's __getitem__ takes any key.
def positions(nodes: Tree) -> Tree:
    if isinstance(nodes, Mapping):
        return nodes["position"]
    return nodes


def by_key(x: jax.Array | dict[str, jax.Array]) -> jax.Array:
    return x["position"]


# A NumPy array where jnp.ndarray is annotated: JAX converts it.
def to_device(x: jnp.ndarray) -> jax.Array:
    return jnp.asarray(x)


def shard(edges: np.ndarray) -> jax.Array:
    def split(e):  # type: ignore[no-untyped-def]
        return np.reshape(e, (2, -1))

    return to_device(split(edges))


# An empty list is NumPy's float64, canonicalised (blackjax); a call whose arrays
# are all behind an empty tuple's star has an unknown dtype (neural-tangents).
def empty(operands: tuple[()], dims: list[int]) -> None:
    reveal_type(jnp.array([]))  # R: typing_pkg.typing.Array[typing_pkg.dtypes.float32]
    reveal_type(jnp.array([], dtype=bool))  # R: typing_pkg.typing.Array[typing_pkg.dtypes.bool_]
    reveal_type(jnp.einsum(*operands, dims, optimize=True))  # R: typing_pkg.typing.Array[Any]


# What mypy alone types Any keeps its dtype and stays accepted wherever Any is
# (gymnax's EnvState(time=jnp.int32(0)), ott's jitted norm returned as a float).
class EnvState(NamedTuple):
    time: int
    total: float


def reset(x: jnp.ndarray) -> float:
    state = EnvState(time=jnp.int32(0), total=jnp.float32(0.0))
    reveal_type(jnp.int32(0))  # R: Any
    reveal_type(jnp.int32(0) + 1)  # R: Any
    reveal_type(jnp.sin(jnp.int32(0)))  # R: typing_pkg.typing.Array[typing_pkg.dtypes.float32]
    return jnp.linalg.norm(x, ord=1)


def halve(x):  # type: ignore[no-untyped-def]
    return x / 2


def rebound_to_none(x: jax.Array) -> None:
    y = halve(jnp.zeros(3))
    reveal_type(y)  # R: typing_pkg.typing.InferredArray[typing_pkg.dtypes.float32, Any]
    y = None
    halve(jnp.zeros(3)) & jnp.zeros(3, jnp.int32)  # E: dtype-promotion
    jnp.bitwise_and(jnp.float32(1.0), jnp.int32(1))  # E: dtype-promotion


# x.dtype of an unknown dtype goes where jnp.dtype is annotated (ott, penzai).
def dtype_of(x: jax.Array) -> jnp.dtype:
    return x.dtype


# A class deriving from jax.Array is JAX's (Flax's fp8 arrays), accepted as one.
class EArray(jax.Array):
    def __init__(self, x: jax.Array) -> None:
        self.x = x


def wrap(x: jax.Array) -> jax.Array:
    return EArray(x)


# JAX's astype takes dtype=None and copy by position (ott).
def cast(x: jax.Array, dt: np.dtype | None) -> jax.Array:
    return x.astype(dt, False)


# A value narrowed by isinstance(x, jax.Array) is JAX's class, which JAX's API takes (chex).
def key_of(x: Any) -> None:
    if isinstance(x, jax.Array):
        jax.random.key_data(x)


# A specialised body refines the declared result's dtypes only (Flax's module_scopes).
def scopes(x: jax.Array, args: Any) -> tuple[Any, jax.Array]:
    return [1, 2], x * 2


def use_scopes() -> None:
    s, y = scopes(jnp.zeros(3, jnp.bfloat16), 1)
    reveal_type(y)  # R: typing_pkg.typing.Array[typing_pkg.dtypes.bfloat16]
    s = s[0]


# Names unpacked from what mypy alone calls Any, then rebound to JAX results (gymnax).
def sample(key, rows):  # type: ignore[no-untyped-def]
    return jnp.int32(1), jnp.int32(2)


def catch_step(key: jax.Array, prev: jax.Array, dx: jax.Array) -> None:
    bx, by = sample(key, 3)
    reveal_type(bx)  # R: Any
    bx = jax.lax.select(prev, bx, jnp.clip(bx + dx, 0, 5))


# `_` takes any type at each binding (distrax's `_, u, w, _, _ = lax.while_loop(...)`),
# and x.dtype of an unknown dtype is JAX's np.dtype (equinox's jnp.dtype(x.dtype)).
def unpack_underscore(x: jax.Array) -> None:
    _, y = jnp.zeros(3), 0
    _, z, _ = 1, x, x.astype(jnp.int8)
    d = jnp.dtype(x.dtype)
    reveal_type(x.dtype)  # R: numpy.dtype[Any]


# JAX's own Tracer derives from jax.Array through an alias, and Haiku's DotTracer from it.
class DotTracer(jax.core.Tracer):
    def __init__(self, trace: Any, val: Any) -> None:
        self.val = val


def trace(x: jax.Array) -> jax.Array:
    return DotTracer(None, x)


# What is unpacked from a jax.Array of unknown dtype is JAX's Any (brax's `_com`,
# declared -> jax.Array, returns a tuple); rows of a known dtype keep it.
def com_of(x: jax.Array) -> jax.Array:
    return x


def unpack_com(x: jax.Array) -> None:
    com, x_i = com_of(x)
    x_i.replace(pos=com)
    for row in jnp.zeros((3, 3)):
        reveal_type(row)  # R: typing_pkg.typing.InferredArray[typing_pkg.dtypes.float32, Any]
    first, second, third = jnp.zeros((3, 3))  # unpacked: Array (brax's dicts, below)
    reveal_type(first)  # R: typing_pkg.typing.Array[typing_pkg.dtypes.float32]


# A for loop's row is Any to JAX's types (its __iter__): given to an overloaded function,
# it matches what Any matches.  jumanji's viewers: matplotlib's Colormap.__call__ (below)
# answers a tuple for a float, a union for an ArrayLike; the colours' list takes tuples.
def loop_colours(colormap: "Colormap", n: int) -> list[tuple[float, float, float, float]]:
    out = [(1.0, 1.0, 1.0, 1.0)]
    for index in jnp.arange(0, 1, 1 / n):
        out.append(colormap(index))
    return out


# A jitted call is Any to mypy alone: only its arrays are the plugin's (brax's wrappers
# set self._state = None, then the jitted reset's State).
class JitState(NamedTuple):
    x: jax.Array


@jax.jit
def jit_reset(k):  # type: ignore[no-untyped-def]
    return JitState(jnp.zeros(3))


class Wrapper:
    def __init__(self) -> None:
        self._state = None

    def reset(self) -> None:
        self._state = jit_reset(1)


# value_and_grad's value is Any to mypy alone (JAX declares the transformed function's
# result Any): `loss = 0.0; loss += l` (Flax's PPO example), the dtype still known.
def value_loss(p: jax.Array, x: jax.Array):  # type: ignore[no-untyped-def]
    return jnp.sum(p * x)


def accumulate(params: Array[float32], batches: list[Array[float32]]) -> None:
    loss = 0.0
    for batch in batches:
        value, grads = jax.value_and_grad(value_loss)(params, batch)
        reveal_type(value)  # R: typing_pkg.typing.InferredArray[typing_pkg.dtypes.float32, Any]
        loss += value


# A pytree jax.tree.map returns is Any to mypy alone: a variable it defines takes any
# later value (brax's metrics dict, rebuilt with floats).
def rebuild(metrics: dict[str, Array[float32]]) -> None:
    means = jax.tree.map(jnp.mean, metrics)
    reveal_type(means["loss"])  # R: typing_pkg.typing.Array[typing_pkg.dtypes.float32]
    means = {"sps": 1.0}


# A NumPy ufunc of Python numbers is Any to NumPy's stubs: an integer one stays so (np.int64
# is no int to mypy: neural-tangents' `min(batch_size, np.gcd(n1, n2) // devices)`), an
# inexact one is an inferred NumPy scalar, accepted where Any is (jax-md returns np.sqrt(...)
# where it declares jax.Array).
def batch_sizes(n1: int, n2: int, batch_size: int, devices: int) -> int:
    largest = np.gcd(n1, n2) // devices
    return min(batch_size, largest)


def scaled(n: int) -> jax.Array:
    root = np.sqrt(n)
    reveal_type(root)  # R: typing_pkg.typing.InferredFloat64
    root = 1
    return np.sqrt(n)


# What an unannotated function returns keeps the program's own classes, but an abstract
# one: its instances are its subclasses' (kfac-jax's losses, typed LossFunction, call
# NegativeLogProbLoss's methods).
class Loss(abc.ABC):
    @abc.abstractmethod
    def evaluate(self) -> jax.Array: ...


class LogProbLoss(Loss):
    def evaluate(self) -> jax.Array:
        return jnp.zeros(())

    def sample(self) -> jax.Array:
        return jnp.ones(())


def registered(losses: tuple[Loss, ...]):  # type: ignore[no-untyped-def]
    return losses


def estimate(losses: tuple[Loss, ...]) -> None:
    for loss in registered(losses):
        loss.sample()


# A gradient is what JAX declares Any: its arrays only (neural-tangents differentiates
# at a NamedTuple field declared Optional, known not None there).
class OdeState(NamedTuple):
    fx: jax.Array | None
    k: jax.Array


def flow(state: OdeState, loss: Callable[[jax.Array, jax.Array], float]) -> jax.Array:
    grad_loss = jax.grad(lambda fx: loss(fx, state.k))
    dy = grad_loss(state.fx)
    reveal_type(dy)  # R: Any
    return jnp.tensordot(state.k, dy, 1)


# lax.cond of branches whose types differ but for dtypes is JAX's Any (jumanji's
# split_horizontally declares a tuple and returns the NamedTuple its twin returns).
class MazeState(NamedTuple):
    maze: jax.Array
    key: jax.Array


def split_across(state: MazeState, c: jax.Array) -> tuple[jax.Array, jax.Array]:
    return MazeState(state.maze, state.key)  # type: ignore[return-value]


def split_along(state: MazeState, c: jax.Array) -> MazeState:
    return state


def split_next(state: MazeState, c: jax.Array) -> MazeState:
    new: MazeState = jax.lax.cond(c > 0, split_across, split_along, state, c)
    return new


# jax.tree.map(f, *trees): the first tree is the first of the unpacked ones (brax
# concatenates two triples of Jacobians), not the tuple of them.
def jacobians(x: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    return x, x, x


def stacked(x: jax.Array) -> None:
    pairs = jacobians(x), jacobians(x)
    jac, diag, aref = jax.tree.map(lambda *a: jnp.concatenate(a), *pairs)


# x op= y on a declared name narrowed further (brax's centered_rank: x: jnp.ndarray, then
# argsort's int32, then x /= n): the declaration holds the float result, the name has it.
def centered_rank(x: jnp.ndarray) -> jnp.ndarray:
    x = jnp.argsort(jnp.argsort(x))
    x /= len(x) - 1
    reveal_type(x)  # R: typing_pkg.typing.Array[typing_pkg.dtypes.float32]
    return x - 0.5


# jax.tree.leaves is list[Any] to mypy alone: an unknown dtype stays Any in it (kfac-jax
# looks its leaves, jaxpr variables declared as arrays, up in a dict of variables).
def blocks(x: Any) -> tuple[jax.Array, ...]:
    return x  # type: ignore[no-any-return]


def order(x: Any, flat: list[object]) -> None:
    leaves = jax.tree_util.tree_leaves(blocks(x))
    reveal_type(leaves[0])  # R: Any
    index = {v: i for i, v in enumerate(flat)}
    print([index[p] for p in leaves])


# A variable bound to JAX's scalar type makes arrays as it does (jax-md's f32 = jnp.float32,
# then side * f32(0.5)): Any to mypy, read where a JAX function takes it.
f32 = jnp.float32


def periodic(side: float, dR: jax.Array) -> jax.Array:
    reveal_type(f32(0.5))  # R: Any
    reveal_type(jnp.sin(f32(0.5)))  # R: typing_pkg.typing.Array[typing_pkg.dtypes.float32]
    return jnp.mod(dR + side * f32(0.5), side) - f32(0.5) * side


# A jitted method's call is Any to mypy alone; a container of arrays of unknown dtypes
# stays so (kfac-jax rebinds its key parameter to the tuple of keys a jitted split gives).
class Splitter:
    @partial(jax.jit, static_argnums=(0, 2))
    def split(self, rng: jax.Array, num: int) -> tuple[jax.Array, ...]:
        return tuple(jax.random.split(rng, num))

    def burn_in(self, rng: jax.Array, steps: int) -> None:
        if steps > 0:
            rng = self.split(rng, steps)


# JAX's dtype names are Any to mypy, with the plugin too: a variable rebound from one to
# another (flax's examples, jax-md, penzai), one handed to NumPy (jax-md's loaders), one
# bound to None after; the plugin reads the dtype from the expression where a call reads it
# (f32 = jnp.float32 above).


def sum_at_64_bits(x: jax.Array, half: bool) -> None:
    if jnp.issubdtype(x.dtype, jnp.integer):
        wide = jnp.int64
    elif half:
        wide = jnp.float16
    else:
        wide = jnp.float64
    reveal_type(jnp.zeros(3, wide))  # R: typing_pkg.typing.Array[Any]
    by_name = {"float32": jnp.float32, "bfloat16": jnp.bfloat16}["float32"]
    activation = jnp.float32 if half else by_name
    activation = None
    loaded = np.loadtxt("steps.traj", dtype=jnp.float64)
    zeros = np.zeros(3, dtype=f32)
    reveal_type(jnp.zeros(3, f32))  # R: typing_pkg.typing.Array[typing_pkg.dtypes.float32]
    reveal_type(x.astype(jnp.bfloat16))  # R: typing_pkg.typing.Array[typing_pkg.dtypes.bfloat16]
    scale = jnp.float32(2.0)
    reveal_type(jnp.multiply(x.astype(jnp.int8), scale))  # R: typing_pkg.typing.Array[typing_pkg.dtypes.float32]


def init(shape: tuple[int, ...], dtype=jnp.float32):  # type: ignore[no-untyped-def]
    return jnp.zeros(shape, dtype)


def init_both() -> None:
    reveal_type(init((3,), jnp.bfloat16))  # R: typing_pkg.typing.InferredArray[typing_pkg.dtypes.bfloat16, Any]
    reveal_type(init((3,), f32))  # R: typing_pkg.typing.InferredArray[typing_pkg.dtypes.float32, Any]


# A list of what mypy alone calls Any keeps mypy's own Any (dm-haiku's _compute_fans: NumPy's
# overloaded np.prod answers Any for it; a special-form Any made it pick the first overload).
def compute_fans(shape, fan_in_axes=None):  # type: ignore[no-untyped-def]
    fan_in = 1
    if fan_in_axes is not None:
        reveal_type(np.prod([shape[i] for i in fan_in_axes]))  # R: Any
        fan_in = np.prod([shape[i] for i in fan_in_axes])
    return fan_in


# What grad returns goes where JAX's bare Callable goes: ott passes a derivative of one
# parameter on as Callable[[Array, float], Array]; jax-cfd returns value_and_grad of a
# function of other parameter types as its declared Callable.
def pass_derivative(derivative: Callable[[jax.Array, float], jax.Array]) -> None: ...


def precondition(x: float) -> float:
    return x


LossAndGrad = Callable[[Any, jax.Array], tuple[jax.Array, Any]]


def trajectory_loss(params: dict[str, jax.Array], target: tuple[jax.Array, ...]) -> float:
    return 0.0


def derivatives() -> LossAndGrad:
    pass_derivative(jax.vmap(jax.grad(precondition)))
    return jax.value_and_grad(trajectory_loss)


# Values followed through variables stop: a cycle (a NameError at run time) is no crash.
def cycle() -> None:
    a = jnp.float32(b)  # type: ignore[used-before-def, has-type]
    b = jnp.float32(a)
    reveal_type(jnp.sin(b))  # R: typing_pkg.typing.Array[typing_pkg.dtypes.float32]


# What grad returns takes any extra arguments before a keyword-only parameter, and its value
# is still the function's for the arguments given.
def scaled_loss(params: jax.Array, *, scale: float = 1.0) -> jax.Array:
    return jnp.sum(params.astype(jnp.float16)) * scale


def keyword_grad(params: Array[float32]) -> None:
    value, grads = jax.value_and_grad(scaled_loss)(params, scale=2.0)
    reveal_type(value)  # R: typing_pkg.typing.InferredArray[typing_pkg.dtypes.float16, Any]
    reveal_type(grads)  # R: typing_pkg.typing.Array[typing_pkg.dtypes.float32]


# An instance may replace a jitted method (JAX's jit makes an object, not a method): gymnax
# vectorises its environment's `step` in place. A method of other decorators stays a method.
class Environment:
    @partial(jax.jit, static_argnames=("self",))
    def step(self, x: jax.Array) -> jax.Array:
        return x * 2

    @jax.jit
    def reset(self, x: jax.Array) -> jax.Array:
        return x

    def render(self) -> None: ...


def vectorise(env: Environment) -> None:
    env.step = jax.jit(jax.vmap(env.step))
    env.reset = jax.jit(env.reset)
    env.render = lambda: None  # E: method-assign


# A jitted function's name bound again keeps JAX's type (jax-md: `T_schedule =
# jit(partial(T_schedule, T_init, T_final, steps))`, then called with one argument).
@jax.jit
def schedule(start: float, stop: float, steps: int, i: int) -> jax.Array:
    return jnp.asarray(start + (stop - start) * i / steps)


schedule = jax.jit(partial(schedule, 1.0, 2.0, 10))
schedule(3)


# vmap is F -> F: a variable's declared type solves F (jax-md binds a partial, then a vmap).
def bessel(cutoff: float, frequencies: jax.Array, r: jax.Array) -> jax.Array:
    return jnp.sin(frequencies * r) / r


def cutoff(fn: Callable[..., jax.Array]) -> Callable[..., jax.Array]:
    return fn


def embed(frequencies: jax.Array, rs: jax.Array) -> None:
    bessel_fn = partial(bessel, 5.0, frequencies)
    bessel_fn = jax.vmap(cutoff(bessel_fn))  # E: arg-type


# What an unannotated helper returns is Any to mypy alone: where the program declares another
# type, it stays accepted (jaxopt binds a KKTSolution to a parameter declared Optional[Array]).
class Solution(NamedTuple):
    primal: jax.Array
    dual: jax.Array


def full_solution(x, y):  # type: ignore[no-untyped-def]
    return Solution(x, y)


def to_box(params: jax.Array | None, x: jax.Array) -> jax.Array:
    if params is not None:
        params = full_solution(x, x)
    return full_solution(x, x)


# An unannotated parameter rebound to an array is narrowed to it as mypy alone would see it
# (Any but for its dtypes): neural-tangents passes it where JAX declares a Sequence.
def make_indices(index_array, shape):  # type: ignore[no-untyped-def]
    index_array = jnp.moveaxis(index_array, -1, 0)
    return jnp.ravel_multi_index(index_array, shape, "wrap")


def narrowed(index_array):  # type: ignore[no-untyped-def]
    index_array = jnp.zeros(3, jnp.int16)
    reveal_type(index_array)  # R: typing_pkg.typing.InferredArray[typing_pkg.dtypes.int16, Any]


# A Python number times a union of a NumPy array and a JAX array: NumPy's answer for the NumPy
# part (jax-cfd: `Array = Union[np.ndarray, jax.Array]`, then a weighted sum passed back).
GridData = Union[np.ndarray, jax.Array]


def grid_array(data: GridData) -> GridData:
    return data


def interpolate(weight: float, lower: GridData, upper: GridData) -> GridData:
    data = weight * lower + (1.0 - weight) * upper
    reveal_type(weight * lower)  # R: numpy.ndarray[tuple[Any, ...], numpy.dtype[Any]] | typing_pkg.typing.Array[Any]
    return grid_array(data)


# An unpacking's type context is mypy's guess, not a declaration (ott's PointCloud.subset).
class Cloud:
    def __init__(self, x: jax.Array, y: jax.Array) -> None:
        self.x = x
        self.y = y

    def tree_flatten(self):  # type: ignore[no-untyped-def]
        return (self.x, self.y, 1.0, None), {"scale": 1}

    def subset(self, rows: jax.Array | None = None) -> None:
        (x, y, *rest), aux_data = self.tree_flatten()
        if rows is not None:
            x = x[jnp.atleast_1d(rows)]
        print(x, y, rest, aux_data)


# An attribute bound twice, first to what an unannotated (vmapped) function returns: declared
# Any as mypy alone declares it (flax-examples: a Block, or an nnx.List of them).
class Block:
    def __init__(self, width: int) -> None:
        self.width = width


class Stack:
    def __init__(self, use_scan: bool) -> None:
        if use_scan:

            @jax.vmap
            def create_block(keys, /):  # type: ignore[no-untyped-def]
                return Block(3)

            self.blocks = create_block(jnp.zeros(3))
        else:
            self.blocks = [Block(3)]


# isinstance(x, jax.Array) narrows to the array a jax.Array annotation reads (neural-tangents
# returns it as jnp.ndarray; Flax passes it on); an array of a known dtype keeps its dtype.
def tangent(out: Any, typed: Array[float32] | list[int]) -> jax.Array:
    if isinstance(typed, jax.Array):
        reveal_type(typed)  # R: typing_pkg.typing.Array[typing_pkg.dtypes.float32]
    if isinstance(out, (jnp.ndarray, np.ndarray)):
        reveal_type(out)  # R: typing_pkg.typing.Array[Any] | numpy.ndarray[Any, Any]
    if isinstance(out, jax.Array | np.ndarray):
        reveal_type(out)  # R: typing_pkg.typing.Array[Any] | numpy.ndarray[Any, Any]
    if isinstance(out, jax.Array):
        return out
    raise TypeError(out)


# Rows of a JAX array in a dict passed where Dict[str, jax.Array] is declared (brax's
# ``reward, done, zero = jp.zeros(3)``; ``metrics = {"reward": zero}``): dict is invariant,
# and the rows are arrays (not InferredArray), accepted where jax.Array is.
@dataclasses.dataclass
class Metrics:
    metrics: dict[str, jax.Array]


def reset_metrics() -> Metrics:
    reward, done, zero = jnp.zeros(3)
    metrics = {"reward": zero, "done": done}
    reveal_type(metrics)  # R: dict[str, typing_pkg.typing.Array[typing_pkg.dtypes.float32]]
    return Metrics(metrics)


# A jitted function's result is Any to mypy alone: another library's overloaded function
# answers for it as for Any (matplotlib's colormap overloads for a float and for an
# ArrayLike differ; mypy alone answers Any).
class Colormap:
    @overload
    def __call__(self, x: float) -> tuple[float, float, float, float]: ...
    @overload
    def __call__(self, x: np.ndarray) -> np.ndarray: ...
    @overload
    def __call__(self, x: ArrayLike) -> tuple[float, float, float, float] | np.ndarray: ...
    def __call__(self, x: Any) -> Any:
        return x


@jax.jit
def half(x: jax.Array) -> jax.Array:
    return x / 2


def colours(colormap: Colormap) -> list[tuple[float, float, float, float]]:
    found = [(1.0, 1.0, 1.0, 1.0)]
    index = half(jnp.float32(0.5))
    reveal_type(index)  # R: typing_pkg.typing.InferredArray[typing_pkg.dtypes.float32, Any]
    found.append(colormap(index))
    return found


# kfac-jax: a module's alias of jax.Array in isinstance (mypy 1.19 read the alias's target,
# Array[Any], as a parameterized generic and refused it there).
KfacArray = jax.Array


def scalar_weight(weight: object) -> bool:
    if not isinstance(weight, KfacArray):
        return False
    reveal_type(weight)  # R: typing_pkg.typing.Array[Any]
    return weight.size == 1


def weights(values: list[KfacArray]) -> KfacArray:
    reveal_type(values[0])  # R: typing_pkg.typing.Array[Any]
    return values[0]
