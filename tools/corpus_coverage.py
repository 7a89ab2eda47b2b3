"""Measure how many array-valued names of a corpus a checker types with their true dtype.

Usage::

    python tools/corpus_coverage.py tests/corpus/realistic
    python tools/corpus_coverage.py DIR --checker mypy --rules jax --json out.json

For every ``.py`` file under ``DIR`` (``test_*.py`` and ``conftest.py`` aside):

* **Runtime truth.**  Each program runs in its own Python subprocess (JAX on
  CPU, x64 off, JAX's compilation cache kept between runs under the system's
  temporary directory) under a ``sys.settrace`` tracer.  An *assignment site* is a
  statement of a corpus file binding a name (``x = …``, ``a, b = …``,
  ``x += …``, ``x: T = …``, ``for x in …``, ``with … as x``) or an attribute
  of a name (``self.w = …``); each time a site's statement completes, the
  tracer looks at the value bound and records its dtype and weak type when it
  is a JAX array (tracers inside ``jit``/``vmap``/``grad`` included) or a
  NumPy array (NumPy scalars are not arrays).  Function parameters are not
  sites (their static type is their annotation, not an inference).  Sites
  never executed are left out; a site that held arrays of several dtypes is
  *polymorphic*; a site whose dtype has no marker (PRNG key arrays
  ``key<fry>``, strings) is counted apart and left out of the figures.
* **Static view.**  A copy of each file gets ``reveal_type(name)`` after each
  site, on a line of its own (for a ``for``/``with``, before the first
  statement of its body; the copy's lines are mapped back to the original
  ones), or after ``;`` when the statement shares its line (:func:`instrument`:
  a reveal beside its statement can show nothing in pyright).  NumPy's types
  are read in mypy's and pyright's spellings (``floating[_32Bit]``).
  The checker's revealed type is read: mypy with ``plugins = mypy_plugin``, ``[typing_pkg]
  promotion = RULES`` and ``check_untyped_defs = True``; basedpyright with the
  environment's stubs (``typeCheckingMode = standard``).  A site has a
  *concrete* static dtype when its revealed type names exactly one dtype
  marker (:func:`static_dtype`), *correct* when that dtype is the runtime
  one: a weakly typed runtime value (a Python scalar's dtype) counts as
  correct for its dtype (``float32``) and for its weak marker
  (``weak_float``), a strongly typed one only for its dtype.
* **Noise.**  The errors a checker reports with the plugin (mypy) or the
  stubs (basedpyright) minus those it reports without them — mypy without
  ``plugins``, basedpyright with the checkout's ``stubs/`` directory taken off
  its search path — compared as (file, line, error code) multisets: on a
  corpus without dtype bugs every new error is a false one.

Prints, per file and in total: array-valued sites, polymorphic ones, those
with a concrete static dtype, correct, wrong (a defect: the checker names a
dtype the program never has there) and new errors, then each wrong site and
each new error.  On a corpus of bugs (lines marked ``# BUG:``, as in
``tests/corpus/bugs/``) new errors are wanted on those lines: it also prints
how many get one.  ``--json OUT`` writes every site with its runtime dtypes
and static types.  The exit status is 0 whatever the figures (2 on a usage
error).  The tool assumes the checkout's editable install (its ``.pth``
puts ``stubs/`` on the path); ``--stubs DIR`` gives basedpyright other stubs
for its run with stubs (for rules other than ``jax``: ``typing-pkg stubs
--rules R --out DIR``).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import runpy
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import FrameType
from typing import Any, Literal

from tools.checkers import run as checkers
from tools.checkers.output import read_mypy, revealed_by_pyright

ROOT = Path(__file__).resolve().parents[1]
CHECKERS = ("mypy", "basedpyright")
CACHE = Path(tempfile.gettempdir()) / "typing_pkg_corpus_coverage"
"""Caches kept between runs: mypy's, one per configuration (reading JAX's stubs takes ~10 s),
and JAX's compilation cache for the programs."""

Verdict = Literal["none", "correct", "wrong"]

# --------------------------------------------------------------------------------------------
# Assignment sites


@dataclass(frozen=True, order=True)
class Site:
    """A name bound by a statement: the statement's first line, the target (``x``, ``self.w``)."""

    line: int
    name: str


