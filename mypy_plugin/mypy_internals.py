"""Everything the plugin needs of mypy beyond its plugin interface, in one module.

The rest of the plugin uses mypy's plugin interface only: ``mypy.plugin``
(the hooks' contexts and the ``*PluginInterface`` classes), the program and
its types (``mypy.nodes``, ``mypy.types``), ``mypy.options``,
``mypy.errorcodes``, and the operations on types that mypy's own bundled
plugins use (``mypy.subtypes``, ``mypy.typeops``, ``mypy.maptype``,
``mypy.typevars``, ``mypy.erasetype``, ``mypy.messages.format_type``).
``tests/packaging/test_layout.py`` fails when another module imports
anything else of mypy or reaches for one of the private names used here.

What follows reaches into mypy's type checker (``mypy.checker``,
``mypy.checkexpr``, its binder ``mypy.binder`` and ``mypy.literals``), its
error collector (``mypy.errors``), its semantic analyser (``mypy.semanal``,
``mypy.typeanal``, ``mypy.mro``) and a bundled plugin's hook
(``mypy.plugins.functools``).  Each function says why the plugin needs it.
A mypy upgrade that moves any of them breaks this module alone.  Every
function is checked on the oldest and the newest mypy the project supports
(``pyproject.toml``: 1.19.1 and 2.4.1 when written): CI's main job runs the
whole suite on the newest and its second job the plugin's tests on the oldest.

Outside the checker (``api`` not mypy's ``TypeChecker``: no other class
implements ``CheckerPluginInterface`` in any supported mypy), each function
answers as though nothing were known: ``None``, no change, ``False``.
"""

from __future__ import annotations

import copy
import io
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager, redirect_stderr, redirect_stdout
from typing import Final, TypeAlias

from mypy.binder import CurrentType
from mypy.checker import TypeChecker
from mypy.checkexpr import has_uninhabited_component as _has_uninhabited_component
from mypy.errorcodes import ErrorCode
from mypy.errors import (
    ErrorInfo,
    Errors,
    ErrorWatcher,
    IterationDependentErrors,
    IterationErrorWatcher,
)
from mypy.fastparse import parse as _parse
from mypy.literals import literal_hash
from mypy.mro import MroError, calculate_mro
from mypy.nodes import (
    ARG_POS,
    FUNC_NO_INFO,
    ClassDef,
    Context,
    Decorator,
    Expression,
    FuncDef,
    FuncItem,
    MypyFile,
    Statement,
    TempNode,
    TypeInfo,
    Var,
)
from mypy.plugin import (
    CheckerPluginInterface,
    MethodContext,
    SemanticAnalyzerPluginInterface,
    TypeAnalyzerPluginInterface,
)
from mypy.semanal import SemanticAnalyzer
from mypy.semanal_pass1 import SemanticAnalyzerPreAnalysis
from mypy.typeanal import TypeAnalyser
from mypy.typeops import type_object_type
from mypy.types import (
    AnyType,
    CallableType,
    FunctionLike,
    Instance,
    Overloaded,
    Type,
    TypeOfAny,
    TypeStrVisitor,
    UnboundType,
)
from mypy.util import correct_relative_import

__all__ = [
    "ParsedModule",
    "Place",
    "Reported",
    "Reveals",
    "analysis_of",
    "annotated",
    "call_quietly",
    "check_body",
    "checking",
    "class_object",
    "default_partial_call",
    "deferrals",
    "error_file",
    "has_uninhabited_component",
    "in_ignored_file",
    "module_analysed",
    "module_checked",
    "module_named",
    "named_type",
    "narrow",
    "operator",
    "pass_key",
    "past_innermost_filter",
    "promote",
    "rebase",
    "record_type",
    "report",
    "revealed_types",
    "signature_of",
    "target_key",
    "type_of",
    "withdraw_last",
    "withdraw_note",
]

Reported: TypeAlias = ErrorInfo
"""An error or note mypy recorded: held and handed back, never looked into elsewhere."""
Place: TypeAlias = tuple[int, int, int | None, int | None]
"""A place in the module: line, column, end line, end column."""
Reveals: TypeAlias = IterationDependentErrors
"""What the ``reveal_type`` calls of a specialised check revealed (``revealed_types``)."""

_AFTER_MYPY: Final = 1
"""The priority of the plugin's notes: sorted after mypy's own at the same place."""


def _checker(api: object) -> TypeChecker | None:
    return api if isinstance(api, TypeChecker) else None


