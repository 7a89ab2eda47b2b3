"""The typing module: ``Array`` and the types of array inputs and outputs.

Annotate arrays by dtype::

    from typing_pkg import Array, ArrayLike, float32, floating

    def normalise(x: Array[floating]) -> Array[floating]: ...

    def load(data: ArrayLike) -> Array[float32]: ...

Following JAX's typing roadmap, inputs are typed permissively and outputs
strictly:

========================  ====================================================
input types (permissive)  accepts
========================  ====================================================
``ArrayLike``             an ``Array``; anything with ``__array__``,
                          ``__dlpack__`` or ``__array_namespace__`` (NumPy
                          arrays and scalars, JAX, PyTorch, CuPy, Dask arrays);
                          Python ``bool/int/float/complex``; nested sequences
                          of those (``[[1, 2], [3, 4]]``); not ``str``
``DTypeLike``             a marker (``float32``, ``floating``); a name
                          (``"float32"``, ``"f4"``, ``"bf"``); Python
                          ``bool/int/float/complex``; a NumPy dtype or scalar
                          type (``np.float32``); a dtype object such as
                          ``torch.float32``; anything with a ``.dtype`` (an
                          array, ``jnp.float32``)
``ShapeLike``             an integer or a sequence of integers (anything with
                          ``__index__``): ``3``, ``(2, 3)``, ``[2, 3]``
========================  ====================================================

========================  ====================================================
output types (strict)     is
========================  ====================================================
``Array[DT]``             an array whose dtype is the marker ``DT`` or one of
                          its subtypes (``Array[floating]`` holds float32 and
                          bfloat16 arrays alike); ``Array[DType]`` is an
                          array of unknown dtype; ``Array[Any]`` (a bare
                          ``Array``) one of a dtype the checker does not
                          know, accepted anywhere
``Shape``                 ``tuple[int, ...]``
``DType``                 the base class of all markers
========================  ====================================================

``Array`` is generic in one covariant dtype parameter: ``Array[float32]`` is
accepted where ``Array[floating]`` or ``Array[DType]`` is expected, and
rejected where ``Array[int8]`` is.  It declares the Array API standard's
array object (``dtype``, ``shape``, ``ndim``, ``size``, ``device``, ``T``,
``mT``, ``to_device``, ``__array_namespace__``, ``__dlpack__``, every operator
with its reflected and in-place forms) plus ``astype``, so that editors
complete them and checkers know their types.  The operators carry fallback
signatures (binary operators give ``Array[Any]``, comparisons
``Array[bool_]``, indexing, ``-x``, ``+x``, ``~x`` and ``abs(x)`` keep the
dtype, ``abs`` of a complex array gives the matching float); the mypy plugin
and the generated stubs infer the promoted dtype instead.  ``x.dtype`` is
typed as the marker class (``type[float32]``), so ``x.astype(y.dtype)`` and
``promote_types(x.dtype, y.dtype)`` are typed precisely; at run time it is
the library's own dtype object, which every function here accepts.

At run time ``Array`` is an abstract base class:

* ``isinstance(x, Array)`` is true for NumPy arrays (``numpy.ndarray`` and
  its subclasses, 0-d arrays included), ``jax.Array`` (JAX's tracers too:
  inside ``jit``, ``vmap`` and ``grad`` JAX itself is asked), ``torch.Tensor``,
  ``cupy.ndarray``, ``dask.array.Array``, array_api_strict arrays, real
  subclasses of ``Array`` and classes given to ``Array.register(cls)``.
  Libraries are recognised without being imported: a check never imports one.
* Python scalars are not arrays, and neither are NumPy scalars
  (``np.float32(1)``): they are values with a dtype, not arrays (they have no
  ``__array_namespace__``), as JAX and the Array API treat them.  Both are
  ``ArrayLike``.
* ``isinstance(x, Array[float32])`` also checks the dtype, mapping NumPy,
  ml_dtypes, JAX, PyTorch and array_api_strict dtypes to markers; categories
  match every dtype below them (``Array[floating]``), ``Array[generic]``
  every dtype that has a marker, and ``Array[DType]``/``Array[Any]`` every
  array.  A weakly typed JAX array of dtype float32 matches both
  ``Array[float32]`` and ``Array[weak_float]``.  ``Array[float32]`` at run time
  is a cached ``types.GenericAlias`` (``typing.get_origin`` gives ``Array``,
  ``typing.get_args`` ``(float32,)``) that also works as an annotation and in
  ``Array[float32] | None``; ``issubclass(cls, Array[float32])`` raises
  ``TypeError`` because a dtype belongs to instances, not classes.
* ``Array[int]``, ``Array["float32"]`` or ``Array[float32, int8]`` raise
  ``TypeError``: the argument is one dtype marker, ``Any`` or a type variable.

Type checkers refuse a subscripted generic class as the second argument of
``isinstance`` (mypy: ``[misc]``, pyright: ``reportArgumentType``), so in
checked code ``isinstance(x, Array[float32])`` needs a ``# type: ignore``;
``isinstance(x, Array)`` is accepted and narrows ``Array[float32] | int`` to
``Array[float32]``.
"""

from __future__ import annotations