def target_names(target: ast.expr) -> list[str]:
    """Return the names an assignment target binds: ``a``, ``(a, *b)``, ``self.w``."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return [name for element in target.elts for name in target_names(element)]
    if isinstance(target, ast.Starred):
        return target_names(target.value)
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        return [f"{target.value.id}.{target.attr}"]
    return []  # x[i] = …, f().a = …: no name is bound


def bound_names(stmt: ast.stmt) -> list[str]:
    """Return the names ``stmt`` binds (in order, without repeats); [] for other statements."""
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = list(stmt.targets)
    elif isinstance(stmt, ast.AugAssign | ast.For | ast.AsyncFor) or (
        isinstance(stmt, ast.AnnAssign) and stmt.value is not None
    ):
        targets = [stmt.target]
    elif isinstance(stmt, ast.With | ast.AsyncWith):
        targets = [item.optional_vars for item in stmt.items if item.optional_vars is not None]
    names = [name for target in targets for name in target_names(target)]
    return list(dict.fromkeys(names))


def binding_body(stmt: ast.stmt) -> list[ast.stmt] | None:
    """The body of a ``for``/``with`` (which binds its targets before it), else None."""
    if isinstance(stmt, ast.For | ast.AsyncFor | ast.With | ast.AsyncWith):
        return stmt.body
    return None


def binding_statements(tree: ast.AST) -> Iterator[tuple[ast.stmt, list[str]]]:
    """Yield every statement of ``tree`` (nested functions and classes too) that binds names."""
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            names = bound_names(node)
            if names:
                yield node, names


def header_lines(stmt: ast.stmt) -> range:
    """The lines where ``stmt`` runs before its targets are bound (its header, if compound)."""
    body = binding_body(stmt)
    if body is not None:
        first = body[0].lineno
        return range(stmt.lineno, max(stmt.lineno, first - 1) + 1)
    return range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1)


# --------------------------------------------------------------------------------------------
# Runtime truth: the tracer (runs in the program's subprocess)


def describe(value: object) -> tuple[str, bool] | None:
    """Return ``(dtype name, weak)`` for a JAX or NumPy array (a tracer too), else None."""
    jax = sys.modules.get("jax")
    numpy = sys.modules.get("numpy")
    # getattr: the modules come from sys.modules, their classes are unknown to a checker
    if jax is not None and isinstance(value, jax.Array):
        dtype: object = getattr(value, "dtype")  # noqa: B009
        return str(dtype), bool(getattr(value, "weak_type", False))
    if numpy is not None and isinstance(value, numpy.ndarray):
        dtype = getattr(value, "dtype")  # noqa: B009
        return str(dtype), False
    return None


_MISSING = object()


class Tracer:
    """Record the dtypes bound at each assignment site of some files while a program runs.

    A frame of a traced file keeps the statements of the line it is on; when
    it moves to a line of other statements (or returns), those statements
    have completed and the values of their targets are read.
    """

    def __init__(self, files: Sequence[str]) -> None:
        self.files = {os.path.realpath(path) for path in files}
        self.units: dict[str, dict[int, tuple[tuple[int, tuple[str, ...]], ...]]] = {}
        self.pending: dict[int, tuple[tuple[int, tuple[str, ...]], ...]] = {}
        self.seen: dict[str, dict[tuple[int, str], set[tuple[str, bool]]]] = {}
        self.real: dict[str, str | None] = {}

    def _units(self, path: str) -> dict[int, tuple[tuple[int, tuple[str, ...]], ...]]:
        units = self.units.get(path)
        if units is None:
            tree = ast.parse(Path(path).read_text(encoding="utf-8"), path)
            table: dict[int, list[tuple[int, tuple[str, ...]]]] = {}
            for stmt, names in binding_statements(tree):
                for line in header_lines(stmt):
                    table.setdefault(line, []).append((stmt.lineno, tuple(names)))
            units = self.units[path] = {line: tuple(sites) for line, sites in table.items()}
        return units

    def _file(self, filename: str) -> str | None:
        if filename not in self.real:
            real = os.path.realpath(filename)
            self.real[filename] = real if real in self.files else None
        return self.real[filename]

    def global_trace(self, frame: FrameType, event: str, arg: object) -> Any:
        """The ``sys.settrace`` function: trace the frames of the corpus files only."""
        name = frame.f_code.co_name
        if self._file(frame.f_code.co_filename) is None:
            return None
        if name.startswith("<") and name != "<module>":  # lambdas, comprehensions: no site
            return None
        self.pending[id(frame)] = ()
        return self.local_trace

    def local_trace(self, frame: FrameType, event: str, arg: object) -> Any:
        """The frame's trace function: on each new line or return, read what just completed."""
        key = id(frame)
        if event == "line":
            path = self._file(frame.f_code.co_filename)
            now = self._units(path).get(frame.f_lineno, ()) if path else ()
            before = self.pending.get(key, ())
            if before and before != now:
                self._record(frame, before)
            self.pending[key] = now
        elif event == "return":
            before = self.pending.pop(key, ())
            if before:
                self._record(frame, before)
        return self.local_trace

    def _record(self, frame: FrameType, sites: tuple[tuple[int, tuple[str, ...]], ...]) -> None:
        path = self._file(frame.f_code.co_filename)
        if path is None:
            return
        seen = self.seen.setdefault(path, {})
        code = frame.f_code
        local_names = {*code.co_varnames, *code.co_cellvars, *code.co_freevars}
        f_locals = frame.f_locals
        for line, names in sites:
            for name in names:
                base, _, attr = name.partition(".")
                if base in f_locals:
                    value = f_locals[base]
                elif base not in local_names:
                    value = frame.f_globals.get(base, _MISSING)
                else:
                    continue  # a local not bound yet: the statement did not complete
                if value is _MISSING:
                    continue
                if attr:
                    try:
                        value = getattr(value, attr, _MISSING)
                    except Exception:  # a property that raised: not our business
                        continue
                found = describe(value)
                if found is not None:
                    seen.setdefault((line, name), set()).add(found)

    def dump(self) -> dict[str, list[list[object]]]:
        """The observations, as JSON: ``{path: [[line, name, dtype, weak], …]}``."""
        return {
            path: [
                [line, name, dtype, weak]
                for (line, name), found in sorted(sites.items())
                for dtype, weak in sorted(found)
            ]
            for path, sites in self.seen.items()
        }


def trace_program(program: str, files: Sequence[str], out: str) -> int:
    """Run ``program`` as ``__main__`` under the tracer; write the observations to ``out``."""
    tracer = Tracer(files)
    sys.argv = [program]
    sys.path[0] = os.path.dirname(os.path.abspath(program))
    status = 0
    sys.settrace(tracer.global_trace)
    try:
        runpy.run_path(program, run_name="__main__")
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        sys.settrace(None)
        traceback.print_exc()  # as Python would print it: the program died of it
        status = 1
    finally:
        sys.settrace(None)
        Path(out).write_text(json.dumps(tracer.dump()), encoding="utf-8")
    return status


