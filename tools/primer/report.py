"""The primer's report: a line per project, then each project's details; and its JSON.

The table's columns: the project, its kind and lines (from ``projects.toml``),
mypy's INTERNAL ERRORs, the errors the plugin adds (mypy) and the JAX stubs
add (basedpyright), the array-valued sites and the typed ones (one concrete
dtype), mypy's time with the plugin over its time without, cold and warm, and
basedpyright's with the stubs over without.  ``-`` marks a figure not
measured, ``?`` one a failed run left unknown, ``12?`` a count from a run that
stopped early (an INTERNAL ERROR).

In the details, ``+`` is an added error, ``-`` a removed one, and ``~ -`` /
``~ +`` an error of the run without, reworded (``checkers.pair_reworded``: a
plugin that spells ``jax.Array`` as ``Array[Any]`` rewords the messages that
name it).  The table's ``+mypy`` and ``+pyright`` count the added errors that
are not rewordings: an error at a line where the run without the plugin or
stubs reports none, or none with its code; ``known`` counts those of mypy's
that ``projects.toml`` lists as no defect of the plugin (a real bug of the
project, or one that follows an error mypy reports without the plugin), which
``+mypy`` leaves out (and ``+pyright`` those of basedpyright's, listed with its
rule as their code).  In the details they read ``+ [real bug]`` with the why.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from tools.primer.checkers import Diagnostic, MypyRun, PyrightRun, Reworded
from tools.primer.projects import Known, Project
from tools.primer.reasons import REASONS, is_gap
from tools.primer.runner import ProjectResult

__all__ = ["render", "summary_rows", "to_json"]

COLUMNS = (
    "project",
    "kind",
    "lines",
    "internal",
    "+mypy",
    "known",
    "+pyright",
    "sites",
    "typed",
    "cold",
    "warm",
    "pyright",
)
_TOP_UNTYPED = 5
_TOP_GAPS = 12
_KIND_WIDTH = 24


def _ratio(value: float | None) -> str:
    return "?" if value is None else f"{value:.2f}x"


def _times(plugin: MypyRun | PyrightRun, plain: MypyRun | PyrightRun) -> str:
    """Processor seconds with/without, the wall clock's beside them (the first repetition's)."""
    return (
        f"{plugin.cpu_seconds:.1f}/{plain.cpu_seconds:.1f} s "
        f"(wall {plugin.seconds:.1f}/{plain.seconds:.1f} s)"
    )


def _ratios(best: float | None, each: list[float]) -> str:
    """The ratio of the best times, with the repetitions' own ratios when there were several."""
    if len(each) < 2:
        return _ratio(best)
    middle = statistics.median(each)
    return (
        f"{_ratio(best)}, best of {len(each)}; each repetition's {min(each):.2f}-{max(each):.2f},"
        f" median {middle:.2f}"
    )


def _known(project: Project, diagnostic: Diagnostic) -> Known | None:
    """The entry of ``projects.toml`` that lists an added error, if one does."""
    for known in project.known:
        if known.matches(diagnostic.file, diagnostic.line, diagnostic.code):
            return known
    return None


def _new(project: Project, added: Sequence[Diagnostic], reworded: Sequence[Reworded]) -> int:
    """How many added errors are neither rewordings nor known."""
    after = {id(pair.after) for pair in reworded}
    return sum(1 for d in added if id(d) not in after and _known(project, d) is None)


