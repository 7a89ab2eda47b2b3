"""Running mypy and basedpyright over a project, and reading what they say.

mypy runs as ``PYTHON -m mypy`` in the project's folder, on the checked files
(in batches when two files would have the same module name, which mypy
refuses), with a configuration written by :func:`mypy_config` and a cache
directory per configuration and batch.  Its output is read into
:class:`Diagnostic` rows (errors, and the notes where ``reveal_type`` is read)
and an :class:`InternalError` when it crashed (``--show-traceback``; mypy stops
at the first one).  basedpyright runs with a ``pyrightconfig.json`` written
outside the project: the checked files by absolute path, the project's package
roots as ``extraPaths``, a ``stubPath`` (the generated JAX stubs, or an empty
directory), ``typeCheckingMode = "standard"``, ``pythonVersion = "3.11"`` and
the primer's interpreter (``--pythonpath``).
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from tools.checkers.output import read_mypy
from tools.checkers.run import dmypy_command, mypy_command, timed_command

__all__ = [
    "Diagnostic",
    "InternalError",
    "MypyRun",
    "PyrightRun",
    "Reworded",
    "difference",
    "mypy_batches",
    "mypy_config",
    "pair_reworded",
    "parse_internal_error",
    "parse_mypy",
    "parse_pyright",
    "run_dmypy",
    "run_mypy",
    "run_pyright",
    "stop_dmypy",
]

TRACEBACK_LINES: Final = 8
"""How many of a crash's last traceback lines are kept."""

_INTERNAL: Final = re.compile(r"^(?P<file>[^:\n]+?):(?P<line>\d+):(?:\d+:)? error: INTERNAL ERROR")


@dataclass(frozen=True)
class Diagnostic:
    """One message of a checker: where, its code (mypy) or rule (pyright), and its text."""

    file: str
    line: int
    code: str
    message: str
    text: str
    """The whole line as the checker printed it (pyright's: rebuilt in mypy's layout)."""
    column: int = 0
    """1-based (mypy's with ``--show-column-numbers``, pyright's), 0 when not shown."""

    def key(self) -> tuple[str, int, str, str]:
        """Return what compares two runs' errors: file, line, code and message."""
        return (self.file, self.line, self.code, self.message)


def difference(ours: Sequence[Diagnostic], theirs: Sequence[Diagnostic]) -> list[Diagnostic]:
    """Return the diagnostics of ``ours`` not in ``theirs``, as multisets of their keys."""
    remaining = Counter(d.key() for d in theirs)
    left: list[Diagnostic] = []
    for diagnostic in ours:
        key = diagnostic.key()
        if remaining[key]:
            remaining[key] -= 1
        else:
            left.append(diagnostic)
    return left


@dataclass(frozen=True)
class Reworded:
    """An error both runs report at one place (file, line, code) in other words."""

    before: Diagnostic
    after: Diagnostic