# --------------------------------------------------------------------------------------------
# Static view: the recogniser


@cache
def _markers() -> frozenset[str]:
    from typing_pkg import dtypes  # not at the top: the tracer's subprocess need not import it

    return frozenset(
        marker.__name__ for marker in (*dtypes.CONCRETE, *dtypes.WEAK, *dtypes.EXTENDED)
    )


ALIASES = {"numpy.bool": "bool_", "numpy.bool_": "bool_", "jax.numpy.bool_": "bool_"}
"""Qualified names of dtypes that are not spelt as a marker (mypy writes numpy's in full)."""
_IDENTIFIER = re.compile(r"[A-Za-z_][\w.]*")
_NBIT = r"(?:numpy\._typing\._nbit_base\.)?_(?P<{}>\d+)Bit"
_NUMPY_SIZED = re.compile(
    r"(?<![\w.])(?:numpy\.)?(?P<kind>signedinteger|unsignedinteger|floating|complexfloating)"
    rf"\[{_NBIT.format('bits')}(?:, {_NBIT.format('bits2')})?\]"
)
"""NumPy's sized scalar types: ``float32`` is ``numpy.floating[numpy._typing._nbit_base._32Bit]``
to mypy, ``floating[_32Bit]`` to pyright.  A complex type names the bits of each part, or of one
part when both are the same (``complexfloating[_32Bit]`` is ``complex64``).  A width that depends
on the platform (``signedinteger[_32Bit | _64Bit]``, NumPy's ``intp``) is not read: it names no
one dtype."""
_NUMPY_BOOL = re.compile(r"(?<![\w.])bool\[")
"""pyright's ``numpy.bool`` when no ``builtins.bool`` is printed beside it: ``bool[Any]`` (Python's
``bool`` is not generic; pyright writes ``numpy.bool[builtins.bool]`` when both are)."""
_NUMPY_KINDS = {
    "signedinteger": "int", "unsignedinteger": "uint", "floating": "float",
    "complexfloating": "complex",
}  # fmt: skip


def _numpy_sized(match: re.Match[str]) -> str:
    bits = int(match["bits"])
    if match["kind"] == "complexfloating":
        bits += int(match["bits2"]) if match["bits2"] else bits
    return f"{_NUMPY_KINDS[match['kind']]}{bits}"


def static_dtype(type_text: str) -> str | None:
    """Return the one dtype marker a revealed type names, or None (no marker, or several).

    ``Array[float32]``, ``typing_pkg.typing.Array[typing_pkg.dtypes.float32]``,
    ``Array[float32] | None`` and NumPy's ``ndarray[…, dtype[numpy.float32]]``
    (``dtype[floating[_32Bit]]`` as pyright writes it) give ``"float32"``;
    ``jax.Array``, ``Array[Any]``, ``Array[floating]`` (a category) and
    ``tuple[Array[int32], Array[float32]]`` give None.  A union
    is concrete only if each member but ``None`` names the same one marker:
    ``Array[float32] | Any`` (or ``| Unknown``, ``| jax.Array``) gives None.
    To recognise another spelling of a dtype, add it to :data:`ALIASES`.
    """
    members: list[str] = []
    depth = start = 0
    for index, char in enumerate(type_text):
        depth += (char in "[(") - (char in "])")
        if char == "|" and depth == 0:
            members.append(type_text[start:index].strip())
            start = index + 1
    if members:
        members.append(type_text[start:].strip())
        found_each = {static_dtype(member) for member in members if member != "None"}
        return found_each.pop() if len(found_each) == 1 else None
    markers = _markers()
    found: set[str] = set()
    type_text = _NUMPY_BOOL.sub("bool_[", _NUMPY_SIZED.sub(_numpy_sized, type_text))
    for identifier in _IDENTIFIER.findall(type_text):
        last = identifier.rsplit(".", 1)[-1]
        if identifier in ALIASES:
            found.add(ALIASES[identifier])
        elif last in markers:
            found.add(last)
    return found.pop() if len(found) == 1 else None


def runtime_marker(dtype: str) -> str | None:
    """The marker of a runtime dtype name (``bool`` is ``bool_``), None if there is none."""
    from typing_pkg.dtypelike import marker_named
    from typing_pkg.dtypes import EXTENDED

    extended = marker_named(dtype)  # key<fry>: the key marker
    name = "bool_" if dtype == "bool" else dtype
    name = extended.name if extended in EXTENDED else name
    return name if name in _markers() else None


def weak_marker(dtype: str) -> str:
    """The weak marker of a weakly typed value of ``dtype``."""
    if dtype.startswith("complex"):
        return "weak_complex"
    if dtype.startswith(("int", "uint")):
        return "weak_int"
    return "weak_float"


def verdict(static: str | None, observed: Sequence[tuple[str, bool]]) -> Verdict:
    """Whether a static dtype is right for every runtime observation of a site."""
    if static is None:
        return "none"
    for dtype, weak in observed:
        if static != runtime_marker(dtype) and not (weak and static == weak_marker(dtype)):
            return "wrong"
    return "correct"


# --------------------------------------------------------------------------------------------
# Static view: instrumented copies and the checkers


@dataclass
class Instrumented:
    """A copy of a file with ``reveal_type`` calls, and how to read its checker's output back."""

    text: str
    line_map: list[int]
    """The original line of each line of the copy (index 0 is line 1)."""
    reveals: dict[tuple[int, int], Site]
    """(line of the copy, 0-based column of reveal_type's argument) → the site revealed."""


