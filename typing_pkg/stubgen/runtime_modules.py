"""The run-time modules (``typing.py``, ``dtypes.py``, ``promotion.py``) as stubs."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final

from typing_pkg.dtypes import ABSTRACT, BY_NAME, EXTENDED_NAMES
from typing_pkg.rules import DEFAULT
from typing_pkg.stubgen.encoding import OVERLOADED, PROMOTE, SCALARS, Encoding
from typing_pkg.stubgen.operators import (
    NUMPY_UNKNOWN,
    OTHER_PROTOCOL,
    Names,
    Sig,
    array_helpers,
    defs,
    family_protocol,
    operator_methods,
    rule_methods,
    self_protocol,
)
from typing_pkg.stubgen.paths import SOURCE

_DTYPES_IMPORTS: Final = (
    "from typing import Any, ClassVar, Literal, Never, Protocol, TypeAlias, TypeVar, overload, "
    "type_check_only\n"
    "MYPY: bool\n"
)
_CATEGORY_PROTOCOL: Final = '''
@type_check_only
class Category(Protocol):
    """A category of dtypes (``floating``), not a dtype: its ``abstract`` is true.

    ``Any``, ``DType`` and a type variable bounded by a marker class are
    categories too: their dtype is unknown.
    """
    abstract: ClassVar[Literal[True]]
'''


# ------------------------------------------------------------------ runtime modules as stubs

_PLACEHOLDER: Final = "__typing_pkg_stubgen_placeholder__"


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _ellipsis() -> ast.Expr:
    return ast.Expr(ast.Constant(...))


def _placeholder() -> ast.Expr:
    return ast.Expr(ast.Name(_PLACEHOLDER))


def _literal_or_ellipsis(default: ast.expr) -> ast.expr:
    return default if isinstance(default, ast.Constant) else ast.Constant(...)


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.stmt:
    first = node.body[0] if node.body else None
    doc = (
        [first]
        if isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
        else []
    )
    node.body = [*doc, _ellipsis()]
    # A default other than a literal is ``...``: the stub need not import its name.
    arguments = node.args
    arguments.defaults = [_literal_or_ellipsis(default) for default in arguments.defaults]
    arguments.kw_defaults = [
        None if default is None else _literal_or_ellipsis(default)
        for default in arguments.kw_defaults
    ]
    return node


def stub_body(
    body: Iterable[ast.stmt], edit: Callable[[ast.ClassDef], None] | None = None
) -> list[ast.stmt]:
    """Return the statements a stub keeps of ``body``: declarations, no run-time code."""
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if isinstance(node, ast.If):
            test = node.test
            if _is_name(test, "TYPE_CHECKING"):
                out += stub_body(node.body, edit)
            elif isinstance(test, ast.UnaryOp) and _is_name(test.operand, "TYPE_CHECKING"):
                out += stub_body(node.orelse, edit)
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out.append(_signature(node))
        elif isinstance(node, ast.ClassDef):
            node.body = stub_body(node.body) or [_ellipsis()]
            if edit is not None:
                edit(node)
            out.append(node)
        elif isinstance(node, ast.AnnAssign):
            bare_final = _is_name(node.annotation, "Final")
            if (
                node.value is not None
                and not bare_final
                and "TypeAlias" not in ast.dump(node.annotation)
            ):
                node.value = ast.Constant(...)
            out.append(node)
        elif isinstance(node, ast.Assign | ast.Import | ast.ImportFrom) or (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        ):
            out.append(node)
    return out


def _stub_source(path: Path, edit: Callable[[ast.ClassDef], None], extra: str) -> str:
    """Return the stub of the module at ``path``: its declarations, edited, then ``extra``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    tree.body = stub_body(tree.body, edit)
    text = ast.unparse(ast.fix_missing_locations(tree))
    return text + "\n\n" + extra


def _indent(text: str, prefix: str = "    ") -> str:
    return "".join(prefix + line if line.strip() else line for line in text.splitlines(True))


def typing_stub(enc: Encoding) -> str:
    """Return ``typing.pyi``: ``typing.py``'s declarations, the operators for mypy and pyright.

    The plain signatures come first, under ``if MYPY:`` (mypy's name for
    "mypy is checking"), the overloads after them, unconditionally: mypy
    keeps the first declaration of a name, the run-time module's plain
    signatures, which the plugin refines; pyright takes the last declaration
    and pyrefly follows the class body's flow, so both read the overloads.
    """
    plain: list[ast.stmt] = []
    overloads = operator_methods(enc)

    def edit(cls: ast.ClassDef) -> None:
        if cls.name != "Array":
            return
        kept: list[ast.stmt] = []
        for node in cls.body:
            if isinstance(node, ast.FunctionDef) and node.name in OVERLOADED:
                if not plain:
                    kept.append(_placeholder())
                plain.append(node)
                continue
            kept.append(node)
        cls.body = kept

    imports = (
        "from typing import Any, ClassVar, Literal, Never, Protocol, Self, TypeVar, overload, "
        "type_check_only\n"
        "import numpy as np\n"
        "from typing_pkg.dtypes import Category, DType, NumpyUnknown, "
        f"{', '.join(_markers(enc))}\n"
        "MYPY: bool\n"
    )
    stub = _stub_source(SOURCE / "typing.py", edit, array_helpers(enc))
    plain_source = "\n".join(ast.unparse(node) for node in plain) + "\n"
    operators = "    if MYPY:\n" + _indent(plain_source, "        ") + overloads
    return imports + stub.replace(f"    {_PLACEHOLDER}\n", operators)