def pair_reworded(
    added: Sequence[Diagnostic], removed: Sequence[Diagnostic], before: Sequence[Diagnostic] = ()
) -> list[Reworded]:
    """Pair each added error with the error it rewords, if any, the closest match first.

    1. a removed error at the same file, line and code;
    2. a removed error at the same file and line, another code (``x += y`` refused as
       ``[operator]`` without the plugin, as ``[arg-type]`` of ``Array.__iadd__`` with it);
    3. any error of ``before`` (the run without) at the same file, line and code: mypy
       reports a message once a line, and the plugin spells two operands' types apart
       (``P @ Array[Any]``, ``P @ Array[float32]``) where ``P @ Array`` was said once;
    4. pyright's ``No overloads for "log" match the provided arguments`` where ``before``
       refuses an argument ``in function "log"`` at the same line or one of the next
       ``_CALL_LINES`` (the summary is at the call, the refusal at the argument):
       pyright reports a refused call of an overloaded function twice (this summary,
       then the last overload's refusal), of JAX's plain function once.
    """
    by_code: dict[tuple[str, int, str], list[Diagnostic]] = {}
    by_line: dict[tuple[str, int], list[Diagnostic]] = {}
    for diagnostic in removed:
        by_code.setdefault((diagnostic.file, diagnostic.line, diagnostic.code), []).append(
            diagnostic
        )
        by_line.setdefault((diagnostic.file, diagnostic.line), []).append(diagnostic)
    places = {(d.file, d.line, d.code): d for d in before}
    calls: dict[tuple[str, int, str], Diagnostic] = {}
    for d in before:
        function = _IN_FUNCTION.search(d.message)
        if function is not None:
            calls.setdefault((d.file, d.line, function.group(1)), d)
    pairs: list[Reworded] = []
    left: list[Diagnostic] = []
    for diagnostic in added:
        candidates = by_code.get((diagnostic.file, diagnostic.line, diagnostic.code))
        if candidates:
            found = candidates.pop(0)
            by_line[(found.file, found.line)].remove(found)
            pairs.append(Reworded(found, diagnostic))
        else:
            left.append(diagnostic)
    for diagnostic in left:
        candidates = by_line.get((diagnostic.file, diagnostic.line))
        place = places.get((diagnostic.file, diagnostic.line, diagnostic.code))
        overloads = _NO_OVERLOADS.match(diagnostic.message)
        call = None
        if overloads is not None:
            lines = range(diagnostic.line, diagnostic.line + _CALL_LINES + 1)
            at = (calls.get((diagnostic.file, n, overloads.group(1))) for n in lines)
            call = next((d for d in at if d is not None), None)
        if candidates:
            pairs.append(Reworded(candidates.pop(0), diagnostic))
        elif place is not None:
            pairs.append(Reworded(place, diagnostic))
        elif call is not None:
            pairs.append(Reworded(call, diagnostic))
    return pairs


_CALL_LINES: Final = 20
_NO_OVERLOADS: Final = re.compile(r'No overloads for "([^"]+)" match the provided arguments')
_IN_FUNCTION: Final = re.compile(r'in function "([^"]+)"')


@dataclass(frozen=True)
class InternalError:
    """A crash of mypy: the file and line it was checking, and the traceback's last lines."""

    file: str
    line: int
    traceback: tuple[str, ...]

    def summary(self) -> str:
        """Return the exception's line (the traceback's last), or a placeholder."""
        return self.traceback[-1] if self.traceback else "(no traceback)"


def parse_mypy(output: str) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """Return the errors and the notes of mypy's output (an INTERNAL ERROR's line aside)."""
    errors: list[Diagnostic] = []
    notes: list[Diagnostic] = []
    for said in read_mypy(output):
        if said.severity == "error" and said.message.startswith("INTERNAL ERROR"):
            continue
        diagnostic = Diagnostic(
            file=said.file,
            line=said.line,
            code=said.code or ("note" if said.severity == "note" else "misc"),
            message=said.message,
            text=said.text,
            column=said.column or 0,
        )
        if said.severity == "error":
            errors.append(diagnostic)
        elif said.severity == "note":
            notes.append(diagnostic)
    return errors, notes


def parse_internal_error(output: str) -> InternalError | None:
    """Read mypy's crash from its output (stdout and stderr together), None if it did not crash."""
    # mypy prints FILE:LINE: error: INTERNAL ERROR -- … and, with --show-traceback, a
    # "Traceback (most recent call last):" ending in the exception's line; either may come first.
    lines = output.splitlines()
    where: re.Match[str] | None = None
    for raw in lines:
        where = _INTERNAL.match(raw)
        if where:
            break
    starts = [n for n, raw in enumerate(lines) if raw.startswith("Traceback (most recent call")]
    if where is None and not starts:
        return None
    tail: list[str] = []
    if starts:
        body: list[str] = []
        for raw in lines[starts[-1] + 1 :]:
            body.append(raw)
            if raw and not raw[0].isspace():  # the exception's line ends the traceback
                break
        tail = body[-TRACEBACK_LINES:]
    file, line = (where["file"], int(where["line"])) if where else ("", 0)
    return InternalError(file, line, tuple(tail))