def instrument(source: str) -> Instrumented:
    """Insert ``reveal_type(name)`` after each site, keeping the original lines where they are.

    Each name a simple statement binds is revealed on a line of its own
    inserted after the statement, at its indentation; each name a
    ``for``/``with`` binds, on a line of its own before the first statement
    of its body.  The copy's new lines are mapped to the statement's line.
    Where there is no line to insert (a statement that shares its line with
    another, ``if c: x = 1``, ``a = 1; b = 2``, or a body on its header's
    line), the names are revealed on the statement's line: ``; reveal_type(x)``
    after a simple statement, ``reveal_type(x); `` before a body's first one.

    One reveal per line: mypy reports a note once per line and message (two
    names of one type revealed on one line would show one note).  No reveal
    beside its statement when avoidable: pyright's checker evaluates the
    expression statements of a line (its ``visitStatementList``) before the
    line's assignments, and a name rebound there from an unknown value
    (``x = x + 1; reveal_type(x)``, ``x`` an unannotated parameter) then has
    an *incomplete* type, which ``reveal_type`` does not report, in that line
    and in every later reveal of the name.
    """
    lines = source.splitlines(keepends=True)
    # line → (column, rank, names, site line); line → (names, site line); line → (…, indent)
    inline: dict[int, list[tuple[int, int, list[str], int]]] = {}
    before: dict[int, list[tuple[list[str], int]]] = {}
    after: dict[int, list[tuple[list[str], int, str]]] = {}
    order = 0
    for stmt, names in binding_statements(ast.parse(source)):
        order += 1
        body = binding_body(stmt)
        if body is None:
            end = stmt.end_lineno or stmt.lineno
            indent = lines[stmt.lineno - 1][: stmt.col_offset]
            if not starts_line(lines, stmt):  # if c: x = 1
                head, rest = names, []
            elif ends_line(lines, stmt):
                head, rest = [], names
            else:  # a = 1; b = 2
                head, rest = names[:1], names[1:]
            if head:
                inline.setdefault(end, []).append(
                    (stmt.end_col_offset or 0, order, head, stmt.lineno)
                )
            if rest:
                after.setdefault(end, []).append((rest, stmt.lineno, indent))
            continue
        first = body[0]
        decorators: list[ast.expr] = getattr(first, "decorator_list", [])
        start = min([first.lineno, *(d.lineno for d in decorators)])
        if start > stmt.lineno and starts_line(lines, first):
            before.setdefault(start, []).append((names, stmt.lineno))
        else:  # for x in y: f(x)
            inline.setdefault(first.lineno, []).append(
                (first.col_offset, -order, names, stmt.lineno)
            )
    text: list[str] = []
    line_map: list[int] = []
    reveals: dict[tuple[int, int], Site] = {}

    def own_lines(names: list[str], site_line: int, indent: str) -> None:
        for name in names:
            reveals[(len(text) + 1, len(indent) + len("reveal_type("))] = Site(site_line, name)
            text.append(f"{indent}reveal_type({name})\n")
            line_map.append(site_line)

    for number, line in enumerate(lines, start=1):
        for names, site_line in before.get(number, []):
            own_lines(names, site_line, line[: len(line) - len(line.lstrip())])
        data = line.encode("utf-8")
        new_line = ""
        done = 0
        # A suffix (rank > 0) follows the statement ending at col; a prefix (rank < 0)
        # precedes the statement starting there.
        for col, rank, names, site_line in sorted(inline.get(number, []), key=lambda e: e[:2]):
            new_line += data[done:col].decode("utf-8", errors="replace")
            done = col
            for name in names:
                new_line += "; " if rank > 0 else ""
                key = (len(text) + 1, len(new_line) + len("reveal_type("))
                reveals[key] = Site(site_line, name)
                new_line += f"reveal_type({name})" + ("" if rank > 0 else "; ")
        new_line += data[done:].decode("utf-8", errors="replace")
        if not new_line.endswith("\n"):
            new_line += "\n"
        text.append(new_line)
        line_map.append(number)
        for names, site_line, indent in after.get(number, []):
            own_lines(names, site_line, indent)
    return Instrumented("".join(text), line_map, reveals)


def starts_line(lines: Sequence[str], stmt: ast.stmt) -> bool:
    """Whether ``stmt`` is the first thing on its first line."""
    line = lines[stmt.lineno - 1]
    return len(line) - len(line.lstrip()) == stmt.col_offset


def ends_line(lines: Sequence[str], stmt: ast.stmt) -> bool:
    """Whether nothing but a comment follows ``stmt`` on its last line."""
    line = lines[(stmt.end_lineno or stmt.lineno) - 1].encode("utf-8")
    rest = line[stmt.end_col_offset or 0 :].decode("utf-8", errors="replace").strip()
    return not rest or rest.startswith("#")


@dataclass
class Diagnostic:
    """One error of a checker, at a line of an original file."""

    file: str
    line: int
    code: str
    message: str


@dataclass
class CheckerRun:
    """What one checker said about the corpus, with and without our plugin or stubs."""

    types: dict[str, dict[Site, str]] = field(default_factory=dict)
    with_errors: list[Diagnostic] = field(default_factory=list)
    without_errors: list[Diagnostic] = field(default_factory=list)
    failure: str | None = None
    seconds: float = 0.0

    def new_errors(self) -> list[Diagnostic]:
        """The errors reported with the plugin/stubs and not without, by (file, line, code)."""
        remaining = Counter((e.file, e.line, e.code) for e in self.without_errors)
        new: list[Diagnostic] = []
        for error in self.with_errors:
            key = (error.file, error.line, error.code)
            if remaining[key]:
                remaining[key] -= 1
            else:
                new.append(error)
        return new