def checking(api: object) -> bool:
    """Whether ``api`` is mypy's type checker (the functions below answer "nothing known"
    for anything else)."""
    return isinstance(api, TypeChecker)


# ---------------------------------------------------------------- the module being checked


def module_checked(api: CheckerPluginInterface) -> MypyFile | None:
    """The module being checked (the plugin reads the facts of its code)."""
    checker = _checker(api)
    return None if checker is None else checker.tree


def module_named(api: CheckerPluginInterface, name: str) -> MypyFile | None:
    """A module of the build by name (whether a class is the program's or a library's)."""
    checker = _checker(api)
    return None if checker is None else checker.modules.get(name)


class ParsedModule:
    """A module mypy read from its cache, its source parsed again: its module-level
    functions, each analysed on demand (:meth:`function`).

    mypy's cache keeps a module's symbol table, not its functions' bodies.
    A function's body is analysed in the module's table as mypy read it (as
    ``dmypy`` analyses a function again: ``SemanticAnalyzer.refresh_partial``),
    so that its names are the build's.  Nothing is reported; a source that no
    longer parses has no function, and one whose analysis fails (mypy raised)
    is left out: its calls stay ``Any``.
    """

    def __init__(self, api: CheckerPluginInterface, tree: MypyFile) -> None:
        self._tree = tree
        self._functions: dict[str, FuncDef] = {}
        self._analysed: dict[str, FuncDef | None] = {}
        self._analyzer: SemanticAnalyzer | None = None
        checker = _checker(api)
        if checker is None or not tree.path.endswith(".py"):
            return
        try:
            with open(tree.path, "rb") as file:
                source = file.read()
        except OSError:
            return
        options = copy.copy(checker.options)
        options.ignore_errors = False  # the parser drops the bodies of an ignored module
        options.preserve_asts = True
        self._options = options
        errors = Errors(options)
        parsed = _parse(source, tree.path, tree.fullname, errors, options)
        if errors.is_errors():
            return
        SemanticAnalyzerPreAnalysis().visit_file(parsed, tree.path, tree.fullname, options)
        self._functions = _defined_once(parsed.defs)
        classes = Counter(d.name for d in parsed.defs if isinstance(d, ClassDef))
        for defn in parsed.defs:
            if isinstance(defn, ClassDef) and classes[defn.name] == 1:
                for name, method in _defined_once(defn.defs.body).items():
                    self._functions[f"{defn.name}.{name}"] = method
        # Which submodules the module sees as attributes of their package (``pkg.sub.f``)
        # was settled by mypy's own analysis of it: every module of the build is visible.
        visible = {tree.fullname: set(checker.modules)}
        try:  # mypy 2's missing modules are a dict, mypy 1's a set (its compiled code checks)
            self._analyzer = SemanticAnalyzer(
                checker.modules, {}, set(), errors, checker.plugin, visible
            )
        except TypeError:
            self._analyzer = SemanticAnalyzer(
                checker.modules,
                set(),  # type: ignore[arg-type]
                set(),
                errors,
                checker.plugin,
                visible,
            )

    def function(self, name: str, info: TypeInfo | None = None) -> FuncDef | None:
        """The module-level function ``name``, or the method ``name`` of the module-level
        class ``info``, with its body analysed (``None``: none)."""
        key = name if info is None else f"{info.name}.{name}"
        if key in self._analysed:
            return self._analysed[key]
        func = self._functions.get(key)
        analyzer = self._analyzer
        if func is not None and analyzer is not None:
            analyzer.global_decls = [set()]
            analyzer.nonlocal_decls = [set()]
            analyzer.imports = set()
            if info is not None and info.defn.info is not info:
                info.defn.info = info  # a class read from the cache: its definition's link
            try:
                # mypy reports a crash of its analysis itself (an INTERNAL ERROR, then exit):
                # here it only means this function has no body to check
                with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
                    analyzer.refresh_partial(
                        func, [], True, file_node=self._tree, options=self._options,
                        active_type=info,
                    )  # fmt: skip
            except (Exception, SystemExit):
                func = None
        self._analysed[key] = func
        return func


def _defined_once(body: list[Statement]) -> dict[str, FuncDef]:
    """The functions of a module's or class's body by name, those of a name defined once
    (of a name defined twice, the table's is one of them)."""
    functions = [s.func if isinstance(s, Decorator) else s for s in body]
    named = Counter(f.name for f in functions if isinstance(f, FuncDef))
    return {f.name: f for f in functions if isinstance(f, FuncDef) and named[f.name] == 1}


