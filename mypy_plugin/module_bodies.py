"""The functions of the program's other modules, with their bodies, for call-site typing.

``loss(params, batch)`` in ``train.py``, defined unannotated in
``model.py``: mypy types the call ``Any``.  Call-site specialisation
(``mypy_plugin.inference``) checks a function's body again with the call's
argument types; this module finds the body of a function another module of
the program defines.

* When mypy parsed that module in this build, the body is in memory.
* When mypy read the module from its cache (a warm run), the cache holds its
  symbol table, not its bodies: the module's source is parsed again and its
  module-level functions analysed in the table mypy read
  (``mypy_internals.analysed_functions``), once per build.  A warm run answers
  as a cold one does.
* A module whose functions' bodies change must make its importers checked
  again, although its interface did not change: at parse, each module records
  a fingerprint of its functions' and methods' source in a symbol of its own
  table (``__typing_pkg_bodies__``, private), which mypy compares with the
  module's interface (as ``module_dtype_names`` does for dtype aliases).

Bounds, so that what a call depends on is what mypy's cache tracks: only
module-level functions and the methods of module-level classes (not a
static, class or property method, whose decorator the parse does not
analyse), only of a module the module being checked imports itself, and
from there only that module's own functions (a third module's function
called in the body stays ``Any``).  What a
specialised check of another module's body reports (its dtype errors, its
``reveal_type`` notes) is that module's own check's business: nothing is
reported.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Final

from mypy.nodes import (
    FUNC_NO_INFO,
    GDEF,
    Block,
    ClassDef,
    Decorator,
    FuncDef,
    Import,
    ImportAll,
    ImportBase,
    ImportFrom,
    MypyFile,
    Statement,
    SymbolTableNode,
    TypeInfo,
    Var,
)
from mypy.plugin import CheckerPluginInterface
from mypy.types import AnyType, TypeOfAny

from mypy_plugin import mypy_internals as internals
from mypy_plugin.program_facts import ModuleFacts, blocks
from mypy_plugin.program_types import is_program_module

__all__ = ["FINGERPRINT", "ModuleBodies", "record_fingerprint"]

FINGERPRINT: Final = "__typing_pkg_bodies__"
"""The symbol holding the fingerprint of a module's functions' and methods' source."""


def record_fingerprint(file: MypyFile) -> None:
    """Record in ``file``'s table a fingerprint of its functions' and methods' source (at
    parse: mypy writes it to the cache and compares it in the module's interface)."""
    try:
        with open(file.path, "rb") as source:
            lines = source.read().splitlines()
    except OSError:
        return
    digest = hashlib.sha256()
    for func in _module_functions(file.defs):
        digest.update(b"\n".join(lines[func.line - 1 : func.end_line or func.line]))
        digest.update(b"\0")
    var = Var(FINGERPRINT, AnyType(TypeOfAny.special_form))
    var.final_value = digest.hexdigest()[:16]
    file.names[FINGERPRINT] = SymbolTableNode(GDEF, var, module_public=False)


def _module_functions(body: list[Statement]) -> Iterator[FuncDef]:
    """The module's functions and its classes' methods, in its blocks too (``if``,
    ``try``), not nested ones."""
    for stmt in body:
        if isinstance(stmt, Decorator):
            yield stmt.func
        elif isinstance(stmt, FuncDef):
            yield stmt
        elif isinstance(stmt, ClassDef):
            yield from _module_functions(stmt.defs.body)
        else:
            for block in blocks(stmt):
                yield from _module_functions(block.body)