import operator
import types
from abc import ABCMeta, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from typing import (
    TYPE_CHECKING,
    Any,
    Final,
    Generic,
    Never,
    Protocol,
    Self,
    SupportsIndex,
    TypeAlias,
    TypeVar,
    cast,
    overload,
)

from typing_pkg import _instancecheck
from typing_pkg._instancecheck import ARRAY_TYPES
from typing_pkg.dtypes import (
    DType,
    bcomplex32,
    bfloat16,
    bool_,
    complex32,
    complex64,
    complex128,
    complexfloating,
    float16,
    float32,
    float64,
    floating,
    weak_complex,
    weak_float,
)

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Array", "ArrayLike", "DType", "DTypeLike", "Shape", "ShapeLike"]

if TYPE_CHECKING:
    # Default Any (PEP 696): a bare ``Array`` is ``Array[Any]``, an array of
    # unknown dtype accepted anywhere, with no "missing type argument" error.
    # Python 3.11's TypeVar takes no default, hence typing_extensions' here.
    from typing_extensions import TypeVar as _TypeVarWithDefault

    _DT_co = _TypeVarWithDefault("_DT_co", bound=DType, covariant=True, default=Any)
    _Alone_co = _TypeVarWithDefault("_Alone_co", covariant=True, default=Any)
else:
    _DT_co = TypeVar("_DT_co", bound=DType, covariant=True)
    _Alone_co = TypeVar("_Alone_co", covariant=True)
_DT = TypeVar("_DT", bound=DType)
_T_co = TypeVar("_T_co", covariant=True)
_T = TypeVar("_T")


def _isinstance_array(instance: object) -> bool:
    """Return ``isinstance(instance, Array)``: one set lookup for a type seen before."""
    return type(instance) in ARRAY_TYPES or _isinstance_array_slow(instance)


def _isinstance_array_slow(instance: object) -> bool:
    kind = type(instance)
    if kind in _instancecheck.NOT_ARRAY_TYPES:
        return False
    # ABCMeta's check covers registered classes, real subclasses and, through
    # Array.__subclasshook__, the array classes of imported libraries.
    if ABCMeta.__instancecheck__(Array, instance):
        if instance.__class__ is kind:
            ARRAY_TYPES.add(kind)
        return True
    if _instancecheck.is_library_array_instance(instance):
        return True
    if instance.__class__ is kind:
        _instancecheck.remember_non_array(kind)
    return False


class _ArrayMeta(ABCMeta):
    """Metaclass of ``Array`` alone: a fast ``isinstance`` that knows the array libraries.

    Its ``__instancecheck__`` is a static method, so no bound method is
    created per call (a quarter of the cost of a Python-level check).  As it
    cannot tell ``Array`` from a subclass, the subclasses of ``Array`` get
    ``_ArraySubclassMeta``, which checks as any ABC does.
    """

    if not TYPE_CHECKING:
        __instancecheck__ = staticmethod(_isinstance_array)

    def __new__(
        mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any], /, **kwargs: Any
    ) -> _ArrayMeta:
        if mcls is _ArrayMeta and any(isinstance(base, _ArrayMeta) for base in bases):
            mcls = _ArraySubclassMeta
        return super().__new__(mcls, name, bases, namespace, **kwargs)

    def register(cls, subclass: type[_T]) -> type[_T]:
        """Make ``subclass`` and its subclasses arrays: ``isinstance(x, Array)`` is true."""
        registered = super().register(subclass)
        _instancecheck.forget_negatives(subclass)
        return registered


class _ArraySubclassMeta(_ArrayMeta):
    """Metaclass of the subclasses of ``Array``: ``isinstance`` as for any ABC."""

    if not TYPE_CHECKING:
        __instancecheck__ = ABCMeta.__instancecheck__