def mypy_config(plugin: bool, rules: str, follow_imports: str = "silent") -> str:
    """Return the text of the mypy configuration with or without the plugin (``follow_imports
    = normal`` for dmypy, which refuses ``silent``)."""
    lines = ["[mypy]"]
    if plugin:
        lines.append("plugins = mypy_plugin")
    lines += [
        "check_untyped_defs = True",
        "ignore_missing_imports = True",
        f"follow_imports = {follow_imports}",
    ]
    if plugin:
        lines += ["", "[typing_pkg]", f"promotion = {rules}"]
    return "\n".join(lines) + "\n"


def mypy_batches(modules: dict[str, str]) -> list[list[str]]:
    """Split files (file → module name) so that no batch holds one module name twice."""
    batches: list[tuple[list[str], set[str]]] = []
    for rel, module in modules.items():
        for files, names in batches:
            if module not in names:
                files.append(rel)
                names.add(module)
                break
        else:
            batches.append(([rel], {module}))
    return [files for files, _ in batches]


@dataclass
class MypyRun:
    """One configuration's mypy run over a project (every batch)."""

    seconds: float = 0.0
    cpu_seconds: float = 0.0
    """Processor seconds (``tools.checkers.run.Ran.cpu_seconds``)."""
    errors: list[Diagnostic] = field(default_factory=list[Diagnostic])
    notes: list[Diagnostic] = field(default_factory=list[Diagnostic])
    internal: InternalError | None = None
    failure: str | None = None
    """Why the run did not complete (an exit status 2 that is no crash, a timeout)."""


def run_mypy(
    python: str,
    cwd: Path,
    batches: Sequence[Sequence[str]],
    config: Path,
    cache: Path,
    *,
    columns: bool = False,
    timeout: float = 3600.0,
    flags: Sequence[str] = (),
) -> MypyRun:
    """Run mypy on each batch of files in ``cwd`` with one configuration and cache directory
    (and ``flags``: ``--num-workers=2``, ``--native-parser``)."""
    run = MypyRun()
    for index, batch in enumerate(batches):
        arguments = _mypy_arguments(cwd, config, cache / f"batch-{index}", columns, flags)
        if not _run_batch(run, [*mypy_command(python), *arguments, *batch], cwd, "mypy", timeout):
            return run
    return run


def run_dmypy(
    python: str,
    cwd: Path,
    batches: Sequence[Sequence[str]],
    config: Path,
    cache: Path,
    *,
    timeout: float = 3600.0,
    flags: Sequence[str] = (),
) -> MypyRun:
    """``dmypy run`` on each batch, one daemon a batch (its status file in ``cache``), the
    daemons left running for the next call: the first call starts them, a later one is
    their incremental answer (``stop_dmypy`` stops them).  The configuration must follow
    imports ``normal`` (dmypy refuses ``silent``)."""
    run = MypyRun()
    for index, batch in enumerate(batches):
        status = cache / f"dmypy-{index}.json"
        arguments = _mypy_arguments(cwd, config, cache / f"batch-{index}", False, flags)
        command = [*dmypy_command(status, python), "run", "--"]
        if not _run_batch(run, [*command, *arguments, *batch], cwd, "dmypy", timeout):
            return run
    return run


def stop_dmypy(python: str, cwd: Path, batches: Sequence[Sequence[str]], cache: Path) -> None:
    """Stop the daemons ``run_dmypy`` started (``kill`` where ``stop`` does not answer)."""
    for index in range(len(batches)):
        status = cache / f"dmypy-{index}.json"
        if not status.is_file():
            continue
        for action in ("stop", "kill"):
            command = [*dmypy_command(status, python), action]
            try:
                done = subprocess.run(command, cwd=cwd, capture_output=True, timeout=120)
            except subprocess.TimeoutExpired:
                continue
            if done.returncode == 0:
                break


def _mypy_arguments(
    cwd: Path, config: Path, cache: Path, columns: bool, flags: Sequence[str]
) -> list[str]:
    return [
        "--config-file",
        str(config),
        "--cache-dir",
        str(cache),
        "--no-error-summary",
        "--show-error-codes",
        "--show-traceback",
        "--hide-error-context",
        "--no-pretty",
        "--no-color-output",
        "--show-column-numbers" if columns else "--hide-column-numbers",
        # A checkout whose top folder is a package (jax-md's __init__.py): module names
        # from the top folder, not from above it (mypy refuses "jax-md" as a package name).
        *(["--explicit-package-bases"] if (cwd / "__init__.py").is_file() else []),
        *flags,
    ]