def imported_module(file: MypyFile, module: str, relative: int) -> str | None:
    """The full name of the module ``from <dots><module> import …`` names in ``file``
    (``None`` past the top of its package)."""
    if not relative:
        return module
    base, ok = correct_relative_import(file.fullname, relative, module, file.is_package_init_file())
    return base if ok else None


def in_ignored_file(api: CheckerPluginInterface) -> bool:
    """Whether the module being checked is one whose errors mypy ignores (a library's,
    checked for its definitions only): the plugin leaves its calls to mypy."""
    checker = _checker(api)
    return checker is not None and checker.errors.file in checker.errors.ignored_files


def type_of(api: CheckerPluginInterface, expr: Expression) -> Type | None:
    """The type mypy already inferred for ``expr``, without inferring it again (``None``:
    not inferred yet).  ``get_expression_type`` would check it again, in the wrong context."""
    checker = _checker(api)
    return None if checker is None else checker.lookup_type_or_none(expr)


def record_type(api: CheckerPluginInterface, expr: Expression, typ: Type) -> None:
    """Replace the type mypy recorded for ``expr`` (read by the narrowing that follows)."""
    checker = _checker(api)
    if checker is not None:
        checker.store_type(expr, typ)


def signature_of(api: CheckerPluginInterface, defn: FuncItem) -> FunctionLike | None:
    """The signature of a function or lambda as mypy checks its body (``Any`` parameters
    of an unannotated one)."""
    checker = _checker(api)
    return None if checker is None else checker.function_type(defn)


def named_type(api: CheckerPluginInterface, fullname: str) -> Instance:
    """An instance of a builtin or imported class, its type arguments ``Any``.

    ``named_generic_type(name, [])`` would leave a generic class's arguments
    out (``builtins.tuple`` needs one).
    """
    checker = _checker(api)
    if checker is None:
        return api.named_generic_type(fullname, [])
    return checker.named_type(fullname)


def class_object(api: CheckerPluginInterface, info: TypeInfo) -> Type:
    """The type of the class object ``info`` (what ``isinstance``'s second argument has)."""
    return type_object_type(info, lambda name: named_type(api, name))


def narrow(api: CheckerPluginInterface, expr: Expression, typ: Type) -> None:
    """Narrow a name to ``typ`` from here on, as an assignment does (mypy's binder)."""
    checker = _checker(api)
    if checker is not None:
        checker.binder.put(expr, typ)


Frames: TypeAlias = tuple[object, ...]
"""Frames of mypy's binder, held by identity (``narrow_where_unbound``)."""


def narrow_where_unbound(api: CheckerPluginInterface, expr: Expression, typ: Type) -> Frames:
    """Narrow a name bound for the first time inside a block (an ``if``'s branch, a loop's
    body) to ``typ`` in the enclosing frames as well, where it is not bound at all.

    mypy's binder merges a block's frames into the enclosing one when the block ends; a
    name one path leaves unbound (``if w: key = …`` without an ``else``) falls back to its
    declared type there, which the rebinding design declares without dtypes.  The path
    that does not bind the name cannot read it, so the value any binding gives it is as
    good as another there: after the block the name has the type the block's bindings
    give it.  Returns the frames filled (for ``renarrow_unbound``); none outside a
    block, where the name is bound already, or outside the checker."""
    checker = _checker(api)
    key = literal_hash(expr)
    if checker is None or key is None:
        return ()
    outer = tuple(checker.binder.frames[1:-1])  # [0]: the binder's base; [-1]: the block's
    if not outer or any(key in frame.types for frame in outer):
        return ()
    for frame in outer:
        frame.types[key] = CurrentType(typ, True)
    return outer


def renarrow_unbound(
    api: CheckerPluginInterface, expr: Expression, typ: Type, frames: Frames
) -> None:
    """Give the frames ``narrow_where_unbound`` filled the type of a later binding of the
    same name (the last binding checked is the one the block leaves)."""
    checker = _checker(api)
    key = literal_hash(expr)
    if checker is None or key is None:
        return
    for frame in checker.binder.frames:
        if any(frame is filled for filled in frames) and key in frame.types:
            frame.types[key] = CurrentType(typ, True)


def has_uninhabited_component(typ: Type | None) -> bool:
    """Whether ``typ`` holds mypy's own placeholder guess (``Never`` in an unpacking's
    expected type, ``(x, *rest), aux = f()``): not a type the program declared."""
    return _has_uninhabited_component(typ)