def write_copies(files: dict[str, Instrumented], where: Path) -> None:
    """Write the instrumented copies under ``where``, at their relative paths."""
    for rel, copy in files.items():
        path = where / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(copy.text, encoding="utf-8")


def read_reveal(
    copies: dict[str, Instrumented],
    rel: str,
    line: int,
    col: int,
    type_text: str,
    types: dict[str, dict[Site, str]],
) -> None:
    """Attribute a revealed type at (line, 0-based argument column) of a copy to its site."""
    reveals = copies[rel].reveals
    site = reveals.get((line, col))
    if site is None:  # a column counted differently (tabs, wide characters): nearest on the line
        near = [(abs(c - col), s) for (ln, c), s in reveals.items() if ln == line]
        if not near:
            return
        site = min(near)[1]
    types.setdefault(rel, {})[site] = type_text


def original_line(copies: dict[str, Instrumented], rel: str, line: int) -> int:
    """The original line of a line of a copy."""
    line_map = copies[rel].line_map
    return line_map[line - 1] if 0 < line <= len(line_map) else line


def mypy_batches(rels: Sequence[str]) -> list[list[str]]:
    """Split files so that no two of a batch have the same module name (mypy refuses that)."""
    batches: list[list[str]] = []
    for rel in rels:
        module = Path(rel).stem
        for batch in batches:
            if all(Path(other).stem != module for other in batch):
                batch.append(rel)
                break
        else:
            batches.append([rel])
    return batches


def run_mypy_once(
    copies: dict[str, Instrumented], where: Path, plugin: bool, rules: str, run: CheckerRun
) -> None:
    """Run mypy on the copies, with or without the plugin; collect reveals and errors."""
    config = where / ("mypy-plugin.ini" if plugin else "mypy-plain.ini")
    lines = ["[mypy]", "check_untyped_defs = True", "python_version = 3.11"]
    if plugin:
        lines[1:1] = ["plugins = mypy_plugin"]
        lines += ["", "[typing_pkg]", f"promotion = {rules}"]
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cache = CACHE / (f"mypy-plugin-{rules}" if plugin else "mypy-plain")
    errors = run.with_errors if plugin else run.without_errors
    for batch in mypy_batches(sorted(copies)):
        command = [
            *checkers.mypy_command(),
            "--config-file",
            str(config),
            "--cache-dir",
            str(cache),
            "--show-column-numbers",
            *checkers.MYPY_REPORT,
            *batch,
        ]
        done = subprocess.run(
            command, cwd=where, capture_output=True, text=True, check=False, env=checker_env()
        )
        if done.returncode not in (0, 1):
            label = "with the plugin" if plugin else "without the plugin"
            run.failure = (
                f"mypy {label} failed ({done.returncode}): "
                + (done.stderr or done.stdout).strip()[-2000:]
            )
        for said in read_mypy(done.stdout):
            rel = Path(said.file).as_posix()
            if rel not in copies or said.column is None:
                continue
            if said.revealed is not None:
                if plugin:
                    read_reveal(copies, rel, said.line, said.column - 1, said.revealed, run.types)
            elif said.severity == "error":
                errors.append(
                    Diagnostic(
                        rel, original_line(copies, rel, said.line), said.code or "misc",
                        said.message,
                    )
                )  # fmt: skip


def checker_env() -> dict[str, str]:
    """The environment of a checker's subprocess: the checkout importable, colours off."""
    path = os.environ.get("PYTHONPATH")
    return checkers.checker_env({"PYTHONPATH": str(ROOT) + (os.pathsep + path if path else "")})


def run_mypy(copies: dict[str, Instrumented], where: Path, rules: str) -> CheckerRun:
    """Run mypy with the plugin (types and errors) and without it (errors)."""
    run = CheckerRun()
    start = time.perf_counter()
    run_mypy_once(copies, where, True, rules, run)
    run_mypy_once(copies, where, False, rules, run)
    run.seconds = time.perf_counter() - start
    return run


_PYTHON_WRAPPER = """\
#!{python}
# pyright asks the interpreter for its search path with `python -c CODE`:
# answer it from the real interpreter with some entries replaced.
import sys
replace = {replace!r}
paths = []
for entry in sys.path[1:]:
    paths.extend(replace.get(entry, [entry]))
paths.extend(entry for entry in {append!r} if entry not in paths)
sys.path[:] = paths
arguments = sys.argv[1:]
if "-c" in arguments:
    sys.argv = ["-c", *arguments[arguments.index("-c") + 2:]]
    exec(compile(arguments[arguments.index("-c") + 1], "<string>", "exec"))
"""


def python_wrapper(
    where: Path, name: str, replace: dict[str, list[str]], append: list[str]
) -> Path:
    """Write an interpreter for pyright whose search path has ``replace`` and ``append`` applied."""
    wrapper = where / name
    wrapper.write_text(
        _PYTHON_WRAPPER.format(python=sys.executable, replace=replace, append=append),
        encoding="utf-8",
    )
    wrapper.chmod(0o755)
    return wrapper