class Array(Generic[_DT_co], metaclass=_ArrayMeta):
    """An array whose dtype is the marker ``_DT_co`` (``Array[float32]``): the Array API array.

    See the module documentation for what ``isinstance`` accepts.
    """

    __slots__ = ()

    if not TYPE_CHECKING:
        # Type checkers see an ordinary generic class; at run time Array[m]
        # is a cached alias that also answers isinstance (typing's raises).
        def __class_getitem__(cls, params):
            if cls is Array:
                alias = _alias_for(params)
                if alias is not None:
                    return alias
            return super().__class_getitem__(params)

    @classmethod
    def __subclasshook__(cls, subclass: type) -> bool:
        # Library array classes are subclasses; anything else is decided by
        # ABCMeta (registry, real subclasses), and the answer is cached.
        if cls is Array and _instancecheck.is_library_array_class(subclass):
            return True
        return NotImplemented  # type: ignore[no-any-return]  # NotImplementedType derives from Any

    # ------------------------------------------------------------ attributes

    @property
    @abstractmethod
    def dtype(self) -> type[_DT_co]:
        """The dtype: statically the marker class; at run time the library's dtype object."""

    @property
    @abstractmethod
    def device(self) -> Any:
        """The device the array lives on (an object of the array's library)."""

    @property
    @abstractmethod
    def ndim(self) -> int:
        """The number of dimensions."""

    @property
    @abstractmethod
    def shape(self) -> Shape:
        """The size of each dimension."""

    @property
    @abstractmethod
    def size(self) -> int:
        """The number of elements."""

    @property
    @abstractmethod
    def T(self) -> Array[_DT_co]:
        """The transpose of a 2-d array."""

    @property
    @abstractmethod
    def mT(self) -> Array[_DT_co]:
        """The transpose of the last two dimensions (a stack of matrices)."""

    # --------------------------------------------------------------- methods

    @overload
    def astype(self, dtype: type[_DT], *, copy: bool = True, device: Any = None) -> Array[_DT]: ...
    # mypy infers the first overload's type variable from the expected type
    # too: in ``y: Array[float32] = x.astype(int8)`` it fails, and this one
    # (not the DTypeLike one, which would give Array[Any]) reports the error.
    @overload
    def astype(  # type: ignore[overload-cannot-match]
        self, dtype: type[DType], *, copy: bool = True, device: Any = None
    ) -> Array[DType]: ...
    # JAX's own method takes ``copy`` by position too, and ``dtype=None`` (the same dtype).
    @overload
    def astype(
        self, dtype: DTypeLike | None = None, copy: bool = False, device: Any = None
    ) -> Array[Any]: ...
    @abstractmethod
    def astype(
        self, dtype: DTypeLike | None = None, copy: bool = False, device: Any = None
    ) -> Array[Any]:
        """Return a copy converted to ``dtype`` (``x.astype(int8)`` is an ``Array[int8]``)."""

    @abstractmethod
    def to_device(self, device: Any, /, *, stream: Any = None) -> Array[_DT_co]:
        """Return a copy on ``device``."""

    @abstractmethod
    def __array_namespace__(self, /, *, api_version: str | None = None) -> types.ModuleType:
        """Return the array's Array API namespace (``jax.numpy``, ``array_api_strict``, …)."""

    @abstractmethod
    def __dlpack__(
        self,
        /,
        *,
        stream: Any = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> object:
        """Export the array as a DLPack capsule."""

    @abstractmethod
    def __dlpack_device__(self, /) -> tuple[int, int]:
        """Return the DLPack device type (an ``IntEnum``) and device number."""

    @abstractmethod
    def __getitem__(self, key: _Key, /) -> Array[_DT_co]:
        """Index or slice; the result keeps the dtype."""

    @abstractmethod
    def __setitem__(self, key: Any, value: Array[Any] | bool | int | float | complex, /) -> None:
        """Assign to the selected elements (any key, as JAX declares it: a str-keyed union
        of arrays and dicts is indexed by str)."""

    @abstractmethod
    def __bool__(self, /) -> bool: ...
    @abstractmethod
    def __int__(self, /) -> int: ...
    @abstractmethod
    def __float__(self, /) -> float: ...
    @abstractmethod
    def __complex__(self, /) -> complex: ...
    @abstractmethod
    def __index__(self, /) -> int: ...
    @abstractmethod
    def __format__(self, format_spec: str, /) -> str:
        """Format the array (a 0-d array as its number: ``f"{loss:.2f}"``), as JAX and NumPy do."""

    # ------------------------------------------------------- unary operators

    @abstractmethod
    def __neg__(self, /) -> Array[_DT_co]: ...
    @abstractmethod
    def __pos__(self, /) -> Array[_DT_co]: ...
    @abstractmethod
    def __invert__(self, /) -> Array[_DT_co]: ...

    # abs() of a complex array is real.  Each overload's result is a subtype
    # of the generic one's for the same operand, but checkers compare the
    # category overload with the generic one literally.
    @overload
    def __abs__(self: Array[complex64], /) -> Array[float32]: ...
    @overload
    def __abs__(self: Array[complex128], /) -> Array[float64]: ...
    @overload
    def __abs__(self: Array[complex32], /) -> Array[float16]: ...
    @overload
    def __abs__(self: Array[bcomplex32], /) -> Array[bfloat16]: ...
    @overload
    def __abs__(self: Array[weak_complex], /) -> Array[weak_float]: ...
    @overload
    def __abs__(self: Array[complexfloating], /) -> Array[floating]: ...
    @overload
    def __abs__(self: Array[_DT], /) -> Array[_DT]: ...
    @abstractmethod
    def __abs__(self, /) -> Array[Any]: ...

    # ------------------------------------------------------ binary operators
    # Fallback signatures: arithmetic and bitwise results are Array[Any] (the
    # plugin and the stubs infer the promoted dtype), comparisons Array[bool_].

    @abstractmethod
    def __add__(self, other: Array[Any] | bool | int | float | complex, /) -> Array[Any]: ...
    @abstractmethod
    def __sub__(self, other: Array[Any] | bool | int | float | complex, /) -> Array[Any]: ...
    @abstractmethod
    def __mul__(self, other: Array[Any] | bool | int | float | complex, /) -> Array[Any]: ...
    @abstractmethod
    def __truediv__(self, other: Array[Any] | bool | int | float | complex, /) -> Array[Any]: ...
    @abstractmethod
    def __floordiv__(self, other: Array[Any] | bool | int | float, /) -> Array[Any]: ...
    @abstractmethod
    def __mod__(self, other: Array[Any] | bool | int | float, /) -> Array[Any]: ...
    @abstractmethod
    def __pow__(self, other: Array[Any] | bool | int | float | complex, /) -> Array[Any]: ...
    @abstractmethod
    def __matmul__(self, other: Array[Any], /) -> Array[Any]: ...
    @abstractmethod
    def __and__(self, other: Array[Any] | bool | int, /) -> Array[Any]: ...
    @abstractmethod
    def __or__(self, other: Array[Any] | bool | int, /) -> Array[Any]: ...
    @abstractmethod
    def __xor__(self, other: Array[Any] | bool | int, /) -> Array[Any]: ...
    @abstractmethod
    def __lshift__(self, other: Array[Any] | bool | int, /) -> Array[Any]: ...
    @abstractmethod
    def __rshift__(self, other: Array[Any] | bool | int, /) -> Array[Any]: ...

    @abstractmethod
    def __lt__(self, other: Array[Any] | bool | int | float | complex, /) -> Array[bool_]: ...
    @abstractmethod
    def __le__(self, other: Array[Any] | bool | int | float | complex, /) -> Array[bool_]: ...
    @abstractmethod
    def __gt__(self, other: Array[Any] | bool | int | float | complex, /) -> Array[bool_]: ...
    @abstractmethod
    def __ge__(self, other: Array[Any] | bool | int | float | complex, /) -> Array[bool_]: ...
    @abstractmethod
    def __eq__(  # type: ignore[override]
        self, other: Array[Any] | bool | int | float | complex, /
    ) -> Array[bool_]: ...
    @abstractmethod
    def __ne__(  # type: ignore[override]
        self, other: Array[Any] | bool | int | float | complex, /
    ) -> Array[bool_]: ...

    # ---------------------------------------------------- reflected operators
    # For Python scalars only (``1 + x``): an array on the left is handled by
    # its own forward method, and reflected methods that accepted arrays
    # would make checkers type ``x + (a | b)`` through the union's reflected
    # method, bypassing the plugin.  No Python scalar can be the left operand
    # of ``@``, so ``__rmatmul__`` accepts nothing.

    @abstractmethod
    def __radd__(self, other: bool | int | float | complex, /) -> Array[Any]: ...
    @abstractmethod
    def __rsub__(self, other: bool | int | float | complex, /) -> Array[Any]: ...
    @abstractmethod
    def __rmul__(self, other: bool | int | float | complex, /) -> Array[Any]: ...
    @abstractmethod
    def __rtruediv__(self, other: bool | int | float | complex, /) -> Array[Any]: ...
    @abstractmethod
    def __rfloordiv__(self, other: bool | int | float, /) -> Array[Any]: ...
    @abstractmethod
    def __rmod__(self, other: bool | int | float, /) -> Array[Any]: ...
    @abstractmethod
    def __rpow__(self, other: bool | int | float | complex, /) -> Array[Any]: ...
    @abstractmethod
    def __rmatmul__(self, other: Never, /) -> Array[Any]: ...
    @abstractmethod
    def __rand__(self, other: bool | int, /) -> Array[Any]: ...
    @abstractmethod
    def __ror__(self, other: bool | int, /) -> Array[Any]: ...
    @abstractmethod
    def __rxor__(self, other: bool | int, /) -> Array[Any]: ...
    @abstractmethod
    def __rlshift__(self, other: bool | int, /) -> Array[Any]: ...
    @abstractmethod
    def __rrshift__(self, other: bool | int, /) -> Array[Any]: ...

    # ------------------------------------------------------ in-place operators
    # ``x += y`` updates ``x`` and keeps its dtype (the standard makes a
    # promotion that would change it an error).

    @abstractmethod
    def __iadd__(self, other: Array[Any] | bool | int | float | complex, /) -> Self: ...
    @abstractmethod
    def __isub__(self, other: Array[Any] | bool | int | float | complex, /) -> Self: ...
    @abstractmethod
    def __imul__(self, other: Array[Any] | bool | int | float | complex, /) -> Self: ...
    @abstractmethod
    def __itruediv__(self, other: Array[Any] | bool | int | float | complex, /) -> Self: ...
    @abstractmethod
    def __ifloordiv__(self, other: Array[Any] | bool | int | float, /) -> Self: ...
    @abstractmethod
    def __imod__(self, other: Array[Any] | bool | int | float, /) -> Self: ...
    @abstractmethod
    def __ipow__(self, other: Array[Any] | bool | int | float | complex, /) -> Self: ...
    @abstractmethod
    def __imatmul__(self, other: Array[Any], /) -> Self: ...
    @abstractmethod
    def __iand__(self, other: Array[Any] | bool | int, /) -> Self: ...
    @abstractmethod
    def __ior__(self, other: Array[Any] | bool | int, /) -> Self: ...
    @abstractmethod
    def __ixor__(self, other: Array[Any] | bool | int, /) -> Self: ...
    @abstractmethod
    def __ilshift__(self, other: Array[Any] | bool | int, /) -> Self: ...
    @abstractmethod
    def __irshift__(self, other: Array[Any] | bool | int, /) -> Self: ...

    # ------------------------------------------------------- JAX's members

    if TYPE_CHECKING:
        # jax.Array's members: `jax.Array` in a type is `Array[Any]`, and Array does not
        # derive from JAX's class (tests/stubs/test_array_members.py). An array result's
        # dtype comes from the API table (typing_pkg.api.jax_array) through the plugin.
        @property
        def __numpy_dtype__(self) -> np.dtype[Any]: ...
        @property
        def addressable_shards(self) -> Sequence[Any]: ...
        @property
        def at(self) -> _IndexUpdateHelper[_DT_co]: ...
        @property
        def aval(self) -> Any: ...
        @property
        def committed(self) -> bool: ...
        @property
        def flat(self) -> Any: ...
        @property
        def global_shards(self) -> Sequence[Any]: ...
        @property
        def imag(self) -> Array[Any]: ...
        @property
        def is_fully_addressable(self) -> bool: ...
        @property
        def is_fully_replicated(self) -> bool: ...
        @property
        def itemsize(self) -> int: ...
        @property
        def nbytes(self) -> int: ...
        @property
        def real(self) -> Array[Any]: ...
        @property
        def sharding(self) -> Any: ...
        @property
        def traceback(self) -> Any: ...
        @property
        def weak_type(self) -> bool: ...
        def __array__(
            self, dtype: Any = ..., context: Any = ..., copy: Any = ...
        ) -> np.ndarray[Any, Any]: ...
        def __buffer__(self, flags: Any) -> memoryview: ...
        def __divmod__(self, other: Any) -> tuple[Array[Any], Array[Any]]: ...
        def __rdivmod__(self, other: Any) -> tuple[Array[Any], Array[Any]]: ...
        def __iter__(self) -> Any: ...
        def __len__(self) -> int: ...
        def __release_buffer__(self, view: Any) -> None: ...
        def __reversed__(self) -> Iterator[Any]: ...
        def __round__(self, ndigits: Any = ...) -> Array[Any]: ...
        def addressable_data(self, index: Any) -> Array[Any]: ...
        def all(
            self, axis: Any = ..., out: Any = ..., keepdims: Any = ..., *, where: Any = ...
        ) -> Array[Any]: ...
        def any(
            self, axis: Any = ..., out: Any = ..., keepdims: Any = ..., *, where: Any = ...
        ) -> Array[Any]: ...
        def argmax(self, axis: Any = ..., out: Any = ..., keepdims: Any = ...) -> Array[Any]: ...
        def argmin(self, axis: Any = ..., out: Any = ..., keepdims: Any = ...) -> Array[Any]: ...
        def argpartition(self, kth: Any, axis: Any = ...) -> Array[Any]: ...
        def argsort(
            self,
            axis: Any = ...,
            *,
            kind: Any = ...,
            order: Any = ...,
            stable: Any = ...,
            descending: Any = ...,
        ) -> Array[Any]: ...
        def block_until_ready(self) -> Self: ...
        def byteswap(self) -> Array[Any]: ...
        def choose(self, choices: Any, out: Any = ..., mode: Any = ...) -> Array[Any]: ...
        def clip(self, min: Any = ..., max: Any = ...) -> Array[Any]: ...
        def compress(
            self,
            condition: Any,
            axis: Any = ...,
            *,
            out: Any = ...,
            size: Any = ...,
            fill_value: Any = ...,
        ) -> Array[Any]: ...
        def conj(self) -> Array[Any]: ...
        def conjugate(self) -> Array[Any]: ...
        def copy(self) -> Array[Any]: ...
        def copy_to_host_async(self) -> None: ...
        def cumprod(self, axis: Any = ..., dtype: Any = ..., out: Any = ...) -> Array[Any]: ...
        def cumsum(self, axis: Any = ..., dtype: Any = ..., out: Any = ...) -> Array[Any]: ...
        def delete(self) -> None: ...
        def devices(self) -> set[Any]: ...
        def diagonal(self, offset: Any = ..., axis1: Any = ..., axis2: Any = ...) -> Array[Any]: ...
        def dot(
            self, b: Any, *, precision: Any = ..., preferred_element_type: Any = ...
        ) -> Array[Any]: ...
        def flatten(self, order: Any = ...) -> Array[Any]: ...
        def is_deleted(self) -> bool: ...
        def item(self, *args: Any) -> Any: ...
        def max(
            self,
            axis: Any = ...,
            out: Any = ...,
            keepdims: Any = ...,
            initial: Any = ...,
            where: Any = ...,
        ) -> Array[Any]: ...
        def mean(
            self,
            axis: Any = ...,
            dtype: Any = ...,
            out: Any = ...,
            keepdims: Any = ...,
            *,
            where: Any = ...,
        ) -> Array[Any]: ...
        def min(
            self,
            axis: Any = ...,
            out: Any = ...,
            keepdims: Any = ...,
            initial: Any = ...,
            where: Any = ...,
        ) -> Array[Any]: ...
        def nonzero(self, *, fill_value: Any = ..., size: Any = ...) -> tuple[Array[Any], ...]: ...
        def on_device_size_in_bytes(self) -> int: ...
        def platform(self) -> str: ...
        def prod(
            self,
            axis: Any = ...,
            dtype: Any = ...,
            out: Any = ...,
            keepdims: Any = ...,
            initial: Any = ...,
            where: Any = ...,
            promote_integers: Any = ...,
        ) -> Array[Any]: ...
        def ptp(self, axis: Any = ..., out: Any = ..., keepdims: Any = ...) -> Array[Any]: ...
        def ravel(self, order: Any = ..., *, out_sharding: Any = ...) -> Array[Any]: ...
        def repeat(
            self,
            repeats: Any,
            axis: Any = ...,
            *,
            total_repeat_length: Any = ...,
            out_sharding: Any = ...,
        ) -> Array[Any]: ...
        def reshape(self, *args: Any, order: Any = ..., out_sharding: Any = ...) -> Array[Any]: ...
        def round(self, decimals: Any = ..., out: Any = ...) -> Array[Any]: ...
        def searchsorted(
            self, v: Any, side: Any = ..., sorter: Any = ..., *, method: Any = ...
        ) -> Array[Any]: ...
        def sort(
            self,
            axis: Any = ...,
            *,
            kind: Any = ...,
            order: Any = ...,
            stable: Any = ...,
            descending: Any = ...,
        ) -> Array[Any]: ...
        def squeeze(self, axis: Any = ...) -> Array[Any]: ...
        def std(
            self,
            axis: Any = ...,
            dtype: Any = ...,
            out: Any = ...,
            ddof: Any = ...,
            keepdims: Any = ...,
            *,
            where: Any = ...,
            correction: Any = ...,
        ) -> Array[Any]: ...
        def sum(
            self,
            axis: Any = ...,
            dtype: Any = ...,
            out: Any = ...,
            keepdims: Any = ...,
            initial: Any = ...,
            where: Any = ...,
            promote_integers: Any = ...,
        ) -> Array[Any]: ...
        def swapaxes(self, axis1: Any, axis2: Any) -> Array[Any]: ...
        def take(
            self,
            indices: Any,
            axis: Any = ...,
            out: Any = ...,
            mode: Any = ...,
            unique_indices: Any = ...,
            indices_are_sorted: Any = ...,
            fill_value: Any = ...,
        ) -> Array[Any]: ...
        def tobytes(self, order: Any = ...) -> bytes: ...
        def tolist(self) -> list[Any]: ...
        def trace(
            self,
            offset: Any = ...,
            axis1: Any = ...,
            axis2: Any = ...,
            dtype: Any = ...,
            out: Any = ...,
        ) -> Array[Any]: ...
        def transpose(self, *args: Any) -> Array[Any]: ...
        def unsafe_buffer_pointer(self) -> int: ...
        def var(
            self,
            axis: Any = ...,
            dtype: Any = ...,
            out: Any = ...,
            ddof: Any = ...,
            keepdims: Any = ...,
            *,
            where: Any = ...,
            correction: Any = ...,
        ) -> Array[Any]: ...
        def view(self, dtype: Any = ..., type: Any = ...) -> Array[Any]: ...


if TYPE_CHECKING:

    class _IndexUpdateHelper(Generic[_DT_co]):
        """``x.at``: indexed, it names the elements an update replaces."""

        def __getitem__(self, index: Any, /) -> _IndexUpdateRef[_DT_co]: ...

    class _IndexUpdateRef(Generic[_DT_co]):
        """``x.at[i]``: each update returns a new array of ``x``'s dtype, as JAX's do."""

        def get(
            self,
            indices_are_sorted: Any = ...,
            unique_indices: Any = ...,
            mode: Any = ...,
            fill_value: Any = ...,
            out_sharding: Any = ...,
            wrap_negative_indices: Any = ...,
        ) -> Array[_DT_co]: ...
        def set(
            self,
            values: Any,
            indices_are_sorted: Any = ...,
            unique_indices: Any = ...,
            mode: Any = ...,
            fill_value: Any = ...,
            out_sharding: Any = ...,
            wrap_negative_indices: Any = ...,
        ) -> Array[_DT_co]: ...
        def add(
            self,
            values: Any,
            indices_are_sorted: Any = ...,
            unique_indices: Any = ...,
            mode: Any = ...,
            out_sharding: Any = ...,
            wrap_negative_indices: Any = ...,
        ) -> Array[_DT_co]: ...
        def subtract(
            self,
            values: Any,
            *,
            indices_are_sorted: Any = ...,
            unique_indices: Any = ...,
            mode: Any = ...,
            wrap_negative_indices: Any = ...,
        ) -> Array[_DT_co]: ...
        def mul(
            self,
            values: Any,
            indices_are_sorted: Any = ...,
            unique_indices: Any = ...,
            mode: Any = ...,
            wrap_negative_indices: Any = ...,
        ) -> Array[_DT_co]: ...
        def multiply(
            self,
            values: Any,
            indices_are_sorted: Any = ...,
            unique_indices: Any = ...,
            mode: Any = ...,
            wrap_negative_indices: Any = ...,
        ) -> Array[_DT_co]: ...
        def min(
            self,
            values: Any,
            indices_are_sorted: Any = ...,
            unique_indices: Any = ...,
            mode: Any = ...,
            wrap_negative_indices: Any = ...,
        ) -> Array[_DT_co]: ...
        def max(
            self,
            values: Any,
            indices_are_sorted: Any = ...,
            unique_indices: Any = ...,
            mode: Any = ...,
            wrap_negative_indices: Any = ...,
        ) -> Array[_DT_co]: ...
        def apply(
            self,
            func: Any,
            indices_are_sorted: Any = ...,
            unique_indices: Any = ...,
            mode: Any = ...,
            wrap_negative_indices: Any = ...,
        ) -> Array[_DT_co]: ...
        def divide(
            self,
            values: Any,
            indices_are_sorted: Any = ...,
            unique_indices: Any = ...,
            mode: Any = ...,
            wrap_negative_indices: Any = ...,
        ) -> Array[_DT_co]: ...
        def power(
            self,
            values: Any,
            indices_are_sorted: Any = ...,
            unique_indices: Any = ...,
            mode: Any = ...,
            wrap_negative_indices: Any = ...,
        ) -> Array[_DT_co]: ...


# ------------------------------------------------------------ Array[m] at run time


class _ArrayAlias(types.GenericAlias):
    """``Array[m]`` at run time: an annotation that also answers ``isinstance``.

    One subclass per marker carries that marker's ``__instancecheck__``: a
    closure (a ``GenericAlias`` forwards attribute reads to its origin, so
    per-alias state in attributes would be slow to read) installed as a
    static method (no bound method is created per call).
    """

    __slots__ = ()

    def __repr__(self) -> str:
        arg = self.__args__[0]
        return f"Array[{'Any' if arg is Any else arg.name}]"

    def __reduce__(self) -> tuple[Callable[[Any, Any], Any], tuple[Any, Any]]:
        return operator.getitem, (Array, self.__args__[0])

    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: object) -> Self:
        return self

    def __subclasscheck__(self, cls: type) -> bool:
        arg = self.__args__[0]
        if arg is Any or arg is DType:
            return issubclass(cls, Array)
        raise TypeError(
            f"issubclass() cannot test {self!r}: the dtype of an array belongs to the "
            f"instance, not the class; use isinstance(x, {self!r}) or issubclass(cls, Array)"
        )