# -------------------------------------------------------- operators and calls, as mypy types them


def operator(
    api: CheckerPluginInterface, method: str, left: Type, right: Type, context: Context
) -> Type | None:
    """``left.method(right)`` as mypy types an operator (its reflected form included)."""
    checker = _checker(api)
    if checker is None:
        return None
    found, _ = checker.expr_checker.check_op(method, left, TempNode(right), context, True)
    return found


def type_without_context(api: CheckerPluginInterface, expr: Expression) -> Type | None:
    """The type of ``expr`` inferred with no type context, reporting nothing.

    An argument is inferred in the context of its parameter: for an
    unannotated parameter (``Any``) a generic call loses what its own
    arguments fix (``np.zeros(3, np.uint8)`` is ``ndarray[..., Any]`` there,
    ``ndarray[..., dtype[uint8]]`` alone), which a name bound to it keeps.
    """
    checker = _checker(api)
    if checker is None:
        return None
    with checker.msg.filter_errors():
        return checker.expr_checker.accept(expr, None, allow_none_return=True)


def call_quietly(
    api: CheckerPluginInterface,
    callee: CallableType | Overloaded,
    args: list[Type],
    context: Context,
    name: str | None,
) -> Type:
    """The result of calling ``callee`` with positional arguments of these types, as mypy
    types it, reporting nothing (a transformation's call the program does not write)."""
    checker = _checker(api)
    if checker is None:
        return AnyType(TypeOfAny.special_form)
    nodes: list[Expression] = [TempNode(arg, context=context) for arg in args]
    # A context of its own: the call's is the value of an assignment the hooks may adjust.
    here = Context(context.line, context.column)
    with checker.msg.filter_errors():
        result, _ = checker.expr_checker.check_call(
            callee, nodes, [ARG_POS] * len(args), here, callable_name=name
        )
    return result


def default_partial_call() -> Callable[[MethodContext], Type] | None:
    """mypy's own hook for ``functools.partial.__call__`` (the plugin's runs it first)."""
    try:
        from mypy.plugins.functools import partial_call_callback
    except ImportError:  # pragma: no cover - every supported mypy has it
        return None
    return partial_call_callback


# ------------------------------------------------------------------ specialised checks


def pass_key(api: CheckerPluginInterface) -> tuple[object, int] | None:
    """What identifies one pass of mypy over the module (a deferred function's next pass,
    a daemon's next check are new ones): a memo of the pass's specialisations is its."""
    checker = _checker(api)
    return None if checker is None else (checker, checker.pass_num)


def target_key(api: CheckerPluginInterface) -> tuple[object, object] | None:
    """What identifies the top-level target being checked (mypy makes a new binder for each)."""
    checker = _checker(api)
    return None if checker is None else (checker, checker.binder)


def deferrals(api: CheckerPluginInterface) -> tuple[int, bool]:
    """How many functions mypy has deferred so far, and whether the current one is: a check
    during which either changed refers to a name not inferred yet."""
    checker = _checker(api)
    if checker is None:
        return (0, False)
    return (len(checker.deferred_nodes), checker.current_node_deferred)


def check_body(
    api: CheckerPluginInterface,
    defn: FuncItem,
    override: CallableType,
    local: Iterable[Var],
    codes: frozenset[str],
    then: Callable[[], None],
) -> tuple[list[Reported], Reveals]:
    """Check ``defn``'s body again with its signature ``override``; nothing is reported.

    Returns the errors of ``codes`` the check found and what its
    ``reveal_type`` calls revealed; ``then`` runs after the check, inside it.
    The checker's state the check changes is put back: the frames in which the
    ``local`` variables were first bound (``x = None`` in one branch makes it
    ``Optional`` from there: the function's own check must find them as it left
    them) and the expression cache.  mypy caches the types of a statement's
    expressions and empties the cache after each statement; the body is checked
    with the cache on (a long expression of unions takes exponential time
    without it), from empty, and the enclosing statement's entries are put back
    after: the body's own entries are of its specialised parameters and must
    not outlive the check.
    """
    checker = _checker(api)
    revealed = IterationDependentErrors()
    if checker is None:
        return [], revealed
    frames = checker.var_decl_frames
    saved_frames = [(var, frames.get(var)) for var in local]
    cache = checker.expr_checker.expr_cache
    outer = dict(cache)
    cache.clear()
    try:
        with ExitStack() as stack:
            info = defn.info if isinstance(defn, FuncDef) else FUNC_NO_INFO
            if info is not FUNC_NO_INFO:  # a method: checked in its class's scope
                stack.enter_context(checker.tscope.class_scope(info))
                stack.enter_context(checker.scope.push_class(info))
            watcher = stack.enter_context(
                IterationErrorWatcher(
                    checker.msg.errors,
                    revealed,
                    filter_errors=_filter_all,
                    save_filtered_errors=True,
                )
            )
            stack.enter_context(checker.tscope.function_scope(defn))
            checker.check_func_item(defn, type_override=override, name=defn.name)
            then()
            errors = [
                e for e in watcher.filtered_errors() if e.code is not None and e.code.code in codes
            ]
    finally:
        for var, found in saved_frames:
            if found is None:
                frames.pop(var, None)
            else:
                frames[var] = found
        cache.clear()
        cache.update(outer)
    return errors, revealed