def _markers(enc: Encoding) -> list[str]:
    """Return the markers the overloads name: the rule set's, and every one ``astype`` takes."""
    named = {*enc.types, *(n for n, m in BY_NAME.items() if not m.abstract)} - EXTENDED_NAMES
    return sorted(named)


def dtypes_stub(enc: Encoding, names: Names) -> str:
    abstract = {m.name for m in ABSTRACT}
    inserts: dict[str, str] = {}

    def edit(cls: ast.ClassDef) -> None:
        if cls.name == "DTypeMeta":
            # The markers' own ``abstract`` (a literal) must be what checkers read.
            cls.body = [
                n
                for n in cls.body
                if not (isinstance(n, ast.AnnAssign) and "abstract" in _targets(n))
            ]
            return
        if BY_NAME.get(cls.name) is None:
            return
        # The category flag replaces the run-time assignments (declared once on DType).
        body = [
            n
            for n in cls.body
            if not (isinstance(n, ast.Assign | ast.AnnAssign) and "abstract" in _targets(n))
            and not (cls.name != "DType" and isinstance(n, ast.Assign))
        ]
        key = f"__tp_marker_{cls.name}__"
        body.append(ast.Expr(ast.Name(key)))
        if cls.name in abstract:
            flag = "    abstract: ClassVar[Literal[True]]\n"
        else:
            flag = "    abstract: ClassVar[Literal[False]]  # type: ignore[assignment]\n"
        # For pyright only: mypy (``MYPY`` is true for it) skips them (the plugin types operators).
        # A key array takes no operator the rules answer (``key_operator``): no methods.
        inserts[f"    {key}\n"] = (
            flag
            if cls.name in EXTENDED_NAMES
            else flag + "    if not MYPY:\n" + _indent(rule_methods(enc, names, cls.name))
        )
        cls.body = body

    stub = _stub_source(SOURCE / "dtypes.py", edit, "")
    for key, text in inserts.items():
        stub = stub.replace(key, text)
    numpy_unknown = (
        f"NumpyUnknown: TypeAlias = {NUMPY_UNKNOWN}\n"
        '"""A NumPy scalar type that names no marker: ``np.floating``, ``np.generic``."""\n'
    )
    helpers = f"{_CATEGORY_PROTOCOL}\n{numpy_unknown}{names.variables()}"
    return f"{_DTYPES_IMPORTS}{stub}\n{helpers}"


_PROMOTION_FUNCTIONS: Final = ("promote_types", "result_type")


def promotion_stub(enc: Encoding) -> str:
    """Return ``promotion.pyi``: the run-time functions for mypy, overloads for pyright.

    As in ``typing.pyi``, the plain signatures come first under ``if MYPY:``
    (the plugin types the calls), the overloads after them.
    """
    tree = ast.parse((SOURCE / "promotion.py").read_text(encoding="utf-8"))
    body = stub_body(tree.body)
    plain = [n for n in body if isinstance(n, ast.FunctionDef) and n.name in _PROMOTION_FUNCTIONS]
    body.insert(body.index(plain[0]), _placeholder())
    tree.body = [n for n in body if n not in plain]
    text = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    plain_source = "\n".join(ast.unparse(node) for node in plain) + "\n"
    family = enc.family_of[PROMOTE]
    imports = (
        "from typing import Any, Literal, TypeAlias, TypeVar, overload\n"
        "import numpy as np\n"
        "from typing_pkg.dtypes import Category, DType, "
        f"{', '.join(_markers(enc))}\n"
        f"from typing_pkg.typing import Array, DTypeLike, {family_protocol(family)}, "
        f"{OTHER_PROTOCOL}, "
        f"{self_protocol(enc, enc.result_type)}, _ComplexNotFloat, "
        "_DTypeObject, _FloatNotInt, _ForeignArray, _IntNotBool\n"
        "MYPY: bool\n"
    )
    functions = "if MYPY:\n" + _indent(plain_source) + _promotion_helpers(enc)
    for name, sigs in _promotion_sigs(enc).items():
        functions += defs(name, sigs, indent="", tail="")
    return imports + text.replace(f"{_PLACEHOLDER}\n", functions)


def _promotion_helpers(enc: Encoding) -> str:
    return (
        'Left = TypeVar("Left")\n'
        '"""The first dtype-like: a marker, a NumPy or Python scalar type, a NumPy dtype, an '
        'array, a scalar."""\n'
        'Result = TypeVar("Result", bound=DType)\n'
        '"""The promoted dtype, as the rule of the second (a marker or an array) gives it."""\n'
        "OtherDTypeLike: TypeAlias = str | type[bool] | type[int] | type[float] | type[complex] "
        "| np.dtype[Any] | type[np.generic] | _DTypeObject | _ForeignArray\n"
        '"""A dtype-like the stubs do not read: a name, a NumPy dtype or type, another '
        'library\'s dtype or array."""\n'
        "OtherOperand: TypeAlias = OtherDTypeLike | bool | int | float | complex | np.generic\n"
        '"""An operand of ``result_type`` the stubs do not read."""\n'
    )