def run_pyright_once(
    copies: dict[str, Instrumented], where: Path, stubs: Path | None, run: CheckerRun, exe: str
) -> None:
    """Run basedpyright on the copies with ``stubs`` on its path (None: without the checkout's)."""
    # The editable install puts the checkout's stubs/ on the path: swap it for ``stubs``
    # (added if missing), or take it off.
    default = str(ROOT / "stubs")
    replace = {default: [str(stubs)] if stubs is not None else []}
    append = [str(stubs)] if stubs is not None else []
    name = "python-with" if stubs else "python-without"
    wrapper = python_wrapper(where, name, replace, append)
    config = where / "pyrightconfig.json"
    config.write_text(
        json.dumps(
            {
                "include": sorted(copies),
                "pythonVersion": "3.11",
                "typeCheckingMode": "standard",
            }
        ),
        encoding="utf-8",
    )
    done = subprocess.run(
        [exe, "-p", str(config), "--pythonpath", str(wrapper), "--outputjson"],
        cwd=where,
        capture_output=True,
        text=True,
        check=False,
        env=checker_env(),
    )
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        label = "with the stubs" if stubs else "without the stubs"
        run.failure = (
            f"basedpyright {label} failed ({done.returncode}): "
            + (done.stderr or done.stdout).strip()[-2000:]
        )
        return
    errors = run.with_errors if stubs else run.without_errors
    base = where.resolve()
    for diagnostic in report.get("generalDiagnostics", []):
        try:
            rel = Path(diagnostic["file"]).resolve().relative_to(base).as_posix()
        except ValueError:
            continue
        if rel not in copies:
            continue
        start = diagnostic["range"]["start"]
        line, col = start["line"] + 1, start["character"]
        message = diagnostic["message"]
        revealed = revealed_by_pyright(message)
        if diagnostic["severity"] == "information" and revealed is not None:
            if stubs:
                read_reveal(copies, rel, line, col, revealed, run.types)
        elif diagnostic["severity"] == "error":
            errors.append(
                Diagnostic(
                    rel, original_line(copies, rel, line), diagnostic.get("rule", "error"), message
                )
            )


def run_pyright(copies: dict[str, Instrumented], where: Path, stubs: Path) -> CheckerRun:
    """Run basedpyright with the stubs (types and errors) and without them (errors)."""
    run = CheckerRun()
    exe = checkers.find_basedpyright()
    if exe is None:
        run.failure = "basedpyright is not installed"
        return run
    start = time.perf_counter()
    run_pyright_once(copies, where, stubs, run, exe)
    run_pyright_once(copies, where, None, run, exe)
    run.seconds = time.perf_counter() - start
    return run


# --------------------------------------------------------------------------------------------
# Running the corpus


@dataclass
class ProgramRun:
    """How a corpus program ran under the tracer."""

    status: int
    seconds: float
    output: str


def corpus_files(directory: Path) -> list[Path]:
    """The programs of a corpus: its ``.py`` files, tests and conftests aside."""
    return sorted(
        path
        for path in directory.rglob("*.py")
        if not path.name.startswith("test_")
        and path.name != "conftest.py"
        and "__pycache__" not in path.parts
    )


def program_env() -> dict[str, str]:
    """The environment of a corpus program: JAX on CPU, x64 off, a compilation cache.

    The cache (JAX's persistent one, under :data:`CACHE`) changes no result: the
    programs' Python still runs and traces, but XLA compiles each computation
    once across runs instead of once per run, which divides a rerun's time by ~3.
    """
    path = os.environ.get("PYTHONPATH")
    return {
        **os.environ,
        "JAX_PLATFORMS": "cpu",
        "JAX_ENABLE_X64": "0",
        "JAX_COMPILATION_CACHE_DIR": str(CACHE / "jax"),
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
        "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "-1",
        "PYTHONPATH": str(ROOT) + (os.pathsep + path if path else ""),
    }


def trace_command(python: str, program: Path, out: Path, files: Sequence[object]) -> list[str]:
    """The command that runs ``program`` under the tracer, recording the sites of ``files``."""
    return [
        python,
        str(Path(__file__).resolve()),
        "--trace",
        str(program),
        "--trace-out",
        str(out),
        *(f"--trace-file={f}" for f in files),
    ]


def run_programs(
    directory: Path, files: Sequence[Path], timeout: float
) -> tuple[dict[str, dict[Site, set[tuple[str, bool]]]], dict[str, ProgramRun]]:
    """Run each program under the tracer; return the observations of every file and the runs."""
    observed: dict[str, dict[Site, set[tuple[str, bool]]]] = {}
    runs: dict[str, ProgramRun] = {}
    env = program_env()
    paths = [str(path) for path in files]
    with tempfile.TemporaryDirectory() as scratch:
        for path in files:
            rel = path.relative_to(directory).as_posix()
            out = Path(scratch) / "observed.json"
            out.unlink(missing_ok=True)
            start = time.perf_counter()
            command = trace_command(sys.executable, path, out, paths)
            try:
                done = subprocess.run(
                    command,
                    cwd=path.parent,
                    capture_output=True,
                    text=True,
                    timeout=timeout,
                    env=env,
                    check=False,
                )
                status, output = done.returncode, done.stdout + done.stderr
            except subprocess.TimeoutExpired as exc:
                status, output = -1, f"timed out after {timeout:g} s: {exc}"
            runs[rel] = ProgramRun(status, time.perf_counter() - start, output)
            if not out.exists():
                continue
            for file, rows in json.loads(out.read_text(encoding="utf-8")).items():
                file_rel = Path(file).relative_to(directory.resolve()).as_posix()
                for line, name, dtype, weak in rows:
                    sites = observed.setdefault(file_rel, {})
                    sites.setdefault(Site(line, name), set()).add((dtype, weak))
    return observed, runs


