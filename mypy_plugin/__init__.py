"""The mypy plugin: dtype-precise results for array operators.

Enable it in mypy's configuration and, if you like, pick the promotion rules
(``jax`` by default; see ``mypy_plugin.config`` for every form)::

    [mypy]
    plugins = mypy_plugin

    [typing_pkg]
    promotion = numpy

What it infers
--------------

For ``a OP b`` with ``+ - * / // % ** @ & | ^ << >>``, the comparisons, the
unary ``- + ~`` and ``abs()``, the reflected forms (``1 + x``, ``2.0 * x``,
``True & x``) and the in-place forms (``x += y``), where the operands are
``Array[...]``, Python ``bool``/``int``/``float``/``complex`` (weakly typed),
NumPy arrays ``ndarray[..., dtype[X]]`` or NumPy scalars, the result is
``Array[<dtype>]`` with exactly the dtype the active rule set gives
(``typing_pkg.rules``: the plugin holds no table of its own)::

    x: Array[float32]; i: Array[int8]
    reveal_type(x + i)        # Array[float32]
    reveal_type(i / 2)        # Array[float32] under "jax", Array[float64] under "numpy"
    reveal_type(x < 1)        # Array[bool_]

An operation the rules leave undefined is an error with code
``dtype-promotion`` (see ``mypy_plugin.errors``)::

    x8: Array[float8_e4m3fn]; h: Array[float16]
    x8 + h   # error: Unsupported operand dtypes for + ("Array[float8_e4m3fn]" and
             # "Array[float16]") under the "jax" rules: ...; cast one with .astype(...)

``x += y`` type-checks the way the library behaves: the rule set's in-place
result is what mypy compares with ``x``'s type.  Under the JAX rules the
name is rebound to the binary result (so ``x: Array[int8]; x += 1.5`` is an
incompatible assignment); under NumPy, PyTorch and the Array API the result
is cast back into ``x`` or the operation is refused (``dtype-promotion``).
mypy does not narrow ``x`` after an in-place operator: after
``x: Array[floating] = f32; x += f64`` under JAX, mypy compares the float64
result with the narrowed ``Array[float32]`` and reports it.

Also typed: ``promote_types(float32, int8)`` is ``type[float32]`` and
``result_type(x, 1.0)`` the marker class of the result; both follow their
``rules=`` argument, the run-time default (``"jax"``) when there is none,
which is what they compute at run time whatever the plugin's configuration.
A ``rules=`` that is not a literal naming a built-in rule set or the
configured one (a module the program names is not imported) gives the
unknown result, ``type[DType]``; a dtype string that is not one
(``promote_types("flaot32", x)``) is an error, as at run time.
``x.astype(int8)`` is ``Array[int8]``, also for a dtype name
(``x.astype("int8")``) and a NumPy type (``x.astype(np.int8)``).

Unions distribute on both sides: ``(a | b) + c`` and ``c + (a | b)`` give the
union of the results and an error for each undefined pair.

What degrades to ``Array[Any]``
-------------------------------

An operand of unknown dtype (``Any``, ``Array[Any]``, an unparameterised
``Array``, ``Array[DType]``, ``Array[T]`` for a type variable ``T``, a NumPy
array whose dtype is not spelled out) gives ``Array[Any]`` (``Array[bool_]``
for a comparison, ``x`` unchanged for an in-place operator) and never an
error.  A category (``Array[floating]``) stands for each dtype of the rule
set below it: the result is the one they all agree on, else the narrowest
category holding every result (``Array[floating]``), and an error only when
none of them has a defined result.

Known exceptions
----------------

* ``1 == x`` and ``1 != x``: ``int.__eq__`` accepts any object, so other
  checkers (pyright, and mypy without this plugin) type it ``bool``.  The
  plugin hooks ``int.__eq__`` and gives ``Array[bool_]``, as at run time.
* ``1 + (a | b)`` where the operation is undefined for some member of the
  union: mypy then falls back to the union's ``__radd__``, where no plugin
  hook runs, and the result is ``Array[Any]`` without an error (the
  error is reported when the operand is not a union).
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable
from functools import cached_property, partial
from typing import Any, Final, TypeVar

from mypy.nodes import (
    ARG_POS,
    CallExpr,
    Context,
    ListComprehension,
    MypyFile,
    TypeInfo,
)
from mypy.options import Options
from mypy.plugin import (
    AnalyzeTypeContext,
    AttributeContext,
    CheckerPluginInterface,
    ClassDefContext,
    FunctionContext,
    FunctionSigContext,
    MethodContext,
    MethodSigContext,
    Plugin,
    ReportConfigContext,
)
from mypy.types import (
    AnyType,
    CallableType,
    FunctionLike,
    Instance,
    Type,
    UnionType,
    get_proper_type,
)

from mypy_plugin import (
    dtype_names,
    hooks,
    inference,
    jax_api,
    jax_array,
    keyed_dicts,
    module_bodies,
    module_dtype_names,
    named_tuples,
    names,
    numpy_scalars,
    program_types,
    pytrees,
    transforms,
    types,
)
from mypy_plugin import mypy_internals as internals
from mypy_plugin.config import ConfigError, PluginConfig, fail, fingerprint
from mypy_plugin.jaxtyping_types import ANNOTATED, JaxtypingTypes
from mypy_plugin.program_types import has_unknown_array
from mypy_plugin.types import array_class, base_of
from typing_pkg import __version__ as _RELEASE
from typing_pkg.dtypes import WEAK_NAMES

__all__ = ["TypingPkgPlugin", "__version__", "plugin"]

__version__: str = _RELEASE
"""What mypy records of the plugin in its plugin snapshot (with the hash of this file).