_ALIASES: Final[dict[object, _ArrayAlias]] = {}
_PYTHON_SCALAR_MARKERS: Final = (
    (bool, "bool_"),
    (int, "weak_int"),
    (float, "weak_float"),
    (complex, "weak_complex"),
)


def _alias_for(params: object) -> _ArrayAlias | None:
    """Return the cached ``Array[params]``, None for a type variable, or raise ``TypeError``."""
    if isinstance(params, tuple):
        args = cast("tuple[object, ...]", params)
        if len(args) != 1:
            raise TypeError(
                f"Array takes exactly one dtype argument (Array[float32]), got {len(args)}"
            )
        params = args[0]
    try:
        alias = _ALIASES.get(params)
    except TypeError:  # unhashable: certainly not a marker
        alias = None
    if alias is not None:
        return alias
    if isinstance(params, TypeVar):
        return None
    if params is Any or params is DType:
        check: Callable[[Any], bool] = _isinstance_array
        label = "Any" if params is Any else "DType"
    elif isinstance(params, type) and issubclass(params, DType):
        marker: type[DType] = params
        check = _instancecheck.dtype_instancecheck(marker, _isinstance_array)
        label = marker.name
    else:
        hint = "".join(
            f" (for Python's {t.__name__}: typing_pkg.{m})"
            for t, m in _PYTHON_SCALAR_MARKERS
            if params is t
        )
        raise TypeError(
            f"Array[...] takes a dtype marker such as typing_pkg.float32 or typing_pkg.floating, "
            f"Any or a type variable; {params!r} is none of these{hint}"
        )
    kind = type(
        f"_ArrayAlias_{label}",
        (_ArrayAlias,),
        {"__slots__": (), "__instancecheck__": staticmethod(check)},
    )
    return _ALIASES.setdefault(params, kind(Array, (params,)))


