"""Rebinding without noise: a variable bound again to an array of another dtype.

mypy fixes an unannotated variable's type at its first assignment, so that
``x = jnp.zeros(3)`` then ``x = x.astype(jnp.bfloat16)`` would be an
"Incompatible types in assignment" that the variable's type never was a
problem for.  The plugin finds, per scope, the assignments that rebind a name
already bound (an unannotated parameter, or an earlier assignment).  A name
the user annotated (a variable or a parameter), and ``global`` and
``nonlocal`` ones, are never rebound: an annotation is never weakened, so
``a: Array[int8]`` then ``a += b`` with an ``int16`` ``b`` is reported, as
JAX would rebind ``a`` to ``int16``.  When the plugin types
such an assignment's value with another dtype than the variable's declared
one, it answers the declared type with its dtypes unknown (``Array[Any]``),
which the assignment accepts, and widens the variable's declared type the
same way (a side effect on the ``Var``, the one this design needs): every
later assignment then narrows it precisely, and inside a loop, which mypy
checks again, the rebinding itself is precise from the second pass on.  The
dtype of the variable after the rebinding statement is unknown until the
next assignment, never wrong.  With ``allow_redefinition_new`` mypy handles
rebinding itself and the plugin leaves it alone.

Why the plugin's own handling is the default (measured on
``tests/corpus/realistic`` with ``check_untyped_defs``, mypy 2.4,
``tools/corpus_coverage.py``): with it, 409 of the 511 array-valued sites
get their correct dtype (80.0%, none wrong, no new error); with mypy's
``allow_redefinition_new`` and ``local_partial_types`` instead (the plugin
leaving rebinding alone), 383 (75.0%, none wrong, no new error): 27 sites
lose their dtype (revealed ``Array[Any]``, ``Any`` or a union with one of
them), one gains it.  The time is the same within the noise (cold, with the plugin:
7.8 s and 8.0 s of CPU, medians of four interleaved runs).
``allow_redefinition_new`` also needs ``local_partial_types``, which changes
how mypy infers empty collections in a user's configuration.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet
from functools import partial

from mypy.nodes import (
    Context,
    MemberExpr,
    NameExpr,
    TypeInfo,
    Var,
)
from mypy.plugin import CheckerPluginInterface
from mypy.subtypes import is_subtype
from mypy.types import (
    AnyType,
    Instance,
    TupleType,
    Type,
    TypeOfAny,
    get_proper_type,
)

from mypy_plugin import mypy_internals as internals
from mypy_plugin.program_facts import (
    ModuleFacts,
    declare_any,
    in_place_on_declared,
)
from mypy_plugin.program_types import (
    as_mypy_any,
    dtype_conflict,
    erase_dtypes,
    redefinition_allowed,
)
from mypy_plugin.types import (
    is_inferred,
)

__all__ = ["Rebinding"]


class Rebinding:
    """The assignments that rebind a name, for one plugin (one build or daemon).

    ``facts``: the facts of the module being checked (``Inference.facts``);
    ``narrowed``: the parameters (``Var`` ids) the active specialised checks
    narrowed, which a rebinding leaves to mypy.
    """

    def __init__(
        self,
        facts: Callable[[CheckerPluginInterface], ModuleFacts | None],
        narrowed: AbstractSet[int],
        inferred_array: Callable[[], TypeInfo | None],
    ) -> None:
        self.facts = facts
        self._narrowed = narrowed
        self._inferred_array = inferred_array
        self._unbound: dict[int, internals.Frames] = {}
        """Variables (``Var`` ids) first bound inside a block: the enclosing frames their
        bindings narrow too (``_define_one``)."""

    def rebinding(
        self,
        api: CheckerPluginInterface,
        context: Context,
        result: Type,
        *,
        any_to_mypy: bool = False,
    ) -> Type:
        """Adjust a value the plugin typed when it binds a rebound variable (see above).

        ``any_to_mypy``: the value is ``Any`` to mypy alone (a pytree ``jax.tree.map``
        returns): a variable it defines is declared ``Any``, as mypy alone declares it.
        """
        if not internals.checking(api) or redefinition_allowed(api.options):
            return result
        facts = self.facts(api)
        if facts is None:
            return result
        attribute = facts.attribute_definitions.get(id(context))
        if attribute is not None and not is_inferred(result):
            if any_to_mypy:
                return self._define_attribute(api, attribute, result)
            return self._define_attribute_erased(api, attribute, result)
        found = facts.bindings.get(id(context))
        if found is None or found.value is not context:
            return in_place_on_declared(api, context, result)
        if found.defines:
            one: Callable[[CheckerPluginInterface, NameExpr | None, Type], Type] = partial(
                self._define_one, as_any=any_to_mypy
            )
        else:
            one = self._rebind_one
        proper = get_proper_type(result)
        if len(found.names) == 1:
            return one(api, found.names[0], result)
        if isinstance(proper, TupleType) and len(proper.items) == len(found.names):
            new_items = [
                one(api, name, item) for name, item in zip(found.names, proper.items, strict=True)
            ]
            if all(a is b for a, b in zip(new_items, proper.items, strict=True)):
                return result
            return proper.copy_modified(items=new_items)
        if found.defines and isinstance(proper, Instance) and len(proper.args) == 1:
            # a, b = <list of arrays>: each name is declared the erased item, narrowed to it
            element = proper.args[0]
            erased = erase_dtypes(element)
            if erased is element:
                return result
            for name in found.names:
                self._define_one(api, name, element)
            return proper.copy_modified(args=[erased])
        return result

    def _define_one(
        self,
        api: CheckerPluginInterface,
        name: NameExpr | None,
        value: Type,
        as_any: bool = False,
    ) -> Type:
        """The first binding of a rebound variable: declared without dtypes, narrowed to them.

        The variable's declared (inferred) type becomes the value's with its
        dtypes unknown, and the binder narrows it to the value's own type, as
        if the variable had been annotated ``jax.Array``: every later
        assignment is accepted and narrows it precisely.  A first binding inside
        a block narrows the enclosing frames too, and each later binding again
        (``narrow_where_unbound``): after ``if w: key = …; key, sub = split(key)``
        ``key`` keeps its dtype.
        """
        if name is None or not isinstance(name.node, Var):
            return value
        if as_any or is_inferred(value):
            # Any to mypy alone (a helper's result, a pytree jax.tree.map builds): the variable
            # is declared Any as mypy alone declares it (any later value is accepted), and
            # narrowed to the value's dtypes.
            return declare_any(api, name, name.node, value)
        declared = _declare_erased(api, name, name.node, value)
        if declared is not value:
            frames = internals.narrow_where_unbound(api, name, value)
            if frames:
                self._unbound[id(name.node)] = frames
        return declared

    @staticmethod
    def _define_attribute(api: CheckerPluginInterface, target: MemberExpr, value: Type) -> Type:
        """An attribute bound again elsewhere, defined by a value ``Any`` to mypy alone.

        Declared ``Any``, as mypy alone declares it (flax-examples binds
        ``self.blocks`` to what an unannotated vmapped function returns, a
        ``Block``, or to an ``nnx.List`` of them), and narrowed to the value.
        """
        var = target.def_var
        return value if var is None else declare_any(api, target, var, value)

    @staticmethod
    def _define_attribute_erased(
        api: CheckerPluginInterface, target: MemberExpr, value: Type
    ) -> Type:
        """An attribute bound again elsewhere, defined by a value of known dtypes.

        Declared with its dtypes unknown, as mypy alone declares it (``jax.Array``),
        and narrowed to the value: another method may bind it to another dtype
        (``self.w = w.astype(jnp.float32)``), as ``_define_one`` lets a variable.
        """
        var = target.def_var
        return value if var is None else _declare_erased(api, target, var, value)

    def _rebind_one(self, api: CheckerPluginInterface, name: NameExpr | None, value: Type) -> Type:
        """A later binding: the value, or the type the assignment checks it against, widened."""
        if name is None or not isinstance(name.node, Var) or name.node.type is None:
            return value
        var = name.node
        own = var.type
        if own is None:
            return value
        if id(var) in self._narrowed and not is_subtype(value, own):
            # A parameter a specialised check narrowed (its own declaration accepts anything):
            # mypy reports the assignment (a report the specialised check drops) and keeps the
            # parameter's type; the binder gets the value's, as for the unspecialised function.
            internals.narrow(api, name, value)
            return value
        # The declared type as this check of the assignment read it (mypy reads the target
        # before the value, and may evaluate the value more than once): stable per pass.
        declared = internals.type_of(api, name) or own
        proper = get_proper_type(declared)
        if (
            isinstance(proper, AnyType)
            and proper.type_of_any == TypeOfAny.unannotated
            and not var.is_inferred
        ):
            # An unannotated parameter, rebound: mypy narrows an unannotated variable on
            # assignment but keeps a parameter's implicit Any; the design's side effect makes
            # the parameter narrow as the variables do, to what the plugin gives a value mypy
            # alone types Any (its dtypes, Any to all else: neural-tangents passes a
            # parameter rebound to jnp.moveaxis(…) where JAX declares a Sequence).
            var.is_inferred = True
            return as_mypy_any(api, value, self._inferred_array())
        if not dtype_conflict(declared, value):
            unbound = self._unbound.get(id(var))
            if unbound:
                internals.renarrow_unbound(api, name, value, unbound)
            return value
        widened = erase_dtypes(declared)
        var.type = erase_dtypes(own)  # the design's side effect (see the module docs)
        return widened


def _declare_erased(
    api: CheckerPluginInterface, target: NameExpr | MemberExpr, var: Var, value: Type
) -> Type:
    """Declare ``var`` (what ``target`` binds) as ``value`` without its dtypes, narrowed to
    ``value``; a variable declared elsewhere (a class attribute, a second pass) is left."""
    erased = erase_dtypes(value)
    if erased is value or not is_subtype(value, erased):
        return value
    if var.type is not None and not is_subtype(erased, var.type):
        return value
    var.type = erased  # the design's side effect (see the module docs)
    internals.narrow(api, target, value)
    return erased