def _filter_all(file: str, info: ErrorInfo) -> bool:
    """Filter every diagnostic of a specialised check; the plugin's are re-added after it."""
    return True


def revealed_types(
    reveals: Reveals,
) -> Iterable[tuple[Place, list[Type]]]:
    """Each ``reveal_type`` of a check (line, column, end line, end column) and its types."""
    return reveals.revealed_types.items()


# ------------------------------------------------------------------------- reporting


def error_file(api: CheckerPluginInterface) -> str:
    """The file mypy records the errors of the module being checked under."""
    checker = _checker(api)
    return "" if checker is None else checker.errors.file


def report(
    api: CheckerPluginInterface,
    errors: list[Reported],
    notes: Iterable[tuple[Place, Type]],
) -> list[Reported]:
    """Record ``errors`` and a ``Revealed type`` note for each ``(place, type)``, past any
    filter: what a specialised check found is a fact about the program, reported even when
    mypy asked for it while checking a call speculatively (an overload, a type argument),
    where it discards what is reported.  Returns the notes, sorted after mypy's own notes
    at the same place."""
    checker = _checker(api)
    if checker is None:
        return []
    collector = checker.msg.errors
    watchers = collector._watchers
    collector._watchers = []  # restored below
    made: list[Reported] = []
    try:
        checker.msg.add_errors(errors)
        if notes:
            installed = _one_reveal_notes.get(id(collector))
            if installed is None or installed.errors is not collector:
                installed = _one_reveal_notes[id(collector)] = _one_reveal_note(collector)
            if installed not in watchers:
                watchers.insert(0, installed)  # below every watcher mypy pushes
        for (line, column, end_line, end_column), typ in notes:
            _withdraw_reveals(collector.error_info_map.get(collector.file, []), line, column)
            shown = typ.accept(TypeStrVisitor(options=checker.options))
            info = collector.report(
                line,
                column,
                f'Revealed type is "{shown}"',
                severity="note",
                end_line=end_line,
                end_column=end_column,
            )
            info.priority = _AFTER_MYPY
            made.append(info)
    finally:
        collector._watchers = watchers
    return made


_REVEAL_NOTES: Final = ('Revealed type is "', "'reveal_type' always outputs 'Any'")
"""How mypy's notes of a ``reveal_type`` begin (the second: in an unchecked function)."""


def _is_reveal(info: ErrorInfo, line: int, column: int) -> bool:
    return (
        info.severity == "note"
        and (info.line, info.column) == (line, column)
        and info.message.startswith(_REVEAL_NOTES)
    )


def _one_reveal_note(errors: Errors) -> ErrorWatcher:
    """A watcher that drops mypy's own note of a ``reveal_type`` the plugin has answered.

    mypy may check a function's body after a call of it that the plugin typed
    (a function defined below its caller, an unchecked body): its note
    (``Any`` there) would then follow the plugin's.  Kept at the bottom of
    mypy's stack of watchers for the build, it keeps no state: a note is
    dropped while the plugin's own note at its place is in the file's list
    (mypy empties a file's list when it checks the file again).
    """

    def drop(file: str, info: ErrorInfo) -> bool:
        if info.severity != "note" or info.priority == _AFTER_MYPY:
            return False
        if not info.message.startswith(_REVEAL_NOTES):
            return False
        return any(
            other.priority == _AFTER_MYPY and _is_reveal(other, info.line, info.column)
            for other in errors.error_info_map.get(file, [])
        )

    return ErrorWatcher(errors, filter_errors=drop)