# ----------------------------------------------------------------- input types


class _SupportsArray(Protocol):
    """An object NumPy can convert (``__array__``): NumPy, JAX, PyTorch arrays, NumPy scalars."""

    def __array__(self) -> object: ...


class _ForeignArray(Protocol):  # pyright: ignore[reportUnusedClass]  # promotion.pyi uses it
    """Another library's array that NumPy can convert: NumPy's, PyTorch's (both declare
    ``__array_priority__``), not an ``Array``, whose dtype the promotion overloads read."""

    def __array__(self) -> object: ...
    @property
    def __array_priority__(self) -> float: ...


class _SupportsDLPack(Protocol):
    """An object that exports DLPack (``__dlpack__``)."""

    def __dlpack__(self) -> object: ...


class _SupportsArrayNamespace(Protocol):
    """An Array API array (``__array_namespace__``)."""

    def __array_namespace__(self) -> object: ...


class _NestedSequence(Protocol[_T_co]):
    """A sequence of ``_T_co``, or of such sequences, at any depth (``[[1, 2], [3, 4]]``).

    ``__contains__`` taking any object excludes ``str`` and ``bytes``.
    """

    def __len__(self, /) -> int: ...
    def __getitem__(self, index: int, /) -> _T_co | _NestedSequence[_T_co]: ...
    def __contains__(self, value: object, /) -> bool: ...
    def __iter__(self, /) -> Iterator[_T_co | _NestedSequence[_T_co]]: ...