def summary_rows(results: Sequence[ProjectResult]) -> list[list[str]]:
    """Return the table's cells: one row per project, in the order of :data:`COLUMNS`."""
    rows: list[list[str]] = []
    for result in results:
        project = result.project
        kind = project.kind if len(project.kind) <= _KIND_WIDTH else project.kind[:21] + "..."
        row = [project.name, kind, str(project.lines)]
        if result.problem is not None:
            rows.append(row + ["-"] * (len(COLUMNS) - len(row)))
            continue
        mypy, sites, pyright = result.mypy, result.sites, result.pyright
        row.append(str(len(result.internal_errors())) if mypy else "-")
        if mypy is None:
            row += ["-", "-"]
        else:
            partial = mypy.plugin_cold.internal or mypy.plugin_cold.failure
            partial = partial or mypy.plain_cold.internal or mypy.plain_cold.failure
            new = _new(project, mypy.added, mypy.reworded)
            known = len(mypy.added) - len(mypy.reworded) - new
            row += [f"{new}?" if partial else str(new), str(known)]
        if pyright is None:
            row.append("-")
        elif pyright.with_stubs.failure or pyright.without_stubs.failure:
            row.append("?")
        else:
            row.append(str(_new(project, pyright.added, pyright.reworded)))
        if sites is None:
            row += ["-", "-"]
        else:
            row += [str(sites.arrays), str(sites.typed)]
        row += [_ratio(mypy.cold_ratio), _ratio(mypy.warm_ratio)] if mypy else ["-", "-"]
        row.append("-" if pyright is None else _ratio(pyright.ratio))
        rows.append(row)
    return rows


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [list(COLUMNS), *rows]) for i in range(len(COLUMNS))]
    out: list[str] = []
    for row in [list(COLUMNS), *rows]:
        cells = [
            cell.ljust(width) if index < 2 else cell.rjust(width)
            for index, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        out.append("  ".join(cells).rstrip())
    return out


def _errors(count: int) -> str:
    return f"{count} error" + ("" if count == 1 else "s")


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def _changes(
    added: Sequence[Diagnostic],
    removed: Sequence[Diagnostic],
    reworded: Sequence[Reworded],
    project: Project | None = None,
) -> list[str]:
    """Return the lines of the added errors (+, with what ``project`` knows of them), the
    reworded ones (~ -, ~ +), the removed (-)."""
    after = {id(pair.after) for pair in reworded}
    before = {id(pair.before) for pair in reworded}
    out: list[str] = []
    for d in added:
        if id(d) in after:
            continue
        known = None if project is None else _known(project, d)
        if known is None:
            out.append(f"    + {d.text}")
        else:
            out += [f"    + [{known.kind}] {d.text}", f"        why: {known.why}"]
    for pair in reworded:
        out += [f"    ~ - {pair.before.text}", f"    ~ + {pair.after.text}"]
    out += [f"    - {d.text}" for d in removed if id(d) not in before]
    return out


def _details(result: ProjectResult) -> list[str]:
    project = result.project
    out = [
        f"== {project.name} ({project.repo} @ {project.commit[:12]}; {project.kind}; "
        f"{project.lines} lines, {result.files} files; {result.seconds} s)"
    ]
    if result.problem is not None:
        out.append(f"  not checked: {result.problem}")
        return out
    out += [f"  note: {note}" for note in result.notes]
    out += [f"  missing path: {path}" for path in result.missing_paths]
    for label, error in result.internal_errors():
        where = f"{error.file}:{error.line}" if error.file else "(file unknown)"
        out.append(f"  INTERNAL ERROR ({label} run) while checking {where}:")
        out += [f"      {line}" for line in error.traceback]
    mypy = result.mypy
    if mypy is not None:
        for label, failure in mypy.failures.items():
            out.append(f"  mypy {label} failed: {failure}")
        out.append(
            f"  mypy: {_errors(len(mypy.plain_cold.errors))} without the plugin, "
            f"{len(mypy.plugin_cold.errors)} with: {len(mypy.added)} added "
            f"({len(mypy.reworded)} reworded), {len(mypy.removed)} removed; processor time "
            f"with/without cold {_times(mypy.plugin_cold, mypy.plain_cold)} "
            f"({_ratios(mypy.cold_ratio, mypy.cold_ratios)})"
            + (
                f", warm {_times(mypy.plugin_warm, mypy.plain_warm)} "
                f"({_ratios(mypy.warm_ratio, mypy.warm_ratios)})"
                if mypy.plugin_warm and mypy.plain_warm
                else ""
            )
        )
        for label in mypy.repeat_differs:
            out.append(f"  mypy {label}: a later repetition reported other errors")
        for configuration in mypy.warm_differs:
            out.append(f"  mypy {configuration}: the warm run's errors differ from the cold run's")
        out += _changes(mypy.added, mypy.removed, mypy.reworded, project)
    for mode in result.modes:
        state = "INTERNAL ERROR" if mode.internal else (mode.failure or _errors(mode.errors))
        out.append(
            f"  mypy {mode.label}: {state} ({mode.plain_errors} without the plugin: "
            f"{len(mode.added)} added), {mode.seconds:.1f} s; against the plugin's cold run "
            f"{len(mode.missing)} missing, {len(mode.extra)} extra"
        )
        out += [f"    + {text}" for text in mode.added]
    sites = result.sites
    if sites is not None:
        if sites.internal is None and sites.failure:
            out.append(f"  coverage run failed: {sites.failure}")
        dtypes = ", ".join(f"{name} {count}" for name, count in sites.dtypes.items())
        out.append(
            f"  coverage: {sites.sites} sites, {sites.revealed} revealed, {sites.arrays} "
            f"array-valued, {sites.typed} typed ({_percent(sites.typed, sites.arrays)})"
            + (f": {dtypes}" if dtypes else "")
        )
        if sites.untyped:
            top = list(sites.untyped.items())[:_TOP_UNTYPED]
            out.append("  untyped array sites, most frequent types:")
            out += [f"    {count:>5}  {text}" for text, count in top]
        if sites.reasons:
            out.append("  untyped array sites, by reason (* a gap of the plugin):")
            out += [
                f"    {count:>5}  {key}{' *' if is_gap(key) else ''}"
                for key, count in sites.reasons.items()
            ]
            gaps = [
                f"{rel}:{where.split(':', 1)[0]} {where.split(':', 1)[1]}  <- {cause}"
                for rel, by_site in sites.causes.items()
                for where, cause in by_site.items()
                if is_gap(cause.split(":", 1)[0])
            ]
            out += [f"    * {gap}" for gap in gaps[:_TOP_GAPS]]
            if len(gaps) > _TOP_GAPS:
                out.append(f"    * … and {len(gaps) - _TOP_GAPS} more (the JSON has each site's)")
        out += [f"  not instrumented: {reason}" for reason in sites.unparsable]
        runtime = sites.runtime
        if runtime is not None:
            out.append(
                f"  runtime: {runtime.observed} array-valued sites executed, "
                f"{runtime.correct} typed correctly, {runtime.wrong} wrong, "
                f"{runtime.observed - runtime.correct - runtime.wrong} untyped"
            )
            out += [f"    program {name} failed: {why}" for name, why in runtime.failures.items()]
            out += [f"    WRONG {site}" for site in runtime.wrong_sites]
    pyright = result.pyright
    if pyright is not None:
        for label, run in (("with", pyright.with_stubs), ("without", pyright.without_stubs)):
            if run.failure:
                out.append(f"  basedpyright {label} the stubs failed: {run.failure}")
        out.append(
            f"  basedpyright: {_errors(len(pyright.without_stubs.errors))} without the JAX stubs, "
            f"{len(pyright.with_stubs.errors)} with: {len(pyright.added)} added "
            f"({len(pyright.reworded)} reworded), {len(pyright.removed)} removed; "
            f"processor time with/without {_times(pyright.with_stubs, pyright.without_stubs)} "
            f"({_ratio(pyright.ratio)})"
        )
        out += _changes(pyright.added, pyright.removed, pyright.reworded, project)
    return out


def reasons_table(results: Sequence[ProjectResult]) -> list[str]:
    """Each reason class with its untyped array sites over the projects measured (none: [])."""
    measured = [r.sites for r in results if r.sites is not None and r.sites.arrays]
    if not measured:
        return []
    arrays = sum(s.arrays for s in measured)
    typed = sum(s.typed for s in measured)
    out = [
        "",
        f"Array-valued sites of the {len(measured)} projects measured: {arrays}, "
        f"typed {typed} ({_percent(typed, arrays)}); the untyped, by reason:",
    ]
    for key, reason in REASONS.items():
        count = sum(s.reasons.get(key, 0) for s in measured)
        gap = "gap" if reason.gap else "   "
        out.append(f"  {count:>6}  {gap}  {key:<16} {reason.text}")
    return out


def render(results: Sequence[ProjectResult], header: Sequence[str] = ()) -> str:
    """Return the report as text: the header lines, the table, the untyped sites' reasons,
    then each project's details."""
    out = [*header, *_table(summary_rows(results)), *reasons_table(results)]
    for result in results:
        out.append("")
        out += _details(result)
    return "\n".join(out) + "\n"


def to_json(results: Sequence[ProjectResult], meta: dict[str, Any]) -> dict[str, Any]:
    """Return everything as JSON-ready data: ``meta``, the table, and each project's runs."""
    return {
        "meta": meta,
        "columns": list(COLUMNS),
        "table": summary_rows(results),
        "projects": [asdict(result) for result in results],
    }