A running ``dmypy`` compares the snapshot taken when it started with one
taken after building the plugin again from the current configuration
(``dmypy run``), and restarts when they differ: ``_snapshot_version`` makes
this differ when the configured rule set or its sources changed.
"""
_daemon_rules: str | None = None
"""The configuration key of the daemon's own build, in a ``dmypy`` process."""


def _snapshot_version(options: Options, key: str) -> str:
    """Return the version mypy's plugin snapshot should record for the configuration ``key``.

    A plain mypy run builds the plugin once: the release (the rule set is in
    each module's cache key instead, so the standard library's cache
    survives a change of rules).  The daemon builds it with
    ``fine_grained_incremental`` set and records the key; when ``dmypy run``
    builds it again with another key, the version carries it, and the
    daemon restarts with the new rules.
    """
    global _daemon_rules
    if options.fine_grained_incremental:
        _daemon_rules = key
        return _RELEASE
    if _daemon_rules is None or _daemon_rules == key:
        return _RELEASE
    return f"{_RELEASE}+rules.{key}"


_INDEPENDENT: Final = frozenset(
    {"builtins", "_typeshed", "typing_extensions", "numpy", "ml_dtypes"}
)
"""Modules that cannot depend on typing_pkg (besides the standard library)."""
_DICT_ITEM: Final = f"{keyed_dicts.DICT}.__getitem__"
_BUILTIN_WIDENED: Final = frozenset(
    m for m in names.BINARY_METHODS if m not in {"__eq__", "__ne__"}
)
"""Those whose parameter does not already accept any object."""