class _SupportsDType(Protocol):
    """An object with a ``.dtype``: an array, JAX's ``jnp.float32``."""

    @property
    def dtype(self) -> object: ...


class _DTypeObject(Protocol):
    """A dtype object that describes itself: ``torch.float32``, a NumPy dtype."""

    @property
    def itemsize(self) -> int: ...
    @property
    def is_floating_point(self) -> bool: ...


if TYPE_CHECKING:
    _NumPyDTypeLike: TypeAlias = np.dtype[Any] | type[np.generic]
else:
    # NumPy is not imported at run time; these stand-ins keep the runtime
    # value of DTypeLike an ordinary union that typing.get_type_hints accepts.
    _NumPyDTypeLike = _DTypeObject | type

ArrayLike: TypeAlias = (
    Array[Any]
    | _SupportsArray
    | _SupportsDLPack
    | _SupportsArrayNamespace
    | bool
    | int
    | float
    | complex
    | _NestedSequence[Array[Any] | _SupportsArray | bool | int | float | complex]
)
"""Anything convertible to an array: arrays, ``__array__``/``__dlpack__`` objects, scalars,
nested sequences of those."""

DTypeLike: TypeAlias = (
    type[DType]
    | str
    | type[bool]
    | type[int]
    | type[float]
    | type[complex]
    | _NumPyDTypeLike
    | _DTypeObject
    | _SupportsDType
)
"""Anything convertible to a dtype: ``float32``, ``"float32"``, ``float``, ``np.float32``,
``np.dtype("f4")``, ``torch.float32``, ``jnp.float32``, an array."""