class ModuleBodies:
    """The bodies of other modules' functions, for one plugin (a build or a daemon)."""

    def __init__(self) -> None:
        self._parsed: dict[
            str, tuple[MypyFile, internals.ParsedModule, dict[str, tuple[FuncDef, ModuleFacts]]]
        ] = {}
        """Per module read from the cache: its tree, its source parsed again, and each
        function analysed so far with the facts of its code."""
        self._in_memory: dict[str, tuple[ModuleFacts, dict[int, Block]]] = {}
        """Per module whose tree has its bodies: its facts, and the body of each function."""
        self._owners: dict[int, ModuleFacts] = {}
        """The facts holding each function handed out, by the function's id."""
        self._imports: dict[str, tuple[MypyFile, frozenset[str]]] = {}

    def function(
        self, api: CheckerPluginInterface, defn: FuncDef, current: ModuleFacts
    ) -> FuncDef | None:
        """``defn``'s definition with its body, if it is a module-level function of another
        of the program's modules that the module checked (``current``) may follow."""
        info = None if defn.info is FUNC_NO_INFO else defn.info
        module, name = _defined_in(defn, info)
        tree = internals.module_named(api, module)
        if tree is None or tree is current.tree or not is_program_module(tree):
            return None
        node = (tree.names if info is None else info.names).get(name)
        target = (
            node.node.func
            if node is not None and isinstance(node.node, Decorator)
            else (None if node is None else node.node)
        )
        if target is not defn or defn.is_static or defn.is_class or defn.is_property:
            return None  # a nested function, a name bound again, a decorated method
        owner = self._owners.get(id(current.tree))
        if owner is not None and owner.tree.fullname != module:
            return None  # in another module's body: only that module's own functions
        checked = internals.module_checked(api)
        if owner is None and (checked is None or module not in self._imported(checked)):
            return None
        found = self._body(api, tree, defn, info)
        if found is None:
            return None
        body, facts = found
        self._owners[id(body)] = facts
        self._owners[id(facts.tree)] = facts
        return body

    def owner(self, defn: object) -> ModuleFacts | None:
        """The facts of the other module holding a function :meth:`function` gave."""
        return self._owners.get(id(defn))

    def _body(
        self, api: CheckerPluginInterface, tree: MypyFile, defn: FuncDef, info: TypeInfo | None
    ) -> tuple[FuncDef, ModuleFacts] | None:
        if defn.body.body:  # in memory: in the module's own SCC, or a daemon's
            return defn, self._in_memory_facts(tree, defn)
        entry = self._parsed.get(tree.fullname)
        if entry is None or entry[0] is not tree:
            entry = self._parsed[tree.fullname] = (tree, internals.ParsedModule(api, tree), {})
        key = defn.name if info is None else f"{info.name}.{defn.name}"
        found = entry[2].get(key)
        if found is None:
            body = entry[1].function(defn.name, info)
            if body is None:
                return None
            shell = MypyFile([body], [])  # the facts of this function's code
            shell._fullname = tree.fullname
            shell.path = tree.path
            found = entry[2][key] = (body, ModuleFacts(shell))
        return found

    def _in_memory_facts(self, tree: MypyFile, defn: FuncDef) -> ModuleFacts:
        found = self._in_memory.get(tree.fullname)
        if found is None or found[0].tree is not tree or found[1].get(id(defn)) is not defn.body:
            # a daemon merges a module's new tree into the old one: its bodies change
            facts = ModuleFacts(tree)
            bodies = {id(f): f.body for f in facts.functions.values() if isinstance(f, FuncDef)}
            found = self._in_memory[tree.fullname] = (facts, bodies)
        return found[0]

    def _imported(self, tree: MypyFile) -> frozenset[str]:
        """The modules ``tree`` imports itself (mypy's dependencies of it)."""
        found = self._imports.get(tree.fullname)
        if found is not None and found[0] is tree:
            return found[1]
        modules: set[str] = set()
        for imp in tree.imports:
            modules.update(_imported_by(tree, imp))
        result = frozenset(modules)
        self._imports[tree.fullname] = (tree, result)
        return result


def _defined_in(defn: FuncDef, info: TypeInfo | None) -> tuple[str, str]:
    """The module defining a module-level function or a method of a module-level class,
    and the function's name (``("", "")`` for anything else)."""
    if info is None:
        module, _, name = defn.fullname.rpartition(".")
        return module, name
    if info.fullname != f"{info.module_name}.{info.name}":
        return "", ""  # a nested class
    return info.module_name, defn.name


def _imported_by(tree: MypyFile, imp: ImportBase) -> Iterator[str]:
    if isinstance(imp, Import):
        for name, _ in imp.ids:
            yield name
    elif isinstance(imp, ImportFrom | ImportAll):
        base = internals.imported_module(tree, imp.id, imp.relative)
        if base is None:
            return
        yield base
        if isinstance(imp, ImportFrom):
            for name, _ in imp.names:
                yield f"{base}.{name}"
