"""jaxtyping's annotations: ``Float32[Array, "b n"]`` is ``Array[float32]``.

jaxtyping declares its dtype families, for type checkers, as aliases of
``typing.Annotated``: ``Float32[Array, "b n"]`` is ``jax.Array`` to mypy, and
the family written is gone once the name is resolved.  The plugin's hook on
``typing.Annotated`` reads the name as written: a family of
:data:`typing_pkg.api.jaxtyping_families.FAMILIES` imported from jaxtyping
(``from jaxtyping import Float32``, ``… import Float32 as F32``,
``import jaxtyping as jt`` then ``jt.Float32``) over an array of unknown dtype
gives the family's marker (``Array[float32]``, ``Array[floating]`` for
``Float``).  Any other ``Annotated`` — and a family without a marker
(``Shaped``, ``Real``, ``Key``), or over another class (a NumPy array) — is
mypy's own analysis.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Final

from mypy.nodes import ImportFrom, MypyFile, TypeInfo
from mypy.plugin import AnalyzeTypeContext
from mypy.types import AnyType, Instance, Type, get_proper_type

from mypy_plugin import mypy_internals as internals
from mypy_plugin import names

__all__ = ["ANNOTATED", "JaxtypingTypes"]

ANNOTATED: Final = ("typing.Annotated", "typing_extensions.Annotated")
"""The names ``Annotated`` is analysed under (mypy's ``ANNOTATED_TYPE_NAMES``)."""
_DTYPES_MODULE: Final = "typing_pkg.dtypes"


@cache
def _families() -> tuple[Mapping[str, str | None], str]:
    """jaxtyping's families and its module, imported at the first ``Annotated`` analysed: the
    table's package (``typing_pkg.api``) is not loaded by a run that analyses nothing."""
    from typing_pkg.api.jaxtyping_families import FAMILIES, MODULE

    return FAMILIES, MODULE


def _from_jaxtyping(module: str) -> bool:
    name = _families()[1]
    return module == name or module.startswith(name + ".")


class JaxtypingTypes:
    """The type-analysis hook of ``Annotated``, with each module's imported family names."""

    def __init__(self) -> None:
        self._imported: dict[str, tuple[MypyFile, dict[str, str]]] = {}
        """By module: the names it binds to jaxtyping's families (``F32`` → ``Float32``)."""

    def hook(self, fullname: str, ctx: AnalyzeTypeContext) -> Type:
        """Analyse ``Annotated[...]`` written through any name (``fullname``: its name)."""
        analysed = internals.annotated(ctx.api, ctx.type, fullname)
        family = self._family(ctx, ctx.type.name)
        marker = None if family is None else _families()[0][family]
        if marker is None:
            return analysed
        proper = get_proper_type(analysed)
        if (
            not isinstance(proper, Instance)
            or proper.type.fullname != names.ARRAY
            or len(proper.args) != 1
            or not isinstance(get_proper_type(proper.args[0]), AnyType)
        ):
            return analysed
        analysis = internals.analysis_of(ctx.api)
        found = (
            None
            if analysis is None
            else analysis[0].lookup_fully_qualified_or_none(f"{_DTYPES_MODULE}.{marker}")
        )
        if found is None or not isinstance(found.node, TypeInfo):
            return analysed  # pragma: no cover - typing_pkg.typing imports its markers
        return proper.copy_modified(args=[Instance(found.node, [])])

    def _family(self, ctx: AnalyzeTypeContext, written: str) -> str | None:
        """The jaxtyping family the name written refers to, if it is one."""
        prefix, _, last = written.rpartition(".")
        if prefix:
            if last not in _families()[0]:
                return None
            analysis = internals.analysis_of(ctx.api)
            node = (
                None
                if analysis is None
                else analysis[0].lookup_qualified(prefix, ctx.context, suppress_errors=True)
            )
            module = None if node is None else node.node
            return (
                last if isinstance(module, MypyFile) and _from_jaxtyping(module.fullname) else None
            )
        tree = internals.module_analysed(ctx.api)
        if tree is None:
            return None
        known = self._imported.get(tree.fullname)
        if known is None or known[0] is not tree:
            known = (tree, _imported_families(tree))
            self._imported[tree.fullname] = known
        return known[1].get(written)


def _imported_families(tree: MypyFile) -> dict[str, str]:
    """The names a module's ``from jaxtyping import …`` statements bind to families."""
    found: dict[str, str] = {}
    for statement in tree.imports:
        if isinstance(statement, ImportFrom) and _from_jaxtyping(statement.id):
            for name, alias in statement.names:
                if name in _families()[0]:
                    found[alias or name] = name
    return found