ShapeLike: TypeAlias = SupportsIndex | Sequence[SupportsIndex]
"""Anything convertible to a shape: ``3``, ``(2, 3)``, ``[2, 3]``."""

Shape: TypeAlias = tuple[int, ...]
"""A shape, as arrays report it: ``(2, 3)``."""

_Index: TypeAlias = SupportsIndex | slice | types.EllipsisType | Array[Any] | None
_Key: TypeAlias = _Index | tuple[_Index, ...]


class InferredArray(Array[_DT_co], Generic[_DT_co, _Alone_co]):
    """An array whose dtype the mypy plugin inferred where mypy alone sees ``Any``.

    Nobody writes it: the plugin gives it to values that mypy without the
    plugin types ``Any`` (an unannotated helper's result, ``jnp.int32(0)``,
    a jitted function's call, what is computed from them), so that they keep
    their dtype while being accepted wherever ``Any`` is (``time: int =
    jnp.int32(0)`` checks, as it did without the plugin).  Operators and
    methods on it promote as on ``Array`` and keep it inferred; JAX's
    functions give ``Array``, as their annotations do.

    The second argument is always ``Any`` (the plugin writes
    ``InferredArray[float32, Any]``): it makes the value hold an ``Any`` for
    mypy's overload resolution, which answers ``Any`` where an argument that
    is ``Any`` matches overloads of different results (matplotlib's
    ``cmap(row)``), as it does for mypy alone.
    """

    __slots__ = ()