@dataclass
class Figures:
    """The figures of one file (or of the total) for one checker."""

    arrays: int = 0
    polymorphic: int = 0
    unmarked: int = 0
    concrete: int = 0
    correct: int = 0
    wrong: int = 0
    new_errors: int = 0
    bugs: int = 0
    caught: int = 0

    def add(self, other: Figures) -> None:
        """Add another file's figures to these."""
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def site_label(observed: set[tuple[str, bool]]) -> list[str]:
    """The runtime dtypes of a site as markers, weak ones as ``float32 (weak)``."""
    return sorted({dtype + (" (weak)" if weak else "") for dtype, weak in observed})


def measure(
    directory: Path, checkers: Sequence[str], rules: str, stubs: Path, timeout: float
) -> dict[str, Any]:
    """Measure the corpus: runtime truth, each checker's static view and noise."""
    files = corpus_files(directory)
    sources: dict[str, str] = {}
    unparsable: dict[str, str] = {}
    for path in files:
        rel = path.relative_to(directory).as_posix()
        try:
            source = path.read_text(encoding="utf-8")
            ast.parse(source)
        except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
            unparsable[rel] = str(exc)
            continue
        sources[rel] = source
    observed, runs = run_programs(directory, [directory / rel for rel in sources], timeout)
    copies = {rel: instrument(source) for rel, source in sources.items()}
    checker_runs: dict[str, CheckerRun] = {}
    with tempfile.TemporaryDirectory() as scratch:
        where = Path(scratch)
        write_copies(copies, where)
        for checker in checkers:
            if checker == "mypy":
                checker_runs[checker] = run_mypy(copies, where, rules)
            else:
                checker_runs[checker] = run_pyright(copies, where, stubs)
    report: dict[str, Any] = {
        "directory": str(directory),
        "rules": rules,
        "files": {},
        "totals": {},
        "unparsable": unparsable,
        "checkers": {},
    }
    totals = {checker: Figures() for checker in checkers}
    for checker, run in checker_runs.items():
        report["checkers"][checker] = {
            "seconds": round(run.seconds, 2),
            "failure": run.failure,
            "errors_with": len(run.with_errors),
            "errors_without": len(run.without_errors),
        }
    causes = _reasons(directory, checker_runs, observed)
    for rel in sources:
        program = runs[rel]
        entry: dict[str, Any] = {
            "status": program.status,
            "seconds": round(program.seconds, 2),
            "output_tail": program.output.strip().splitlines()[-5:],
            "error": error_line(program.output) if program.status else None,
            "sites": [],
            "figures": {},
            "new_errors": {},
            "bug_lines": bug_lines(sources[rel]),
        }
        sites = observed.get(rel, {})
        for site in sorted(sites):
            found = sites[site]
            markers = {runtime_marker(dtype) for dtype, _ in found}
            row: dict[str, Any] = {
                "line": site.line,
                "name": site.name,
                "runtime": site_label(found),
                "polymorphic": len({dtype for dtype, _ in found}) > 1,
                "unmarked": None in markers,
            }
            for checker, run in checker_runs.items():
                text = run.types.get(rel, {}).get(site)
                static = static_dtype(text) if text is not None else None
                row[checker] = {
                    "type": text,
                    "dtype": static,
                    "verdict": verdict(static, sorted(found)),
                }
                if checker == "mypy" and static is None and not row["unmarked"]:
                    cause = causes.get(rel, {}).get(site)
                    row[checker]["reason"] = None if cause is None else str(cause)
            entry["sites"].append(row)
        for checker, run in checker_runs.items():
            figures = Figures()
            for row in entry["sites"]:
                if row["unmarked"]:
                    figures.unmarked += 1
                    continue
                figures.arrays += 1
                figures.polymorphic += row["polymorphic"]
                result = row[checker]["verdict"]
                figures.concrete += result != "none"
                figures.correct += result == "correct"
                figures.wrong += result == "wrong"
            new = [e for e in run.new_errors() if e.file == rel]
            figures.new_errors = len(new)
            figures.bugs = len(entry["bug_lines"])
            figures.caught = len(set(entry["bug_lines"]) & {e.line for e in new})
            entry["figures"][checker] = vars(figures)
            entry["new_errors"][checker] = [vars(e) for e in new]
            totals[checker].add(figures)
        report["files"][rel] = entry
    report["totals"] = {checker: vars(figures) for checker, figures in totals.items()}
    return report


def _reasons(
    directory: Path,
    runs: dict[str, CheckerRun],
    observed: dict[str, dict[Site, set[tuple[str, bool]]]],
) -> dict[str, dict[Site, Any]]:
    """Why each site the programs held arrays at has no dtype in mypy (the primer's reasons)."""
    run = runs.get("mypy")
    if run is None:
        return {}
    from tools.primer.reasons import classify  # not at the top: it imports this module

    only = {rel: set(sites) for rel, sites in observed.items()}
    return dict(classify(directory, run.types, only=only))


BUG_MARK = re.compile(r"#\s*BUG:")
"""The mark of a line with a real dtype bug (``tests/corpus/bugs/``): a new error belongs there."""


def bug_lines(source: str) -> list[int]:
    """The lines of ``source`` marked ``# BUG:``."""
    return [n for n, line in enumerate(source.splitlines(), start=1) if BUG_MARK.search(line)]


def error_line(output: str) -> str:
    """The line of a program's output naming the exception it died of, else its last line."""
    lines = output.strip().splitlines() or [""]
    errors = [line for line in lines if re.match(r"^[\w.]*(Error|Exception)\b.*:", line)]
    return (errors or lines)[-1]