def _promotion_sigs(enc: Encoding) -> dict[str, list[Sig]]:
    """Return the overloads of ``promote_types`` and ``result_type``.

    A dtype of unknown dtype (a category, ``Any``) on either side first gives
    ``type[DType]``.  Then the rule: the second argument, a marker or an
    array, matched through its rule method with the first, which may be a
    marker, a NumPy or Python scalar type, a NumPy dtype or an array (and for
    ``result_type`` a Python or NumPy scalar).  A Python scalar type (or
    value) second, after a NumPy one (``np.float64`` is a ``float``), is read
    by the first's rule.  Anything else the stubs do not read gives
    ``type[DType]``; two markers or arrays the rules do not promote match
    nothing: an error.  Another rule set (``rules="numpy"``) gives
    ``type[DType]``.  The stubs of another rule set (``stubs --rules numpy``)
    are precise for ``rules="numpy"`` alone: a call without ``rules`` uses the
    run-time default (``jax``), which they do not encode, and gives
    ``type[DType]``, never an error.
    """
    family = enc.family_of[PROMOTE]
    name = enc.rules.name
    precise = f'rules: Literal["{name}"]' + (" = ..." if name == DEFAULT else "")
    any_rules = "rules: str = ..."
    # The last items take what the others refuse: under the default rules, two dtypes
    # without a promotion, an error unless ``rules`` is given; under another rule set
    # a call without ``rules`` too, since the run-time default is not the stubs' rules.
    rest = "rules: str" if name == DEFAULT else any_rules
    unknown = "type[Category] | Array[Category]"

    def second(left: str, protocol: str = family_protocol(family)) -> str:
        rule = f"{protocol}[{left}, Result]"
        return f"type[{rule}] | Array[{rule}]"

    first = "type[Left] | Array[Left]"
    other = second("Left", OTHER_PROTOCOL)
    alone = f"{self_protocol(enc, enc.result_type)}[Result]"
    numpy = "type[np.generic] | np.dtype[Any]"
    python = [
        ("bool" if kind == "py_bool" else narrow, enc.rules.scalars[kind])
        for kind, _, narrow in SCALARS
        if enc.rules.scalars[kind] in enc.types
    ]
    promote: list[Sig] = [
        (f"a: {unknown}, b: DTypeLike, *, {any_rules}", "type[DType]"),
        (f"a: DTypeLike, b: {unknown}, *, {any_rules}", "type[DType]"),
        (f"a: {first}, b: {second('Left')}, *, {precise}", "type[Result]"),
        (f"a: type[Left] | np.dtype[Left], b: {other}, *, {precise}", "type[Result]"),
        (f"a: DTypeLike, b: {numpy}, *, {any_rules}", "type[DType]"),
        *[(f"a: {second(m)}, b: type[{t}], *, {precise}", "type[Result]") for t, m in python],
        (f"a: OtherDTypeLike, b: DTypeLike, *, {any_rules}", "type[DType]"),
        (f"a: DTypeLike, b: OtherDTypeLike, *, {any_rules}", "type[DType]"),
        (f"a: DTypeLike, b: DTypeLike, *, {rest}", "type[DType]"),
    ]
    numpy_operand = f"np.generic | {numpy} | np.ndarray[Any, Any]"
    result: list[Sig] = [
        (f"a: {unknown}, /, *, {any_rules}", "type[DType]"),
        (f"a: type[{alone}] | Array[{alone}], /, *, {precise}", "type[Result]"),
        (f"a: object, /, *, {any_rules}", "type[DType]"),
        (f"a: {unknown}, b: object, /, *, {any_rules}", "type[DType]"),
        (f"a: object, b: {unknown}, /, *, {any_rules}", "type[DType]"),
        (f"a: {first}, b: {second('Left')}, /, *, {precise}", "type[Result]"),
        (f"a: type[Left] | np.dtype[Left], b: {other}, /, *, {precise}", "type[Result]"),
        (f"a: Left, b: {other}, /, *, {precise}", "type[Result]"),
        (f"a: object, b: {numpy_operand}, /, *, {any_rules}", "type[DType]"),
        *[
            (f"a: {second(m)}, b: {t} | type[{t}], /, *, {precise}", "type[Result]")
            for t, m in python
        ],
        (f"a: OtherOperand, b: object, /, *, {any_rules}", "type[DType]"),
        (f"a: object, b: OtherOperand, /, *, {any_rules}", "type[DType]"),
        (f"a: object, b: object, c: object, /, *args: object, {any_rules}", "type[DType]"),
        (f"*args: object, {rest}", "type[DType]"),
    ]
    return {"promote_types": promote, "result_type": result}


def _targets(node: ast.Assign | ast.AnnAssign) -> set[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    found: set[str] = set()
    for t in targets:
        found |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    return found
