"""Running the primer over one project, and over many in parallel.

Per project, in its folder under the sources directory:

1. mypy without and with the plugin, cold (fresh cache directories) then warm
   (the caches kept), interleaved: plain cold, plugin cold, plain warm, plugin
   warm.  The cold runs' errors are compared (multisets of file, line, code,
   message): *added* errors are the plugin's, *removed* ones those it
   silences.  A warm run whose errors differ from its cold run's is noted (an
   incremental-mode bug).  INTERNAL ERRORs of any run are collected.
2. The coverage run (:mod:`tools.primer.sites`) on instrumented copies, with
   the plugin, and the ``run`` programs under the tracer when there are some.
3. basedpyright with the generated JAX stubs as its ``stubPath`` and without
   (an empty ``stubPath``); added and removed errors as for mypy.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Final

from tools.checkers.run import find_basedpyright
from tools.primer.checkers import (
    Diagnostic,
    InternalError,
    MypyRun,
    PyrightRun,
    Reworded,
    difference,
    mypy_batches,
    mypy_config,
    pair_reworded,
    run_dmypy,
    run_mypy,
    run_pyright,
    stop_dmypy,
)
from tools.primer.projects import MARKER, Project, module_name
from tools.primer.sites import SiteCounts, count_sites, judge_runtime

__all__ = [
    "CHECKERS",
    "MypyComparison",
    "Options",
    "ProjectResult",
    "PyrightComparison",
    "compile_plugin",
    "generate_stubs",
    "run_project",
    "run_projects",
    "warm_up",
]

CHECKERS: Final = ("mypy", "basedpyright")


@dataclass(frozen=True)
class Options:
    """How the primer runs: where things are, which checkers, which rules."""

    sources: Path
    python: str
    cache: Path
    checkers: tuple[str, ...] = CHECKERS
    rules: str = "jax"
    timeout: float = 3600.0
    run_timeout: float = 600.0
    stubs: Path | None = None
    """The generated JAX stubs (basedpyright's ``stubPath`` with them)."""
    stubs_failure: str | None = None
    errors_only: bool = False
    """mypy's cold runs alone (no warm runs, no coverage): what the plugin adds, fast."""
    mypy_flags: tuple[str, ...] = ()
    """Flags for every mypy run of a project (``--num-workers=2``, ``--native-parser``)."""
    modes: bool = False
    """Also dmypy (started, after an edit, after its undoing) and an incremental run after an
    edit, each compared with a cold run of the same configuration (``compare_modes``)."""
    coverage: bool = True
    """The coverage run (and the traced programs) after the timed runs, unless ``errors_only``."""
    repeat: int = 1
    """How many times mypy's four timed runs go, interleaved (each cold pair with fresh caches):
    the ratios are those of the best (least) times (``MypyComparison.cold_ratio``).  The errors
    are the first repetition's; a later one that reports others is noted (``repeat_differs``)."""
    serialize_timed: bool = True
    """Let one timed checker run (of any project) go at a time, the other jobs' untimed work
    (coverage runs, traced programs) beside it: the time ratios are then not skewed by two
    checkers sharing the machine's cores."""


@dataclass
class MypyComparison:
    """mypy with and without the plugin over one project."""

    plain_cold: MypyRun
    plugin_cold: MypyRun
    plain_warm: MypyRun | None
    plugin_warm: MypyRun | None
    """``None`` with ``errors_only``."""
    added: list[Diagnostic]
    removed: list[Diagnostic]
    reworded: list[Reworded]
    """The added errors that have a removed one at the same file, line and code."""
    internal: dict[str, InternalError]
    """The crashes, by run (``plugin cold``, …, ``sites``)."""
    failures: dict[str, str]
    warm_differs: list[str]
    """The configurations whose warm run reported other errors than their cold run."""
    cold_ratio: float | None
    warm_ratio: float | None
    """Ratios of processor time, with the plugin over without, each side's best (least) of the
    repetitions: other work on the machine only ever adds time (a third, at worst, to a cold
    run on these machines), so the least is the run it disturbed least (``timeit``'s reading);
    the wall clock's ratio, from the runs' ``seconds``, moves more."""
    cold_ratios: list[float] = field(default_factory=list[float])
    warm_ratios: list[float] = field(default_factory=list[float])
    """Each repetition's ratio (``Options.repeat``), in the order run: their spread is the
    noise the best times leave out."""
    repeat_differs: list[str] = field(default_factory=list[str])
    """The runs (``plugin cold``, …) whose later repetition reported other errors."""


@dataclass
class ModeRun:
    """One way of running mypy with the plugin: against the same way without it, and against
    the plugin's cold run of the same configuration."""

    label: str
    errors: int
    missing: list[str]
    """The errors of the cold run this run did not report (their lines, as mypy printed them)."""
    extra: list[str]
    """The errors this run reported that the cold run did not."""
    added: list[str] = field(default_factory=list[str])
    """The errors this run reported that the same way's run without the plugin did not."""
    plain_errors: int = 0
    """How many errors the same way's run without the plugin reported."""
    seconds: float = 0.0
    internal: InternalError | None = None
    failure: str | None = None


@dataclass
class PyrightComparison:
    """basedpyright with and without the JAX stubs over one project."""

    with_stubs: PyrightRun
    without_stubs: PyrightRun
    added: list[Diagnostic]
    removed: list[Diagnostic]
    reworded: list[Reworded]
    ratio: float | None


@dataclass
class ProjectResult:
    """Everything the primer found about one project."""

    project: Project
    problem: str | None = None
    """Why the project was not checked (its sources are missing, no file matched)."""
    files: int = 0
    missing_paths: list[str] = field(default_factory=list[str])
    notes: list[str] = field(default_factory=list[str])
    mypy: MypyComparison | None = None
    sites: SiteCounts | None = None
    pyright: PyrightComparison | None = None
    modes: list[ModeRun] = field(default_factory=list["ModeRun"])
    """``Options.modes``: dmypy's runs and an incremental run, each against a cold run."""
    seconds: float = 0.0

    def internal_errors(self) -> list[tuple[str, InternalError]]:
        """Return the distinct crashes (file, line, exception) with the first run that had each."""
        found: dict[tuple[str, int, str], tuple[str, InternalError]] = {}
        runs = dict(self.mypy.internal) if self.mypy else {}
        if self.sites and self.sites.internal:
            runs["sites"] = self.sites.internal
        for label, error in runs.items():
            found.setdefault((error.file, error.line, error.summary()), (label, error))
        return list(found.values())


def ratio(numerator: float, denominator: float) -> float | None:
    """Return ``numerator / denominator`` rounded, None when the denominator is 0."""
    return round(numerator / denominator, 3) if denominator > 0 else None


def _ratios(numerators: Sequence[float], denominators: Sequence[float]) -> list[float]:
    """Each repetition's ratio (the pairs that have a non-zero denominator)."""
    pairs = (ratio(n, d) for n, d in zip(numerators, denominators, strict=False))
    return [value for value in pairs if value is not None]


def _best_ratio(numerators: Sequence[float], denominators: Sequence[float]) -> float | None:
    """The ratio of the least of ``numerators`` over the least of ``denominators``."""
    if not numerators or not denominators:
        return None
    return ratio(min(numerators), min(denominators))


Log = Callable[[str], None]
_PRINT_LOCK = threading.Lock()
_TIMED_LOCK = threading.Lock()


@contextlib.contextmanager
def timed(options: Options) -> Iterator[None]:
    """Hold the lock of timed runs while one runs (unless ``serialize_timed`` is off)."""
    if not options.serialize_timed:
        yield
        return
    with _TIMED_LOCK:
        yield


def stderr_log(message: str) -> None:
    """Print a progress line on stderr (one at a time across threads)."""
    with _PRINT_LOCK:
        print(message, file=sys.stderr, flush=True)


def generate_stubs(python: str, rules: str, out: Path, timeout: float = 1800.0) -> str | None:
    """Write the JAX stubs of ``rules`` into ``out`` with ``python``; return why not, or None."""
    shutil.rmtree(out, ignore_errors=True)
    command = [python, "-m", "typing_pkg", "stubs", "--jax", "--rules", rules, "--out", str(out)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"stub generation timed out after {timeout:g} s"
    if done.returncode:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return f"stub generation failed (status {done.returncode}): " + " | ".join(tail)
    return None


def compare_mypy(
    project: Project,
    root: Path,
    batches: list[list[str]],
    files: Sequence[str],
    bases: Sequence[str],
    options: Options,
    log: Log,
) -> tuple[MypyComparison, SiteCounts | None]:
    """Run mypy's four timed runs and the coverage run over one project."""
    cache = options.cache / project.name
    cache.mkdir(parents=True, exist_ok=True)
    plain_config = cache / "mypy-plain.ini"
    plugin_config = cache / f"mypy-plugin-{options.rules}.ini"
    plain_config.write_text(mypy_config(False, options.rules), encoding="utf-8")
    plugin_config.write_text(mypy_config(True, options.rules), encoding="utf-8")
    plain_cache = cache / "mypy-plain"
    plugin_cache = cache / f"mypy-plugin-{options.rules}"
    shutil.rmtree(plain_cache, ignore_errors=True)
    shutil.rmtree(plugin_cache, ignore_errors=True)
    runs: dict[str, MypyRun] = {}
    timeout = options.timeout
    order = [
        ("plain cold", plain_config, plain_cache),
        ("plugin cold", plugin_config, plugin_cache),
        ("plain warm", plain_config, plain_cache),
        ("plugin warm", plugin_config, plugin_cache),
    ]
    stored = cache / "plain-errors.json"
    seconds: dict[str, list[float]] = {label: [] for label, _, _ in order}  # processor time
    repeat_differs: list[str] = []
    for repetition in range(1 if options.errors_only else max(options.repeat, 1)):
        if repetition:
            shutil.rmtree(plain_cache, ignore_errors=True)
            shutil.rmtree(plugin_cache, ignore_errors=True)
        for label, config, directory in order[:2] if options.errors_only else order:
            reused = (
                _stored_plain(stored, project, config, options.mypy_flags)
                if options.errors_only and label == "plain cold"
                else None
            )
            if reused is not None:
                runs[label] = reused
                log(
                    f"[{project.name}] mypy {label}: {len(reused.errors)} error(s), "
                    "stored by an earlier run"
                )
                continue
            with timed(options):
                run = run_mypy(
                    options.python,
                    root,
                    batches,
                    config,
                    directory,
                    timeout=timeout,
                    flags=options.mypy_flags,
                )
            seconds[label].append(run.cpu_seconds)
            state = (
                "INTERNAL ERROR" if run.internal else (run.failure or f"{len(run.errors)} error(s)")
            )
            which = f" (repetition {repetition + 1})" if repetition else ""
            log(f"[{project.name}] mypy {label}{which}: {run.seconds:.1f} s, {state}")
            if repetition:
                if (
                    sorted(d.key() for d in run.errors)
                    != sorted(d.key() for d in runs[label].errors)
                    and label not in repeat_differs
                ):
                    repeat_differs.append(label)
                continue
            runs[label] = run
            if label == "plain cold" and not (run.internal or run.failure):
                _store_plain(stored, project, config, options.mypy_flags, run)
    sites = None
    if options.coverage and not options.errors_only:
        sites = coverage(project, root, batches, files, bases, options, plugin_config, log)
    warm_differs = [
        configuration
        for configuration in ("plain", "plugin")
        if f"{configuration} warm" in runs
        and sorted(d.key() for d in runs[f"{configuration} cold"].errors)
        != sorted(d.key() for d in runs[f"{configuration} warm"].errors)
    ]
    added = difference(runs["plugin cold"].errors, runs["plain cold"].errors)
    removed = difference(runs["plain cold"].errors, runs["plugin cold"].errors)
    plain_warm, plugin_warm = runs.get("plain warm"), runs.get("plugin warm")
    # errors_only's stored plain run: its time, as it was stored
    plain_stored = [runs["plain cold"].cpu_seconds]
    cold_ratios = _ratios(seconds["plugin cold"], seconds["plain cold"] or plain_stored)
    warm_ratios = _ratios(seconds["plugin warm"], seconds["plain warm"])
    comparison = MypyComparison(
        plain_cold=runs["plain cold"],
        plugin_cold=runs["plugin cold"],
        plain_warm=plain_warm,
        plugin_warm=plugin_warm,
        added=added,
        removed=removed,
        reworded=pair_reworded(added, removed, runs["plain cold"].errors),
        internal={label: run.internal for label, run in runs.items() if run.internal},
        failures={label: run.failure for label, run in runs.items() if run.failure},
        warm_differs=warm_differs,
        cold_ratio=_best_ratio(seconds["plugin cold"], seconds["plain cold"] or plain_stored),
        warm_ratio=_best_ratio(seconds["plugin warm"], seconds["plain warm"]),
        cold_ratios=cold_ratios,
        warm_ratios=warm_ratios,
        repeat_differs=repeat_differs,
    )
    return comparison, sites


EDIT: Final = (
    "\n\n\ndef _typing_pkg_primer_edit(x: int) -> int:  # appended by the primer, then removed\n"
    "    return x + 1\n"
)
"""What the modes' edit appends to the project's first file: no error, no line moved."""


def compare_modes(
    project: Project,
    root: Path,
    batches: list[list[str]],
    cold: tuple[MypyRun, MypyRun],
    options: Options,
    log: Log,
) -> list[ModeRun]:
    """Run mypy with and without the plugin the other ways users run it.

    Each way's run with the plugin is compared with its run without (the
    errors the plugin adds there: the same as on a cold run, for the same
    answers) and with the plugin's cold run of its configuration (what that
    way of running changes by itself: dmypy's fine-grained updates drop some
    errors, with the plugin or without):

    * ``incremental after an edit``: the cold runs' caches kept (``cold``: the
      plain and the plugin's cold runs), the first file edited (``EDIT``
      appended), mypy again;
    * dmypy, with ``follow_imports = normal`` (it refuses ``silent``), against
      cold mypy runs of that configuration: ``dmypy started``, then ``dmypy
      after an edit`` (its fine-grained update) and ``dmypy after the edit is
      undone``.
    The edited file is restored whatever happens.
    """
    cache = options.cache / project.name
    flags, timeout, python = options.mypy_flags, options.timeout, options.python
    silent = {
        plugin: (cache / f"mypy-{name}.ini", cache / f"mypy-{name}")
        for plugin, name in ((False, "plain"), (True, f"plugin-{options.rules}"))
    }
    normal: dict[bool, tuple[Path, Path, Path]] = {}
    for plugin, name in ((False, "plain"), (True, f"plugin-{options.rules}")):
        config = cache / f"mypy-{name}-normal.ini"
        config.write_text(mypy_config(plugin, options.rules, "normal"), encoding="utf-8")
        normal[plugin] = (config, cache / f"mypy-{name}-normal", cache / f"dmypy-{name}")
        for directory in normal[plugin][1:]:
            shutil.rmtree(directory, ignore_errors=True)
            directory.mkdir(parents=True)
    edited = root / batches[0][0]
    original = edited.read_bytes()
    out: list[ModeRun] = []

    def record(label: str, runs: tuple[MypyRun, MypyRun], reference: MypyRun) -> None:
        plain, run = runs
        mode = ModeRun(
            label,
            len(run.errors),
            [d.text for d in difference(reference.errors, run.errors)],
            [d.text for d in difference(run.errors, reference.errors)],
            [d.text for d in difference(run.errors, plain.errors)],
            len(plain.errors),
            round(run.seconds, 1),
            run.internal or plain.internal,
            run.failure or plain.failure,
        )
        out.append(mode)
        state = "INTERNAL ERROR" if mode.internal else (mode.failure or f"{mode.errors} error(s)")
        log(
            f"[{project.name}] mypy {label}: {run.seconds:.1f} s, {state}, "
            f"{len(mode.added)} added, {len(mode.missing)} missing, {len(mode.extra)} extra"
        )

    def both(run: Callable[[bool], MypyRun]) -> tuple[MypyRun, MypyRun]:
        return run(False), run(True)

    def daemons() -> tuple[MypyRun, MypyRun]:
        return both(
            lambda plugin: run_dmypy(
                python, root, batches, normal[plugin][0], normal[plugin][2],
                timeout=timeout, flags=flags,
            )
        )  # fmt: skip

    references = both(
        lambda plugin: run_mypy(
            python, root, batches, normal[plugin][0], normal[plugin][1],
            timeout=timeout, flags=flags,
        )
    )  # fmt: skip
    reference = references[1]
    record("cold, follow_imports = normal (dmypy's reference)", references, reference)
    try:
        record("dmypy started", daemons(), reference)
        edited.write_bytes(original + EDIT.encode())
        record("dmypy after an edit", daemons(), reference)
        incremental = both(
            lambda plugin: run_mypy(
                python, root, batches, *silent[plugin], timeout=timeout, flags=flags
            )
        )
        record("incremental after an edit", incremental, cold[1])
        edited.write_bytes(original)
        record("dmypy after the edit is undone", daemons(), reference)
    finally:
        edited.write_bytes(original)
        for plugin in (False, True):
            stop_dmypy(python, root, batches, normal[plugin][2])
    return out


def _plain_key(project: Project, config: Path, flags: Sequence[str]) -> str:
    """What the plain run's errors depend on: the project's commit, paths, the configuration
    and mypy's flags."""
    return json.dumps(
        [
            project.commit,
            list(project.paths),
            list(project.exclude),
            config.read_text(encoding="utf-8"),
            list(flags),
        ]
    )


def _stored_plain(
    stored: Path, project: Project, config: Path, flags: Sequence[str]
) -> MypyRun | None:
    """The plain cold run an earlier ``errors_only`` run stored, if it still applies.

    mypy without the plugin gives the same errors whatever the plugin
    does: only ``errors_only`` reuses them (its time is not measured).
    """
    try:
        data = json.loads(stored.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != _plain_key(project, config, flags):
        return None
    errors = [Diagnostic(**fields) for fields in data["errors"]]
    return MypyRun(
        seconds=float(data["seconds"]),
        cpu_seconds=float(data.get("cpu_seconds", 0.0)),
        errors=errors,
    )


def _store_plain(
    stored: Path, project: Project, config: Path, flags: Sequence[str], run: MypyRun
) -> None:
    data = {
        "key": _plain_key(project, config, flags),
        "seconds": run.seconds,
        "cpu_seconds": run.cpu_seconds,
        "errors": [asdict(d) for d in run.errors],
    }
    stored.write_text(json.dumps(data), encoding="utf-8")


def coverage(
    project: Project,
    root: Path,
    batches: list[list[str]],
    files: Sequence[str],
    bases: Sequence[str],
    options: Options,
    plugin_config: Path,
    log: Log,
) -> SiteCounts:
    """The coverage run (and the traced programs' judgement) over one project."""
    cache = options.cache / project.name
    log(f"[{project.name}] mypy coverage run (instrumented copies, with the plugin)")
    sites, types = count_sites(
        options.python,
        root,
        files,
        batches,
        plugin_config,
        cache / f"mypy-sites-{options.rules}",
        cache / "instrumented",
        timeout=options.timeout,
    )
    log(
        f"[{project.name}] coverage: {sites.typed} typed of {sites.arrays} array-valued sites "
        f"({sites.seconds:.1f} s)"
    )
    if project.run:
        log(f"[{project.name}] running {len(project.run)} program(s) under the tracer")
        sites.runtime = judge_runtime(
            options.python, root, project.run, files, bases, types, timeout=options.run_timeout
        )
    return sites


def compare_pyright(
    project: Project, root: Path, files: Sequence[str], bases: Sequence[str], options: Options
) -> PyrightComparison:
    """Run basedpyright with the JAX stubs and without them over one project."""
    cache = options.cache / project.name
    exe = find_basedpyright(options.python)
    if exe is None or options.stubs is None:
        failure = options.stubs_failure or "basedpyright is not installed"
        failed = PyrightRun(failure=failure)
        return PyrightComparison(failed, failed, [], [], [], None)
    empty = cache / "pyright-no-stubs"
    shutil.rmtree(empty, ignore_errors=True)
    runs: dict[str, PyrightRun] = {}
    for label, stub_path in (("without", empty), ("with", options.stubs)):
        with timed(options):
            runs[label] = run_pyright(
                exe,
                options.python,
                root,
                files,
                bases,
                stub_path,
                cache / f"pyright-{label}",
                timeout=options.timeout,
            )
    with_stubs, without_stubs = runs["with"], runs["without"]
    added = difference(with_stubs.errors, without_stubs.errors)
    removed = difference(without_stubs.errors, with_stubs.errors)
    return PyrightComparison(
        with_stubs=with_stubs,
        without_stubs=without_stubs,
        added=added,
        removed=removed,
        reworded=pair_reworded(added, removed, without_stubs.errors),
        ratio=ratio(with_stubs.cpu_seconds, without_stubs.cpu_seconds),
    )


def run_project(project: Project, options: Options, log: Log = stderr_log) -> ProjectResult:
    """Run the primer over one project (a failure of the primer itself becomes its problem)."""
    start = time.perf_counter()
    try:
        return check_project(project, options, log)
    except Exception as exc:  # one project's surprise must not lose the others' results
        log(f"[{project.name}] the primer failed:\n{traceback.format_exc()}")
        result = ProjectResult(project, problem=f"the primer failed: {exc!r}")
        result.seconds = round(time.perf_counter() - start, 1)
        return result


def check_project(project: Project, options: Options, log: Log) -> ProjectResult:
    """Run the checkers over one project."""
    start = time.perf_counter()
    result = ProjectResult(project)
    root = options.sources / project.name
    if not root.is_dir():
        result.problem = f"no sources at {root} (python -m tools.primer prepare)"
        return result
    marker = root / MARKER
    if marker.is_file():
        exported = marker.read_text(encoding="utf-8").strip()
        if exported != project.commit:
            result.notes.append(f"the sources are at commit {exported}, not {project.commit}")
    files, result.missing_paths = project.files(root)
    result.files = len(files)
    if not files:
        result.problem = "no .py file in its paths"
        return result
    names = {rel: module_name(root, rel) for rel in files}
    batches = mypy_batches({rel: name for rel, (name, _) in names.items()})
    bases = sorted({base for _, base in names.values()})
    if len(batches) > 1:
        result.notes.append(f"mypy runs in {len(batches)} batches (files share module names)")
    log(f"[{project.name}] {len(files)} files")
    if "mypy" in options.checkers:
        result.mypy, result.sites = compare_mypy(project, root, batches, files, bases, options, log)
    if "mypy" in options.checkers and options.modes and result.mypy is not None:
        with timed(options):  # untimed, but heavy: not beside another project's timed run
            cold = (result.mypy.plain_cold, result.mypy.plugin_cold)
            result.modes = compare_modes(project, root, batches, cold, options, log)
    if "basedpyright" in options.checkers:
        result.pyright = compare_pyright(project, root, files, bases, options)
        log(
            f"[{project.name}] basedpyright: {result.pyright.with_stubs.seconds:.1f} s with the "
            f"stubs, {result.pyright.without_stubs.seconds:.1f} s without"
        )
    result.seconds = round(time.perf_counter() - start, 1)
    return result


WARM_UP_PROGRAM: Final = "import jax\nimport jax.numpy\nimport jax.random\nimport numpy\n"


COMPILE_PLUGIN: Final = (
    "import compileall, pathlib, sys, mypy_plugin, typing_pkg\n"
    "for package in (mypy_plugin, typing_pkg):\n"
    "    folder = pathlib.Path(package.__file__).parent\n"
    "    if not compileall.compile_dir(folder, quiet=1):\n"
    "        sys.exit(f'{folder}: does not compile')\n"
)


def compile_plugin(python: str, timeout: float = 300.0) -> str | None:
    """Write the plugin's bytecode where the checkers' ``python`` imports it from.

    pip writes an installed package's bytecode; a checkout on the path (the primer's
    pinned copy) has none where ``PYTHONDONTWRITEBYTECODE`` is set, and each mypy run
    would then compile the plugin from source (0.1 s: a tenth of a warm run).  Return
    why it failed, or None.
    """
    try:
        done = subprocess.run(  # from / : not the current directory's mypy_plugin
            [python, "-c", COMPILE_PLUGIN],
            capture_output=True,
            text=True,
            check=False,
            timeout=timeout,
            cwd="/",
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    return None if done.returncode == 0 else (done.stderr.strip() or f"status {done.returncode}")


def warm_up(options: Options, log: Log = stderr_log) -> None:
    """Run mypy with the plugin once, untimed, over a program importing JAX."""
    # The first checker run after a while reads JAX's and typeshed's files from the disk, the
    # next ones from memory: the warm-up pays for that, so that the first timed run (mypy
    # without the plugin) is not the slower for it.
    where = options.cache / "warm-up"
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    (where / "probe.py").write_text(WARM_UP_PROGRAM, encoding="utf-8")
    config = where / "mypy.ini"
    config.write_text(mypy_config(True, options.rules), encoding="utf-8")
    run = run_mypy(options.python, where, [["probe.py"]], config, where / "cache", timeout=900)
    state = run.failure or (run.internal and run.internal.summary()) or "done"
    log(f"warm-up (mypy over `import jax`): {run.seconds:.1f} s, {state}")


def run_projects(
    projects: Sequence[Project], options: Options, jobs: int, log: Log = stderr_log
) -> list[ProjectResult]:
    """Run the primer over the projects, ``jobs`` at a time; return the results in order."""
    if jobs <= 1 or len(projects) <= 1:
        return [run_project(project, options, log) for project in projects]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda project: run_project(project, options, log), projects))