def _run_batch(run: MypyRun, command: list[str], cwd: Path, what: str, timeout: float) -> bool:
    """Run one batch's command and add what it said to ``run``; False when it timed out."""
    done = timed_command(command, cwd, timeout)
    run.seconds += done.seconds
    run.cpu_seconds += done.cpu_seconds
    if done.timed_out:
        run.failure = f"{what} timed out after {timeout:g} s"
        return False
    errors, notes = parse_mypy(done.stdout)
    run.errors += errors
    run.notes += notes
    output = done.stdout + "\n" + done.stderr
    internal = parse_internal_error(output) if done.status not in (0, 1) else None
    if internal is not None:
        run.internal = run.internal or internal
    elif done.status not in (0, 1):
        tail = [line for line in output.strip().splitlines() if line.strip()][-5:]
        run.failure = run.failure or (
            f"{what} exited with status {done.status}: " + " | ".join(tail)
        )
    return True


@dataclass
class PyrightRun:
    """One basedpyright run over a project."""

    seconds: float = 0.0
    cpu_seconds: float = 0.0
    errors: list[Diagnostic] = field(default_factory=list[Diagnostic])
    failure: str | None = None


def pyright_config(
    root: Path, files: Sequence[str], extra_paths: Sequence[str], stub_path: Path
) -> dict[str, Any]:
    """Return the ``pyrightconfig.json`` of a run over ``files`` of the project at ``root``."""
    return {
        "include": [str(root / rel) for rel in files],
        "extraPaths": [str((root / base).resolve()) for base in extra_paths],
        "stubPath": str(stub_path),
        "typeCheckingMode": "standard",
        "pythonVersion": "3.11",
    }


def parse_pyright(report: str, root: Path) -> list[Diagnostic]:
    """Return the errors of basedpyright's JSON report, with paths relative to ``root``."""
    errors: list[Diagnostic] = []
    base = root.resolve()
    for diagnostic in json.loads(report).get("generalDiagnostics", []):
        if diagnostic.get("severity") != "error":
            continue
        path = Path(diagnostic.get("file", ""))
        try:
            rel = path.resolve().relative_to(base).as_posix()
        except ValueError:
            rel = str(path)
        start = diagnostic["range"]["start"]
        line, column = start["line"] + 1, start["character"] + 1
        message = diagnostic["message"]
        rule = diagnostic.get("rule", "error")
        flat = "; ".join(part.strip() for part in message.splitlines() if part.strip())
        text = f"{rel}:{line}:{column}: error: {flat}  [{rule}]"
        errors.append(Diagnostic(rel, line, rule, message, text, column))
    return errors


def run_pyright(
    exe: str,
    python: str,
    root: Path,
    files: Sequence[str],
    extra_paths: Sequence[str],
    stub_path: Path,
    where: Path,
    *,
    timeout: float = 3600.0,
) -> PyrightRun:
    """Run basedpyright over ``files`` of ``root`` with a configuration written in ``where``."""
    run = PyrightRun()
    where.mkdir(parents=True, exist_ok=True)
    stub_path.mkdir(parents=True, exist_ok=True)
    config = where / "pyrightconfig.json"
    config.write_text(
        json.dumps(pyright_config(root, files, extra_paths, stub_path), indent=1),
        encoding="utf-8",
    )
    command = [exe, "--project", str(config), "--pythonpath", python, "--outputjson"]
    done = timed_command(command, where, timeout)
    run.seconds, run.cpu_seconds = done.seconds, done.cpu_seconds
    if done.timed_out:
        run.failure = f"basedpyright timed out after {timeout:g} s"
        return run
    try:
        run.errors = parse_pyright(done.stdout, root)
    except (json.JSONDecodeError, KeyError, TypeError):
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        run.failure = f"basedpyright gave no report (status {done.status}): " + " | ".join(tail)
    return run