_one_reveal_notes: dict[int, ErrorWatcher] = {}
"""Each build's watcher (by the identity of mypy's ``Errors``: one per build)."""


def _withdraw_reveals(infos: list[ErrorInfo], line: int, column: int) -> None:
    """Remove the notes of the ``reveal_type`` at ``(line, column)`` recorded so far: the
    plugin's note, which holds what the calls of the function show, is its one note."""
    infos[:] = [info for info in infos if not _is_reveal(info, line, column)]


def withdraw_note(api: CheckerPluginInterface, file: str, note: Reported) -> None:
    """Remove a note ``report`` recorded for ``file``, if it is still there."""
    checker = _checker(api)
    if checker is None:
        return
    infos = checker.msg.errors.error_info_map.get(file, [])
    for index, other in enumerate(infos):
        if other is note:
            del infos[index]
            return


def withdraw_last(api: CheckerPluginInterface, context: Context, code: ErrorCode) -> None:
    """Withdraw the error with ``code`` mypy has just reported at ``context``, if it has:
    the last one recorded, in the innermost filter that kept it or in the file's list."""
    checker = _checker(api)
    if checker is None:
        return
    errors = checker.msg.errors
    kept = [w._filtered for w in reversed(errors._watchers) if w._filtered]
    for found in [*kept, errors.error_info_map.get(errors.file, [])]:
        last = found[-1] if found else None
        if last is None:
            continue
        if last.code == code and (last.line, last.column) == (context.line, context.column):
            found.pop()
            return


@contextmanager
def past_innermost_filter(api: CheckerPluginInterface, *, saving: bool = True) -> Iterator[None]:
    """Report past the innermost filter of errors, when it is a plain one that saves what
    it filters (mypy's ``check_op_reversible`` tries ``a.__add__(b)`` and then
    ``b.__radd__(a)`` under such filters and drops both when an operand is ``Any``), or
    any plain one (``saving=False``: the filter an overload item is matched under)."""
    checker = _checker(api)
    watchers = [] if checker is None else checker.msg.errors._watchers
    top = watchers[-1] if watchers else None
    if top is None or type(top) is not ErrorWatcher or (saving and top._filtered is None):
        yield
        return
    watchers.pop()
    try:
        yield
    finally:
        watchers.append(top)


# ---------------------------------------------------------------------- semantic analysis


def analysis_of(
    api: TypeAnalyzerPluginInterface,
) -> tuple[SemanticAnalyzerPluginInterface, bool, Statement | None] | None:
    """For a type being analysed: the semantic analyser, whether the type is the whole
    target of an alias being defined (``A = jax.Array``), and the statement analysed."""
    if not isinstance(api, TypeAnalyser) or not isinstance(api.api, SemanticAnalyzer):
        return None
    return api.api, api.defining_alias, api.api.statement


def annotated(api: TypeAnalyzerPluginInterface, typ: UnboundType, fullname: str) -> Type:
    """``Annotated[T, ...]`` as mypy analyses it (``T``): a type-analysis hook on
    ``typing.Annotated`` (jaxtyping's families are aliases of it) answers mypy's own
    analysis for what it does not change.  mypy calls hooks before its special forms."""
    if not isinstance(api, TypeAnalyser):
        return AnyType(TypeOfAny.special_form)  # pragma: no cover - mypy always passes one
    found = api.try_analyze_special_unbound_type(typ, fullname)
    return AnyType(TypeOfAny.from_error) if found is None else found


def module_analysed(api: TypeAnalyzerPluginInterface) -> MypyFile | None:
    """The module whose type is being analysed (to read its imports)."""
    if not isinstance(api, TypeAnalyser) or not isinstance(api.api, SemanticAnalyzer):
        return None
    return api.api.cur_mod_node


def rebase(info: TypeInfo, bases: list[Instance]) -> bool:
    """Give a class these bases and compute its MRO again; restore it if that fails."""
    old_bases, old_mro = info.bases, info.mro
    info.bases = bases
    info.mro = []
    try:
        calculate_mro(info)
    except MroError:
        info.bases, info.mro = old_bases, old_mro
        return False
    return True


def promote(info: TypeInfo, target: Instance) -> None:
    """Let instances of ``info`` stand where ``target`` is expected (mypy's promotions, as
    ``int`` to ``float``), once."""
    if not any(isinstance(p, Instance) and p.type is target.type for p in info._promote):
        info._promote = [*info._promote, target]