if TYPE_CHECKING:
    # Inexact NumPy scalars whose dtype the mypy plugin inferred where NumPy's stubs say
    # ``Any`` (``np.sqrt(d)`` of a Python int is a ``float64``): nobody writes them; the plugin
    # makes each class fall back to ``Any``, so that, like ``InferredArray``, they are
    # accepted wherever ``Any`` is.  They keep NumPy's methods (``.astype(np.float32)``
    # stays inferred); arithmetic with Python numbers and NumPy scalars is ``Any``, as
    # it is to mypy alone (NumPy declares it with callable attributes, which no hook
    # sees), and with an array is the array's (the plugin's promotion).
    _Scalar: TypeAlias = "bool | int | float | complex | np.generic[Any]"

    class _InferredOps:
        def __add__(self, other: _Scalar, /) -> Any: ...
        def __radd__(self, other: _Scalar, /) -> Any: ...
        def __sub__(self, other: _Scalar, /) -> Any: ...
        def __rsub__(self, other: _Scalar, /) -> Any: ...
        def __mul__(self, other: _Scalar, /) -> Any: ...
        def __rmul__(self, other: _Scalar, /) -> Any: ...
        def __truediv__(self, other: _Scalar, /) -> Any: ...
        def __rtruediv__(self, other: _Scalar, /) -> Any: ...
        def __floordiv__(self, other: _Scalar, /) -> Any: ...
        def __rfloordiv__(self, other: _Scalar, /) -> Any: ...
        def __mod__(self, other: _Scalar, /) -> Any: ...
        def __rmod__(self, other: _Scalar, /) -> Any: ...
        def __pow__(self, other: _Scalar, /) -> Any: ...
        def __rpow__(self, other: _Scalar, /) -> Any: ...
        def __neg__(self) -> Any: ...
        def __pos__(self) -> Any: ...
        def __abs__(self) -> Any: ...

    # The operators above are not NumPy's: deliberately (see above).

    class InferredFloat16(_InferredOps, np.float16): ...  # type: ignore[misc]

    class InferredFloat32(_InferredOps, np.float32): ...  # type: ignore[misc]

    class InferredFloat64(_InferredOps, np.float64): ...  # type: ignore[misc]

    class InferredComplex64(_InferredOps, np.complex64): ...  # type: ignore[misc]

    class InferredComplex128(_InferredOps, np.complex128): ...  # type: ignore[misc]