class TypingPkgPlugin(Plugin):
    """Dispatch mypy's hooks to the callbacks, bound to the configured rule set.

    The dispatcher itself is stateless: every ``get_*_hook`` answers from the
    name it is given (and the build's classes).  The state the design needs
    lives in the objects it binds: ``hooks.Env`` (memoised answers),
    ``jax_api.JaxApi`` (the function table, loaded on first use) and
    ``inference.Inference`` (see its documentation).
    """

    def __init__(self, options: Options) -> None:
        global __version__
        super().__init__(options)
        try:
            config = PluginConfig.from_file(options.config_file)
            rules = config.load_rules()
        except ConfigError as error:
            fail(str(error))
        self._config_data: Final = {
            "promotion": config.promotion,
            "rules": fingerprint(rules, config.promotion),
        }
        key = hashlib.sha256(f"{config.promotion}\0{self._config_data['rules']}".encode())
        __version__ = _snapshot_version(options, key.hexdigest()[:16])
        self._jax: Final = jax_api.JaxApi(rules, self.lookup_fully_qualified)
        self._dtype_names: Final = dtype_names.DTypeNames(
            lambda: self._jax.scalar_types if self._jax.enabled else {},
            lambda name: types.marker_type(self.lookup_fully_qualified, name),
            lambda api, var: self._inference.value_of(api, var),
            lambda *args: jax_api.scalar_value(self._jax_hooks, *args),
            lambda var: module_dtype_names.value_of(self._modules_of_build, var),
        )
        env = hooks.Env(rules, self.lookup_fully_qualified, self._dtype_names)
        self._env: Final = env
        self._jax_hooks: Final = jax_api.Hooks(
            self._jax, self._make_array, self._inferred, self._dtype_names
        )
        self._inference: Final = inference.Inference(
            self._make_array,
            self._canonical,
            self._dtype_names,
            lambda: self._class(names.INFERRED_ARRAY),
        )
        self._transforms: Final = transforms.Transforms(
            self.lookup_fully_qualified, self._inference
        )
        self._weak_mro: Final = partial(jax_array.customize_weak_mro, dict(rules.weak_dtypes))
        binary, reflected = names.BINARY_METHODS, names.REFLECTED_METHODS
        inplace, unary = names.INPLACE_METHODS, names.UNARY_METHODS
        rebound = self._rebound
        self._array_hooks: Final[dict[str, Callable[[MethodContext], Type]]] = {
            **{m: rebound(partial(hooks.binary_callback, env, op)) for m, op in binary.items()},
            **{
                m: rebound(partial(hooks.reflected_callback, env, op))
                for m, op in reflected.items()
            },
            **{m: rebound(partial(hooks.binary_callback, env, op)) for m, op in inplace.items()},
            **{m: rebound(partial(hooks.unary_callback, env, op)) for m, op in unary.items()},
            names.ASTYPE: rebound(
                partial(jax_api.array_method_callback, self._jax_hooks, "jax.Array.astype")
                if self._jax.enabled
                else partial(hooks.astype_callback, env)
            ),
        }
        self._array_signatures: Final[dict[str, Callable[[MethodSigContext], FunctionLike]]] = {
            **dict.fromkeys(
                (*binary, *inplace), partial(hooks.array_signature_callback, env, False)
            ),
            **dict.fromkeys(reflected, partial(hooks.array_signature_callback, env, True)),
        }
        self._scalar_hooks: Final[dict[str, Callable[[MethodContext], Type]]] = {
            m: rebound(partial(hooks.scalar_callback, env, op))
            for m, op in names.BINARY_METHODS.items()
        }
        self._function_hooks: Final[dict[str, Callable[[FunctionContext], Type]]] = {
            names.BUILTIN_ABS: rebound(partial(hooks.abs_callback, env)),
            names.BUILTIN_ISINSTANCE: partial(
                jax_array.isinstance_callback, lambda: self._class(names.ARRAY)
            ),
            **dict.fromkeys(names.PROMOTE_TYPES, partial(hooks.promote_types_callback, env)),
            **dict.fromkeys(names.RESULT_TYPE, partial(hooks.result_type_callback, env)),
        }
        self._dtype_attribute: Final = partial(hooks.dtype_attribute_callback, env)
        self._index: Final = self._inferred_where_any(partial(hooks.index_callback, env))
        self._inferred_rows: Final = partial(jax_api.iter_callback, self._jax_hooks, self._inferred)
        self._numpy_hooks: Final[dict[str, Callable[[MethodContext], Type]]] = {
            **{
                m: rebound(partial(hooks.numpy_callback, env, op, False))
                for m, op in names.BINARY_METHODS.items()
            },
            **{
                m: rebound(partial(hooks.numpy_callback, env, op, True))
                for m, op in names.REFLECTED_METHODS.items()
            },
        }
        self._call: Final = rebound(
            partial(_call_callback, self._inference, self._transforms, self._dtype_names)
        )
        self._inferred_scalar_method: Final = self._rebound(
            partial(numpy_scalars.inferred_result, self._class), any_to_mypy=True
        )
        self._user_names: Final[dict[str, tuple[MypyFile, bool]]] = {}
        """``_is_user_name``'s answers, with the module that decided (a new build: asked again)."""
        jaxtyping = JaxtypingTypes()
        self._type_hooks: Final[dict[str, Callable[[AnalyzeTypeContext], Type]]] = {
            names.JAX_ARRAY: jax_array.analyze_jax_array,
            **{name: partial(jaxtyping.hook, name) for name in ANNOTATED},
        }
        self._modules_of_build: dict[str, MypyFile] = {}
        """The build's modules, by name (``set_modules``; filled as mypy loads them)."""
        self._promoted: tuple[int, ...] = ()
        """The classes ``_promote_foreign_arrays`` last promoted, by identity."""
        self._promoted_files: tuple[MypyFile | None, ...] = ()
        """Their modules' files once every class was found: unchanged, nothing to do."""
        self._partial_call: Final = partial(
            self._transforms.partial_callback, internals.default_partial_call()
        )
        self._found_functions: Final = _Lookups(self, self._function_hook_in_program)
        self._found_methods: Final = _Lookups(self, self._method_hook_in_program)
        self._found_attributes: Final = _Lookups(
            self, lambda name: _in_program(self._attribute_hook(name), _default_attribute)
        )
        self._found_method_signatures: Final = _Lookups(
            self, lambda name: _in_program(self._method_signature_hook(name), _default_signature)
        )
        self._found_function_signatures: Final = _Lookups(
            self,
            lambda name: _in_program(self._function_signature_hook(name), _default_signature),
        )
        # mypy asks the lookups below for each name of each type, call, attribute and
        # signature it meets (some 300,000 times for `import jax`): answered by the
        # dictionaries' own `get`/`__getitem__`, a name asked before costs no Python call.
        # The call hooks join them once NumPy's arrays are promoted (`_promote_foreign_arrays`).
        vars(self).update(
            get_type_analyze_hook=self._type_hooks.get,
            get_attribute_hook=self._found_attributes.__getitem__,
            get_method_signature_hook=self._found_method_signatures.__getitem__,
            get_function_signature_hook=self._found_function_signatures.__getitem__,
        )
        self._jax_signatures: Final[dict[int, tuple[FunctionLike, FunctionLike]]] = {}
        """``_jax_signature``'s answers, by the identity of the signature (kept with them)."""
        self._provisional = False
        """Set by a lookup that answered from a build not yet analysed (see ``_Lookups``)."""

    def _rebound(
        self, callback: Callable[[_Ctx], Type], *, any_to_mypy: bool = False
    ) -> Callable[[_Ctx], Type]:
        """``callback``, its result made inferred where mypy alone says ``Any`` (see
        ``_inferred``) and adjusted where it rebinds a name (``rebinding.Rebinding``).

        ``any_to_mypy``: the call is ``Any`` to mypy alone whatever its declared type
        says (``jnp.int32(0)``: JAX declares ``jnp.int32`` ``Any``).
        """
        adjust = self._inference.rebinding
        made_function = self._inference.made_function
        inferred_array = partial(self._class, names.INFERRED_ARRAY)

        def rebound(ctx: _Ctx) -> Type:
            result = callback(ctx)
            if result is made_function(ctx.context):
                return result  # make_step(…)(state, key): the nested function (see inference)
            as_any = any_to_mypy or _any_to_mypy(ctx)

            def keep(typ: Type) -> Type:  # what mypy alone calls Any
                return program_types.as_mypy_any(ctx.api, typ, inferred_array())

            if as_any:
                result = program_types.fits_context(ctx.api, keep(result))
            else:  # a tuple JAX's types declare with Any items (a scan's stacked outputs)
                result = types.where_any(ctx.default_return_type, result, keep)
            return adjust(ctx.api, ctx.context, result, any_to_mypy=as_any)

        return rebound

    def _inferred_where_any(self, callback: Callable[[_Ctx], Type]) -> Callable[[_Ctx], Type]:
        """``callback``, its arrays inferred where mypy alone says ``Any`` (``_inferred``): an
        index's or an iterator's, whose every part is the plugin's."""
        made_inferred = self._inferred

        def where_any(ctx: _Ctx) -> Type:
            result = callback(ctx)
            return made_inferred(result) if _any_to_mypy(ctx) else result

        return where_any

    def _inferred(self, typ: Type) -> Type:
        """``typ`` with its arrays ``InferredArray``: the dtypes of what mypy alone calls ``Any``.

        A value that mypy without the plugin types ``Any`` is accepted
        everywhere: where the plugin knows its dtype, it must stay so (no
        error the plugin adds is then about anything but dtypes).
        """
        info = self._class(names.INFERRED_ARRAY)
        if info is None:
            return typ  # typing_pkg's stubs of an older version
        return types.inferred(typ, info)

    def _class(self, fullname: str) -> TypeInfo | None:
        """The class ``fullname`` names in the build, ``None`` when its module is not in it
        (or not analysed yet: a lookup that asked is ``_provisional``)."""
        found = types.class_named(self.lookup_fully_qualified, fullname)
        if found is None:
            self._provisional = True
        return found

    def set_modules(self, modules: dict[str, MypyFile]) -> None:
        """A new build (a daemon's next one): what the hooks' lookups found is asked again."""
        super().set_modules(modules)
        self._modules_of_build = modules
        self._jax.new_build()
        self._jax_signatures.clear()
        for name in _CALL_LOOKUPS:
            vars(self).pop(name, None)  # NumPy's arrays to promote again before each call hook
        for found in (
            self._found_functions,
            self._found_methods,
            self._found_attributes,
            self._found_method_signatures,
            self._found_function_signatures,
        ):
            found.clear()

    def report_config_data(self, ctx: ReportConfigContext) -> Any:
        """Make the rule set's name and sources part of mypy's cache key.

        The standard library and typing_pkg's own dependencies (NumPy,
        ml_dtypes) cannot see an array of ours: their cache stays valid when
        the rules change.
        """
        top = ctx.id.partition(".")[0]
        if top in _INDEPENDENT or (top in sys.stdlib_module_names and "typeshed" in ctx.path):
            return None
        return self._config_data

    def _is_array_class(self, fullname: str) -> bool:
        """Return whether ``fullname`` names ``Array`` or a subclass of it (``array_class``).

        mypy gives the plugin the build's modules before it asks for any hook;
        a name whose module is not in the build is looked up as ``None``.
        """
        if fullname == names.ARRAY:
            return True
        if fullname.startswith("builtins."):
            return False
        info = self._class(fullname)
        return info is not None and array_class(info) is not None

    def _is_jax_array_class(self, fullname: str) -> bool:
        """Whether ``fullname`` is ``jax.Array``, our ``Array`` or a subclass of either."""
        if fullname in (names.ARRAY, names.JAX_ARRAY):
            return True
        if fullname.startswith("builtins."):
            return False
        info = self._class(fullname)
        return info is not None and (
            array_class(info) is not None or base_of(info, names.JAX_ARRAY) is not None
        )

    def _make_array(
        self, dtype: str | None, api: CheckerPluginInterface, context: Context
    ) -> Instance | None:
        """Return ``Array[dtype]`` (``Array[Any]`` for ``None``), ``None`` without typing_pkg."""
        array = self._class(names.ARRAY)
        return None if array is None else self._env.array_at(array, dtype, api, context)

    def _canonical(self, dtype: str) -> str:
        """The dtype a JAX array has for ``dtype`` under the rules (x64 off: 64 → 32 bits)."""
        return self._jax.env.canonical(dtype) if self._jax.enabled else dtype

    def _is_user_name(self, fullname: str) -> bool:
        """Whether ``fullname`` is a local name or one defined in a module of the program.

        Only the program's functions are specialised at their calls (a
        library's function keeps its own signature, and other plugins' hooks on
        library functions stay theirs).
        """
        if "." not in fullname:
            return True
        modules = self._modules_of_build
        known = self._user_names.get(fullname)
        if known is not None and modules.get(known[0].fullname) is known[0]:
            return known[1]
        module = fullname
        while "." in module:
            module = module.rpartition(".")[0]
            tree = modules.get(module)
            if tree is not None:
                answer = program_types.is_program_module(tree)
                self._user_names[fullname] = (tree, answer)
                return answer
        self._provisional = True  # no module of the build: not loaded yet
        return False

    # ---------------------------------------------------------- semantic analysis

    def get_additional_deps(self, file: MypyFile) -> list[tuple[int, str, int]]:
        """Called as mypy parses a module (not when it reads it from its cache): the module
        records its dtype aliases (``module_dtype_names``), and JAX's modules depend on
        ``typing_pkg.typing``."""
        top = file.fullname.partition(".")[0]
        if top not in _INDEPENDENT and top not in sys.stdlib_module_names and top != "jax":
            module_dtype_names.record(file, self._jnp_dtype_names)
            module_bodies.record_fingerprint(file)
        return jax_array.additional_deps(file)

    @cached_property
    def _jnp_dtype_names(self) -> frozenset[str]:
        return frozenset(self._jax.scalar_types if self._jax.enabled else ())

    def get_type_analyze_hook(self, fullname: str) -> Callable[[AnalyzeTypeContext], Type] | None:
        return self._type_hooks.get(fullname)  # replaced by the dictionary's get (__init__)

    def get_customize_class_mro_hook(
        self, fullname: str
    ) -> Callable[[ClassDefContext], None] | None:
        if fullname == names.DTYPE_META:
            return jax_array.customize_dtype_meta
        if fullname == names.INFERRED_ARRAY or fullname in numpy_scalars.INFERRED_CLASSES:
            return jax_array.customize_inferred_array
        if fullname in _WEAK_MARKERS:
            return self._weak_mro
        return jax_array.jax_array_subclass

    # ------------------------------------------------------------ type checking

    # Each hook answers mypy's default inside an installed package (JAX's, NumPy's, Flax's):
    # mypy checks their code on a cold run without showing its errors, and what callers see
    # of it is its declarations; the types inferred inside it stay mypy's own, as without the
    # plugin.  (A cold run of `import jax` asked the hooks some 36,000 times, in JAX's code.)

    def get_method_signature_hook(
        self, fullname: str
    ) -> Callable[[MethodSigContext], FunctionLike] | None:
        return self._found_method_signatures[fullname]  # replaced by its __getitem__ (__init__)

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        self._promote_foreign_arrays()
        return self._found_methods[fullname]

    def _method_hook_in_program(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        found = self._method_hook(fullname)
        if found is self._partial_call:
            return found  # it runs mypy's own hook first, needed everywhere
        return _in_program(found, _default_return)

    def get_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        return self._found_attributes[fullname]  # replaced by its __getitem__ (__init__)

    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        self._promote_foreign_arrays()
        return self._found_functions[fullname]

    def _function_hook_in_program(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        found = self._function_hook(fullname)
        if fullname in names.TRANSFORMS or fullname == transforms.JIT_DECORATOR:
            return found  # a library's jitted functions: their declarations are what callers see
        return _in_program(found, _default_return)

    def get_function_signature_hook(
        self, fullname: str
    ) -> Callable[[FunctionSigContext], FunctionLike] | None:
        return self._found_function_signatures[fullname]  # replaced by its __getitem__ (__init__)

    def _method_signature_hook(
        self, fullname: str
    ) -> Callable[[MethodSigContext], FunctionLike] | None:
        owner, _, method = fullname.rpartition(".")
        if owner in names.BUILTIN_SCALARS:
            return hooks.scalar_signature_callback if method in _BUILTIN_WIDENED else None
        if method in self._array_signatures and self._is_array_class(owner):
            return self._array_signatures[method]
        if method == "__getitem__" and self._is_array_class(owner):
            return hooks.index_signature_callback
        if owner.startswith("jax."):
            return self._jax_signature
        return None

    def _method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        owner, _, method = fullname.rpartition(".")
        if owner in names.BUILTIN_SCALARS:
            if fullname == "builtins.float.__rpow__":
                return hooks.float_rpow_callback
            return self._scalar_hooks.get(method)
        if method in self._array_hooks and self._is_array_class(owner):
            return self._array_hooks[method]
        if owner == names.NUMPY_NDARRAY:
            return self._numpy_hooks.get(method)
        if owner in numpy_scalars.INFERRED_CLASSES:
            if numpy_scalars.is_operator(method):
                return self._rebound(
                    partial(numpy_scalars.operator_callback, self._class, method),
                    any_to_mypy=True,
                )
            return self._inferred_scalar_method
        if fullname in names.UFUNC_CALLS:
            return self._rebound(
                partial(numpy_scalars.ufunc_callback, self._class), any_to_mypy=True
            )
        if fullname == names.FUNCTOOLS_PARTIAL + ".__call__":
            return self._partial_call
        if self._jax.enabled:
            if fullname == names.BINARY_UFUNC_CALL:
                return self._rebound(partial(jax_api.ufunc_callback, self._jax_hooks))
            if fullname in names.CUSTOM_DERIVATIVE_CALLS:
                return self._rebound(partial(jax_api.custom_derivative_callback, self._jax_hooks))
            if owner in names.INDEX_UPDATE_REF and self._jax.array_method(f"at.{method}"):
                return self._rebound(partial(jax_api.at_callback, self._jax_hooks, method))
        if method == "__getitem__" and self._is_array_class(owner):
            return self._index
        if fullname == _DICT_ITEM:
            return self._rebound(self._dict_item)
        if method == "__iter__" and self._is_jax_array_class(owner):
            return self._inferred_rows
        if self._jax.enabled and not method.startswith("__"):
            full = self._jax.array_method(method)
            if full is not None and self._is_jax_array_class(owner):
                return self._rebound(partial(jax_api.array_method_callback, self._jax_hooks, full))
        if method == "_replace" and self._is_user_name(owner):
            return named_tuples.replaced  # a NamedTuple's copy
        if self._is_user_name(owner):
            return self._call
        if owner.startswith("jax."):
            return self._jax_result
        return None

    def _dict_item(self, ctx: MethodContext) -> Type:
        """``d["key"]``: the key's type on a dict whose keys the program wrote (``pytrees``)."""
        return pytrees.item_type(ctx, self._inference.facts(ctx.api))

    def _jax_result(self, ctx: FunctionContext | MethodContext) -> Type:
        """A call of JAX's API the table does not type: its ``jax.Array`` results are ours."""
        array = self._class(names.ARRAY)
        if array is None:
            return ctx.default_return_type
        return types.ours(ctx.default_return_type, array)

    def _attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        owner, _, attribute = fullname.rpartition(".")
        if attribute == "dtype" and self._is_array_class(owner):
            return self._dtype_attribute
        if owner in names.FINFO_CLASSES and attribute in numpy_scalars.FINFO_LIMITS:
            return self._finfo_limit
        if self._is_user_name(owner) and not attribute.startswith("_"):
            info = self._class(owner)
            fields = None if info is None else named_tuples.fields_of(info)
            if fields is not None and attribute in fields:
                return named_tuples.field_item
        if self._jax.enabled and not attribute.startswith("__"):
            full = self._jax.array_method(attribute)
            if full is not None and self._is_jax_array_class(owner):
                return partial(jax_api.attribute_callback, self._jax_hooks, full)
        jitted = self._transforms.jitted_method(fullname)
        if jitted is None:
            self._provisional = True  # its decorator not typed yet
        elif jitted:
            return transforms.replace_jitted_method
        return None

    def _transformed_call(self, ctx: FunctionContext) -> Type:
        """A call of ``jax.vmap(f)``, ``jax.jit(f)``, …: ``f``'s body specialised when it is
        the program's (``_call``); the JAX API table's rule when ``f`` is a function it lists
        (``jax.vmap(jnp.sin)(x)``: mapping, tracing or checkpointing keeps the dtypes)."""
        context = ctx.context
        if self._jax.enabled and isinstance(context, CallExpr):
            callee = get_proper_type(transforms.declared_callee(ctx.api, context.callee))
            definition = callee.definition if isinstance(callee, CallableType) else None
            if definition is not None and self._jax.function(definition.fullname) is not None:
                hook = self._found_functions[definition.fullname]  # the function's own hook
                if hook is not None:
                    return hook(ctx)
        return self._call(ctx)

    def _finfo_limit(self, ctx: AttributeContext) -> Type:
        """``jnp.finfo(x.dtype).min``: an inferred NumPy scalar of ``x``'s dtype
        (``numpy_scalars.finfo_callback``); a variable it defines and that is bound again is
        declared ``Any`` (``rebinding``), so that a later NumPy scalar is accepted."""
        result = numpy_scalars.finfo_callback(self._class, self._dtype_names.read, ctx)
        if result is ctx.default_attr_type:
            return result
        return self._inference.rebinding(ctx.api, ctx.context, result, any_to_mypy=True)

    def _promote_foreign_arrays(self) -> None:
        """Make NumPy's ``ndarray`` promote to ``Array[Any]`` in this build.

        Asked before each call's hook: the classes exist once their modules
        are loaded, and a daemon's next build has new ones
        (``jax_array.promote_foreign_arrays``).
        """
        # Asked tens of thousands of times a run: while the classes' modules are the same
        # files as when they were both found and promoted, nothing is looked up.
        modules = self._modules_of_build
        ours_file, theirs_file = modules.get(_ARRAY_MODULE), modules.get(_NDARRAY_MODULE)
        done = self._promoted_files
        if done and ours_file is done[0] and theirs_file is done[1]:
            self._answer_calls_from_lookups()
            return
        ours = _class_in(ours_file, _ARRAY_NAME)
        if ours is None:
            return  # typing_pkg.typing not analysed yet (NumPy's own code is checked first)
        theirs = _class_in(theirs_file, _NDARRAY_NAME)
        key = (id(ours), id(theirs))
        if key != self._promoted:
            jax_array.promote_foreign_arrays(ours, [] if theirs is None else [theirs])
            self._promoted = key
        if theirs is not None:
            self._promoted_files = (ours_file, theirs_file)  # both found: nothing more to do
            self._answer_calls_from_lookups()

    def _answer_calls_from_lookups(self) -> None:
        """Until the next build (``set_modules``), the call hooks are their lookups alone."""
        vars(self).update(
            get_function_hook=self._found_functions.__getitem__,
            get_method_hook=self._found_methods.__getitem__,
        )

    def _function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        found = self._function_hooks.get(fullname)
        if found is not None:
            return found
        if fullname.startswith("jax."):
            transform = names.TRANSFORMS.get(fullname)
            if transform is not None:
                return partial(self._transforms.transform_callback, transform)
            if fullname in names.TREE_MAP:
                return self._rebound(self._transforms.tree_map_callback)
            if fullname in names.TREE_LEAVES:
                return self._rebound(self._transforms.tree_leaves_callback)
            control = names.CONTROL_FLOW.get(fullname)
            if control is not None:
                return self._rebound(partial(self._transforms.control_callback, control))
            if self._jax.enabled:
                full = self._jax.function(fullname)
                if full is not None:
                    return self._rebound(
                        _arguments_alone(partial(jax_api.function_callback, self._jax_hooks, full))
                    )
                if not self._jax.settled(fullname):
                    self._provisional = True  # a function of the table's name not analysed yet
            return self._jax_result
        if fullname == transforms.JIT_DECORATOR:
            return self._transforms.decorator_callback
        if fullname.startswith(transforms.TRACED):
            return self._transformed_call  # what jax.vmap(f), jax.jit(f), … return
        if fullname.startswith(transforms.GRADIENT):
            return self._call  # what jax.grad(f), … return: see transforms
        if self._is_user_name(fullname):
            return self._call
        return None

    def _function_signature_hook(
        self, fullname: str
    ) -> Callable[[FunctionSigContext], FunctionLike] | None:
        if fullname == names.BUILTIN_ABS:
            return hooks.abs_signature_callback
        if fullname.startswith("jax."):
            return self._jax_signature
        return None

    def _jax_signature(self, ctx: FunctionSigContext | MethodSigContext) -> FunctionLike:
        """A function of JAX's API takes JAX's own class too where it declares ``jax.Array``.

        Its ``jax.Array`` parameters read as ours (``Array[Any]``) when ``typing_pkg``
        is analysed first; a value of JAX's own class (a subclass of it, a value
        narrowed by a library's ``isinstance``) is accepted as well: the parameter
        is ``Array[Any] | JAX's class``, and nothing is refused that JAX accepts.
        """
        signature = ctx.default_signature
        known = self._jax_signatures.get(id(signature))
        if known is not None and known[0] is signature:
            return known[1]  # a function's declared signature: the same object at each call
        found = self._theirs_for_ours(signature)
        if found is None:
            return signature  # JAX's class not in the build (yet)
        self._jax_signatures[id(signature)] = (signature, found)  # kept alive: the id stays its
        return found

    def _theirs_for_ours(self, signature: FunctionLike) -> FunctionLike | None:
        """``_jax_signature``, worked out (``None`` without JAX's class)."""
        if not isinstance(signature, CallableType) or not any(
            types.mentions(t, names.ARRAY) for t in signature.arg_types
        ):
            return signature
        jax_class = self._class(names.JAX_ARRAY)
        if jax_class is None:
            return None
        theirs = Instance(jax_class, [])
        arg_types = [
            types.replace_instances(
                t,
                lambda inst: (
                    UnionType.make_union([inst, theirs])
                    if inst.type.fullname == names.ARRAY
                    and isinstance(get_proper_type(inst.args[0]) if inst.args else None, AnyType)
                    else None
                ),
            )
            for t in signature.arg_types
        ]
        return signature.copy_modified(arg_types=arg_types)


_Ctx = TypeVar("_Ctx", FunctionContext, MethodContext)
_AnyCtx = TypeVar(
    "_AnyCtx",
    FunctionContext,
    MethodContext,
    FunctionSigContext,
    MethodSigContext,
    AttributeContext,
)
_R = TypeVar("_R")
_H = TypeVar("_H")


class _Lookups(dict[str, _H | None]):
    """A hook lookup's answers by name, each found once for the build.

    mypy asks a hook for each call, method, attribute and signature it
    checks, JAX's own code included, and the answer for a name is the same
    until the next build, unless the lookup met a class or function not
    analysed yet (a module later in the build): such an answer is the
    plugin's ``_provisional``, found again at the next asking.  The plugin
    answers mypy with this dictionary's own ``__getitem__``: a name asked
    before costs no Python call.
    """

    __slots__ = ("_find", "_plugin")

    def __init__(self, plugin: TypingPkgPlugin, find: Callable[[str], _H | None]) -> None:
        super().__init__()
        self._plugin = plugin
        self._find = find

    def __missing__(self, fullname: str) -> _H | None:
        plugin = self._plugin
        plugin._provisional = False
        answer = self._find(fullname)
        if not plugin._provisional:
            self[fullname] = answer
        return answer


_CALL_LOOKUPS: Final = ("get_function_hook", "get_method_hook")
"""The hooks answered by their lookups once NumPy's arrays are promoted in the build."""


_INSTALLED_FILES: Final[dict[str, bool]] = {}
"""``program_types.is_installed`` by path, for ``_in_library``."""


def _in_library(api: object) -> bool:
    """Whether the module mypy is checking is an installed package's."""
    path = getattr(api, "path", None)  # the checker's; a plugin's API does not declare it
    if not isinstance(path, str):
        return False
    found = _INSTALLED_FILES.get(path)
    if found is None:
        found = _INSTALLED_FILES[path] = program_types.is_installed(path)
    return found


def _in_program(
    callback: Callable[[_AnyCtx], _R] | None, default: Callable[[_AnyCtx], _R]
) -> Callable[[_AnyCtx], _R] | None:
    """``callback``, answering ``default(ctx)`` inside an installed package."""
    if callback is None:
        return None

    def hook(ctx: _AnyCtx) -> _R:
        return default(ctx) if _in_library(ctx.api) else callback(ctx)

    return hook


def _default_return(ctx: FunctionContext | MethodContext) -> Type:
    return ctx.default_return_type


def _default_signature(ctx: FunctionSigContext | MethodSigContext) -> FunctionLike:
    return ctx.default_signature


def _default_attribute(ctx: AttributeContext) -> Type:
    return ctx.default_attr_type


_ARRAY_MODULE, _, _ARRAY_NAME = names.ARRAY.rpartition(".")
_NDARRAY_MODULE, _, _NDARRAY_NAME = names.NUMPY_NDARRAY.rpartition(".")
"""Our ``Array``, and NumPy's ``ndarray`` that promotes to ``Array[Any]``."""


def _class_in(module: MypyFile | None, name: str) -> TypeInfo | None:
    """The class ``name`` defines at the top of ``module`` (two dictionary lookups)."""
    symbol = module.names.get(name) if module is not None else None
    node = symbol.node if symbol is not None else None
    return node if isinstance(node, TypeInfo) else None


_WEAK_MARKERS: Final = frozenset(f"{names.DTYPES_MODULE}.{m}" for m in WEAK_NAMES)


def _any_to_mypy(ctx: FunctionContext | MethodContext) -> bool:
    """Whether mypy alone types the call ``Any``: so it declares it (or the plugin made its
    declared type inferred), the receiver is, or the callee is a jitted function.

    An operator or method of an ``InferredArray`` (``Any`` to mypy alone) is
    ``Any`` to mypy alone too.
    """
    default = get_proper_type(ctx.default_return_type)
    if isinstance(default, AnyType) or types.is_inferred(default):
        return True
    if isinstance(ctx, MethodContext) and types.is_inferred(ctx.type):
        return True
    # A call of a jitted function: JAX's JitWrapped.__call__ returns Any.
    context, api = ctx.context, ctx.api
    if not isinstance(context, CallExpr) or not internals.checking(api):
        return False
    return transforms.is_jitted(transforms.declared_callee(api, context.callee))


def _call_callback(
    inference_: inference.Inference,
    transforms_: transforms.Transforms,
    dtype_names_: dtype_names.DTypeNames,
    ctx: _Ctx,
) -> Type:
    """Type a call of a function of the program by its body (``inference``)."""
    context = ctx.context
    api = ctx.api
    if internals.in_ignored_file(api):
        return ctx.default_return_type  # a library's module, checked for its definitions only
    gradient = transforms_.gradient_call(ctx)
    if gradient is not None:
        return gradient
    if not isinstance(context, CallExpr) or not internals.checking(api):
        return ctx.default_return_type
    if isinstance(ctx, FunctionContext):
        built = named_tuples.constructed(ctx)
        if built is not None:
            return built  # State(w=x): a NamedTuple of the program, its items narrowed
    found = inference_.callee_function(api, transforms.declared_callee(api, context.callee))
    if found is None:
        return _transformed_lambda_call(inference_, ctx, context)
    defn, callee = found
    arg_types = dtype_names_.read_all(api, _without_context(api, ctx), ctx.args)
    traced = transforms.traced(callee)
    if traced:
        arg_types = [[inference_.traced_type(api, t) for t in actuals] for actuals in arg_types]
    result = inference_.specialise_call(
        api,
        callee,
        defn,
        arg_types,
        [list(kinds) for kinds in ctx.arg_kinds],
        context,
        ctx.default_return_type,
        [list(exprs) for exprs in ctx.args],
    )
    if callee.is_type_obj():
        return ctx.default_return_type  # Cls(…): its __init__ checked with these arguments
    # A jitted call is Any to mypy alone: only its arrays are the plugin's to give (a
    # program's State kept would refuse brax's ``self._state = None`` then ``= reset(…)``).
    return program_types.arrays_only(result) if traced else result


def _transformed_lambda_call(inference_: inference.Inference, ctx: _Ctx, context: CallExpr) -> Type:
    """``jax.vmap(lambda a: a * 2)(x)``: the lambda's body checked with the arguments (a
    mapped argument's slice has its dtype; a traced NumPy array is a JAX array)."""
    api = ctx.api
    lam = transforms.transformed_lambda(context.callee)
    callee = get_proper_type(transforms.declared_callee(api, context.callee))
    if lam is None or not isinstance(callee, CallableType):
        return ctx.default_return_type
    if any(len(kinds) != 1 or kinds[0] != ARG_POS for kinds in ctx.arg_kinds):
        return ctx.default_return_type
    args = [actuals[0] for actuals in _without_context(api, ctx)]
    traced = transforms.traced(callee)
    if traced:
        args = [inference_.traced_type(api, a) for a in args]
    result = inference_.specialise_function(api, lam, callee, args)
    if result is None:
        return ctx.default_return_type
    # Its arrays only: a class of the program it returns (blackjax's vmapped state, a
    # NamedTuple) would be refused later where an ``ArrayTree`` is declared, as no ``Any`` is.
    return program_types.arrays_only(result)


def _arguments_alone(
    callback: Callable[[FunctionContext], Type],
) -> Callable[[FunctionContext], Type]:
    """``callback`` given the arguments' types as they are alone (``_without_context``):
    ``jnp.asarray(np.zeros(3, np.uint8))`` is ``uint8`` inline as through a name."""

    def alone(ctx: FunctionContext) -> Type:
        arg_types = _without_context(ctx.api, ctx)
        if any(
            a is not b
            for new, old in zip(arg_types, ctx.arg_types, strict=True)
            for a, b in zip(new, old, strict=True)
        ):
            ctx = ctx._replace(arg_types=arg_types)
        return callback(ctx)

    return alone


def _without_context(api: CheckerPluginInterface, ctx: _Ctx) -> list[list[Type]]:
    """The arguments' types, a call among them typed as it is alone (not in the context of an
    unannotated parameter, ``Any``, where a generic call loses its dtype): the same answer
    whether the call is written inline or bound to a name first."""
    found: list[list[Type]] = []
    for actuals, exprs in zip(ctx.arg_types, ctx.args, strict=True):
        row: list[Type] = []
        for typ, expr in zip(actuals, exprs, strict=True):
            if isinstance(expr, CallExpr) and has_unknown_array(typ, any_counts=False):
                alone = internals.type_without_context(api, expr)
                if alone is not None and not has_unknown_array(alone, any_counts=False):
                    typ = alone
            elif isinstance(expr, ListComprehension) and _any_items(typ):
                # jnp.array([1 / n for _ in range(n)]): list[Any] in the context of ``Any``,
                # list[float] alone
                alone = internals.type_without_context(api, expr)
                if alone is not None and not _any_items(alone):
                    typ = alone
            row.append(typ)
        found.append(row)
    return found


def _any_items(typ: Type) -> bool:
    """Whether ``typ`` is a collection whose items are ``Any`` (``list[Any]``)."""
    proper = get_proper_type(typ)
    return isinstance(proper, Instance) and any(
        isinstance(get_proper_type(arg), AnyType) for arg in proper.args
    )


def plugin(version: str) -> type[Plugin]:
    """Return the plugin class (every supported mypy version uses the same one)."""
    return TypingPkgPlugin