def percent(part: int, whole: int) -> str:
    """``part`` as a percentage of ``whole``."""
    return f"{100 * part / whole:.1f}%" if whole else "-"


def render(report: dict[str, Any]) -> str:
    """The report as text: a table per checker, then the defects and the runs that failed."""
    out: list[str] = []
    files: dict[str, Any] = report["files"]
    width = max([len(rel) for rel in files] + [5])
    out.append(f"corpus {report['directory']} (rules {report['rules']}): {len(files)} files")
    for rel, entry in files.items():
        if entry["status"] != 0:
            status, seconds = entry["status"], entry["seconds"]
            out.append(f"  {rel}: exit status {status} ({seconds} s): {entry['error']}")
    runtime = sum(entry["seconds"] for entry in files.values())
    out.append(f"  runtime of the programs under the tracer: {runtime:.1f} s")
    for rel, reason in report["unparsable"].items():
        out.append(f"  {rel}: not parsed ({reason})")
    header = f"{'file':<{width}}  arrays  poly  concrete  correct  wrong  new errors  (unmarked)"
    for checker, info in report["checkers"].items():
        out.append("")
        out.append(
            f"{checker}: {info['seconds']} s, {info['errors_with']} errors with the "
            f"{'plugin' if checker == 'mypy' else 'stubs'}, {info['errors_without']} without"
            + (f"  FAILED: {info['failure']}" if info["failure"] else "")
        )
        out.append(header)
        for rel, entry in files.items():
            f = entry["figures"][checker]
            out.append(
                f"{rel:<{width}}  {f['arrays']:>6}  {f['polymorphic']:>4}  "
                f"{f['concrete']:>8}  {f['correct']:>7}  {f['wrong']:>5}  "
                f"{f['new_errors']:>10}  ({f['unmarked']})"
            )
        t = report["totals"][checker]
        out.append(
            f"{'total':<{width}}  {t['arrays']:>6}  {t['polymorphic']:>4}  "
            f"{t['concrete']:>8}  {t['correct']:>7}  {t['wrong']:>5}  "
            f"{t['new_errors']:>10}  ({t['unmarked']})"
        )
        out.append(
            f"coverage (correct / arrays): {percent(t['correct'], t['arrays'])}; "
            f"concrete: {percent(t['concrete'], t['arrays'])}; "
            f"wrong: {t['wrong']}; new errors: {t['new_errors']}"
        )
        if t["bugs"]:
            out.append(
                f"bugs caught (a new error on a line marked # BUG:): {t['caught']} of {t['bugs']}"
            )
        for rel, entry in files.items():
            for row in entry["sites"]:
                if row[checker]["verdict"] == "wrong":
                    out.append(
                        f"  WRONG {rel}:{row['line']} {row['name']}: static "
                        f"{row[checker]['type']}, runtime {', '.join(row['runtime'])}"
                    )
            for error in entry["new_errors"][checker]:
                message = " ".join(error["message"].split())
                out.append(f"  NEW ERROR {rel}:{error['line']}: {message} [{error['code']}]")
        out += _reason_lines(files, checker)
    return "\n".join(out)


def _reason_lines(files: dict[str, Any], checker: str) -> list[str]:
    """The reasons of the sites without a dtype (mypy's: the primer's classes), gaps listed."""
    from tools.primer.reasons import REASONS, is_gap  # not at the top: it imports this module

    reasons = [
        (rel, row, row[checker]["reason"])
        for rel, entry in files.items()
        for row in entry["sites"]
        if row[checker].get("reason")
    ]
    if not reasons:
        return []
    counts = Counter(reason.split(":", 1)[0] for _, _, reason in reasons)
    out = [
        "sites without a dtype, by reason (* a gap of the plugin): "
        + ", ".join(
            f"{key}{' *' if is_gap(key) else ''} {counts[key]}" for key in REASONS if counts[key]
        )
    ]
    for rel, row, reason in reasons:
        if is_gap(reason.split(":", 1)[0]):
            out.append(f"  * {rel}:{row['line']} {row['name']}  <- {reason}")
    return out


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("directory", nargs="?", type=Path, help="the corpus")
    parser.add_argument("--checker", choices=[*CHECKERS, "both"], default="both")
    parser.add_argument("--rules", default="jax", help="the plugin's rule set (default: jax)")
    parser.add_argument(
        "--stubs",
        type=Path,
        default=ROOT / "stubs",
        help="basedpyright's stubs directory (default: the checkout's stubs/)",
    )
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the details as JSON")
    parser.add_argument(
        "--timeout", type=float, default=120.0, help="seconds each program may run (default: 120)"
    )
    # The tracer's own mode: the tool runs itself in each program's subprocess.
    parser.add_argument("--trace", help=argparse.SUPPRESS)
    parser.add_argument("--trace-out", help=argparse.SUPPRESS)
    parser.add_argument("--trace-file", action="append", default=[], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.trace is None and args.directory is None:
        parser.error("the corpus directory is required")
    if args.directory is not None and not args.directory.is_dir():
        parser.error(f"not a directory: {args.directory}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the tool (or, with ``--trace``, one program under the tracer)."""
    args = parse_args(argv)
    if args.trace is not None:
        return trace_program(args.trace, args.trace_file or [args.trace], args.trace_out)
    checkers = CHECKERS if args.checker == "both" else (args.checker,)
    directory: Path = args.directory.resolve()
    report = measure(directory, checkers, args.rules, args.stubs.resolve(), args.timeout)
    report["directory"] = str(args.directory)
    print(render(report))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
