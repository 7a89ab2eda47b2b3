"""The production modules stay small enough to read: none over ~800 lines without a reason.

A module that grows past :data:`LIMIT` lines is split by concern (as
``typing_pkg/stubgen/`` was); one that cannot be, yet, is listed in
:data:`OVER` with the reason.  An entry that no longer applies (the module was
split, or shrank) fails too, so that the list stays true.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
PRODUCTION: Final = ("typing_pkg", "mypy_plugin")
LIMIT: Final = 800
OVER: Final = {
    "typing_pkg/typing.py": (
        "Array, one class: the Array API's declarations and, for type checkers, jax.Array's "
        "members (JAX's parameters; tests/stubs/test_array_members.py checks them against JAX's)"
    ),
    "mypy_plugin/jax_api.py": (
        "the hooks of the JAX function table, reading arguments as the kinds ask: to follow the "
        "kinds' typed interface (issue 20, item 1)"
    ),
    "mypy_plugin/hooks.py": (
        "the operator, method and attribute hooks of Array and NumPy's arrays, one protocol: "
        "to split by operand family (issue 20)"
    ),
    "mypy_plugin/__init__.py": (
        "the Plugin class, mypy's one entry point, its hook tables and lookups: to split the "
        "lookups out (issue 20)"
    ),
    "mypy_plugin/transforms.py": (
        "jit, vmap, grad, scan, partial: one protocol of transformed functions, 802 lines"
    ),
}
"""Modules over the limit, and why."""


def _sizes() -> dict[str, int]:
    found: dict[str, int] = {}
    for package in PRODUCTION:
        for path in sorted((ROOT / package).rglob("*.py")):
            with path.open(encoding="utf-8") as file:
                found[path.relative_to(ROOT).as_posix()] = sum(1 for _ in file)
    return found


def test_no_module_is_over_the_limit_without_a_reason() -> None:
    sizes = _sizes()
    over = {path: n for path, n in sizes.items() if n > LIMIT}
    unexplained = sorted(set(over) - set(OVER))
    assert not unexplained, f"over {LIMIT} lines, split by concern: " + ", ".join(
        f"{path} ({over[path]})" for path in unexplained
    )
    stale = sorted(set(OVER) - set(over))
    assert not stale, f"no longer over {LIMIT} lines, drop from OVER: {stale}"


def test_mypy_reports_are_read_in_one_place() -> None:
    """``tools/checkers/output.py`` reads mypy's report (``read_mypy``); a second
    pattern for its ``Revealed type is`` notes would drift from it."""
    allowed = {ROOT / "tools" / "checkers" / "output.py", Path(__file__).resolve()}
    elsewhere = [
        path.relative_to(ROOT).as_posix()
        for folder in ("typing_pkg", "mypy_plugin", "tools", "benchmarks", "tests")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path not in allowed
        and any(
            "Revealed type is" in line and ("re." in line or "compile" in line)
            for line in path.read_text(encoding="utf-8").splitlines()
        )
    ]
    assert not elsewhere, f"use tools.checkers.output.read_mypy in {elsewhere}"


RUNNER: Final = ROOT / "tools" / "checkers" / "run.py"
_OTHER_WAYS: Final = {
    '"-m", "mypy"': "mypy_command()",
    '"mypy.dmypy"': "dmypy_command()",
    'with_name("basedpyright': "basedpyright_command()",
    'which("basedpyright': "find_basedpyright()",
    "api.run(": "mypy_in_process()",
}
"""A checker started some other way than through ``tools/checkers/run.py``, and the way."""
IN_PROCESS_ON_PURPOSE: Final = frozenset(
    ROOT / "benchmarks" / name
    for name in ("bench_mypy_plugin.py", "bench_mypy_corpus.py", "bench_cold_no_jax.py")
)
"""Benchmark children that time the ``mypy.api.run`` call alone (the interpreter's start-up
and imports left out)."""


def test_a_checker_is_run_one_way() -> None:
    """Tests, tools and benchmarks run mypy and basedpyright through ``tools.checkers.run``:
    one place for the interpreter, the report's options and the environment."""
    elsewhere = [
        f"{path.relative_to(ROOT).as_posix()}:{number}: use tools.checkers.run.{way}"
        for folder in ("tools", "benchmarks", "tests")  # not examples/: users' programs
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path not in {RUNNER, Path(__file__).resolve()}
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        for pattern, way in _OTHER_WAYS.items()
        if pattern in line and not (way == "mypy_in_process()" and path in IN_PROCESS_ON_PURPOSE)
    ]
    assert not elsewhere, "\n".join(elsewhere)


SEAM: Final = ROOT / "mypy_plugin" / "mypy_internals.py"
PUBLIC_MYPY: Final = {
    "mypy.plugin": None,
    "mypy.nodes": None,
    "mypy.types": None,
    "mypy.options": None,
    "mypy.errorcodes": None,
    "mypy.subtypes": None,
    "mypy.typeops": None,
    "mypy.maptype": None,
    "mypy.typevars": None,
    "mypy.erasetype": None,
    "mypy.messages": {"format_type"},
}
"""mypy's plugin interface, as ``mypy_plugin/mypy_internals.py`` states it: each module the
rest of the plugin may import from, and the names it may take (``None``: any)."""
PRIVATE_MEMBERS: Final = re.compile(
    r"\.(_watchers|_filtered|_promote|_modules|error_info_map|binder|expr_checker|tscope|"
    r"lookup_type_or_none|store_type|check_func_item|deferred_nodes|current_node_deferred|"
    r"pass_num|var_decl_frames|function_type|disable_expression_cache|defining_alias)\b"
)
"""The members of mypy's checker, error collector and analyser the seam uses."""


def _mypy_imports(path: Path) -> list[tuple[str, str]]:
    """``(module, name)`` for each name ``path`` imports from mypy (``name`` empty for
    ``import mypy.x``; ``from mypy import x`` is module ``mypy.x``)."""
    found: list[tuple[str, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(a.name, "") for a in node.names if a.name.split(".")[0] == "mypy"]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            if node.module == "mypy":
                found += [(f"mypy.{a.name}", "") for a in node.names]
            elif node.module.split(".")[0] == "mypy":
                found += [(node.module, a.name) for a in node.names]
    return found


def test_mypy_internals_are_reached_in_one_module() -> None:
    """Only ``mypy_plugin/mypy_internals.py`` imports mypy beyond its plugin interface or
    touches its checker's private members: a mypy upgrade that moves them breaks one module."""
    assert SEAM.is_file()
    outside: list[str] = []
    for path in sorted((ROOT / "mypy_plugin").rglob("*.py")):
        if path == SEAM:
            continue
        where = path.relative_to(ROOT).as_posix()
        for module, name in _mypy_imports(path):
            if module not in PUBLIC_MYPY:
                outside.append(f"{where}: imports {module}")
                continue
            allowed = PUBLIC_MYPY[module]
            if allowed is not None and name not in allowed:
                outside.append(f"{where}: imports {module}.{name}")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#")[0]
            if PRIVATE_MEMBERS.search(code) and not code.lstrip().startswith(('"', "`")):
                outside.append(f"{where}:{number}: {line.strip()}")
    assert not outside, "move to mypy_plugin/mypy_internals.py:\n" + "\n".join(outside)
    seam = SEAM.read_text(encoding="utf-8")
    assert PRIVATE_MEMBERS.search(seam), "the list of private members is stale"
