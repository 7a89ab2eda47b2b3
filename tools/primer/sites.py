"""Coverage: how many array-valued assignment sites of a project mypy types with one dtype.

The checked files are instrumented by ``tools/corpus_coverage.py``'s
:func:`~tools.corpus_coverage.instrument` (``reveal_type(name)`` after each
statement binding a name) in a tree mirroring the project (its other ``.py``
and ``.pyi`` files copied as they are, so imports between its modules
resolve), and mypy runs there with the plugin and column numbers.  A site is
*array-valued* when its revealed type is an array (:func:`is_array_type`:
``typing_pkg.typing.Array[…]``, ``jax.Array``, JAX's internal array and
tracer classes, NumPy's ``ndarray``, optionally ``| None``) and *typed* when
that type names one concrete dtype (:func:`~tools.corpus_coverage.static_dtype`).

No runtime is needed for these figures, so they say how much is typed, not
whether it is right.  A project whose ``run`` key names programs has them run
under corpus_coverage's tracer (:func:`~tools.corpus_coverage.trace_program`,
JAX on CPU, x64 off): each typed site the programs execute is then judged
*correct* or *wrong* against the dtypes it held.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from tools.checkers.output import revealed_by_mypy
from tools.corpus_coverage import (
    Instrumented,
    Site,
    instrument,
    program_env,
    read_reveal,
    static_dtype,
    trace_command,
    verdict,
)
from tools.primer.checkers import InternalError, run_mypy
from tools.primer.reasons import classify, tally

__all__ = [
    "REVEALED",
    "RuntimeJudgement",
    "SiteCounts",
    "count_sites",
    "is_array_type",
    "judge_runtime",
    "mirror_tree",
]

REVEALED: Final = "revealed.json"
"""The file, in a project's cache folder, of every site's revealed type (``python -m
tools.primer.reasons`` classifies them again without mypy)."""
_ARRAY_HEAD: Final = re.compile(
    r"^(?:typing_pkg\.typing\.(?:Inferred)?Array|jax\.Array"
    r"|jax\._src(?:\.\w+)*\.(?:Array|ArrayImpl|Tracer)"
    r"|jaxlib(?:\.\w+)*\.ArrayImpl|jax\.core\.Tracer|numpy\.ndarray|(?:Inferred)?Array|ndarray)(?:\[|$)"
)
"""The revealed types that are arrays: our ``Array``, JAX's and NumPy's."""


def split_union(type_text: str) -> list[str]:
    """Return the members of a revealed type's top-level union (the type itself if none)."""
    members: list[str] = []
    depth = start = 0
    for index, char in enumerate(type_text):
        depth += (char in "[(") - (char in "])")
        if char == "|" and depth == 0:
            members.append(type_text[start:index].strip())
            start = index + 1
    members.append(type_text[start:].strip())
    return members


def is_array_type(type_text: str) -> bool:
    """Tell whether a revealed type is an array (each union member but ``None`` one)."""
    members = [m for m in split_union(type_text) if m != "None"]
    return bool(members) and all(_ARRAY_HEAD.match(m) for m in members)


@dataclass
class RuntimeJudgement:
    """What the ``run`` programs showed of the typed sites."""

    programs: dict[str, int] = field(default_factory=dict[str, int])
    """Each program's exit status (-1: timed out)."""
    failures: dict[str, str] = field(default_factory=dict[str, str])
    observed: int = 0
    """Array-valued sites (by the checker) that a program executed with an array."""
    correct: int = 0
    wrong: int = 0
    wrong_sites: list[str] = field(default_factory=list[str])


@dataclass
class SiteCounts:
    """The coverage figures of a project."""

    sites: int = 0
    """Assignment sites instrumented."""
    revealed: int = 0
    """Sites whose type mypy revealed (code it checks: not unreachable)."""
    arrays: int = 0
    typed: int = 0
    dtypes: dict[str, int] = field(default_factory=dict[str, int])
    """How many typed sites hold each dtype."""
    untyped: dict[str, int] = field(default_factory=dict[str, int])
    """The revealed types of the array-valued sites without one dtype, most frequent first."""
    unparsable: list[str] = field(default_factory=list[str])
    seconds: float = 0.0
    internal: InternalError | None = None
    failure: str | None = None
    runtime: RuntimeJudgement | None = None
    types: dict[str, dict[str, str]] = field(default_factory=dict[str, dict[str, str]])
    """Each array-valued site's revealed type: file → ``"line:name"`` → type."""
    reasons: dict[str, int] = field(default_factory=dict[str, int])
    """How many untyped array sites each reason class holds (``reasons.REASONS``)."""
    causes: dict[str, dict[str, str]] = field(default_factory=dict[str, dict[str, str]])
    """Each untyped array site's cause: file → ``"line:name"`` → ``"class: detail"``."""


def mirror_tree(root: Path, where: Path) -> None:
    """Copy the ``.py`` and ``.pyi`` files of ``root`` to ``where`` (emptied first)."""
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__pycache__"]
        rel = Path(directory).relative_to(root)
        for name in filenames:
            if name.endswith((".py", ".pyi")):
                target = where / rel / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(directory) / name, target)


def count_sites(
    python: str,
    root: Path,
    files: Sequence[str],
    batches: Sequence[Sequence[str]],
    config: Path,
    cache: Path,
    where: Path,
    *,
    timeout: float = 3600.0,
) -> tuple[SiteCounts, dict[str, dict[Site, str]]]:
    """Count the typed sites of ``files`` revealed in a mirror of ``root``; return their types."""
    counts = SiteCounts()
    mirror_tree(root, where)
    copies: dict[str, Instrumented] = {}
    for rel in files:
        try:
            source = (root / rel).read_text(encoding="utf-8")
            copy = instrument(source)
        except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
            counts.unparsable.append(f"{rel}: {exc}")
            continue
        copies[rel] = copy
        counts.sites += len(set(copy.reveals.values()))
        (where / rel).write_text(copy.text, encoding="utf-8")
    kept = [[rel for rel in batch if rel in copies] for batch in batches]
    kept = [batch for batch in kept if batch]
    started = time.perf_counter()
    run = run_mypy(python, where, kept, config, cache, columns=True, timeout=timeout)
    counts.seconds = time.perf_counter() - started
    counts.internal, counts.failure = run.internal, run.failure
    types: dict[str, dict[Site, str]] = {}
    for note in run.notes:
        revealed = revealed_by_mypy(note.message)
        if revealed and note.file in copies and note.column:
            read_reveal(copies, note.file, note.line, note.column - 1, revealed, types)
    dtypes: Counter[str] = Counter()
    untyped: Counter[str] = Counter()
    for rel, by_site in types.items():
        for site, text in by_site.items():
            counts.revealed += 1
            if not is_array_type(text):
                continue
            counts.arrays += 1
            counts.types.setdefault(rel, {})[f"{site.line}:{site.name}"] = text
            dtype = static_dtype(text)
            if dtype is None:
                untyped[text] += 1
            else:
                counts.typed += 1
                dtypes[dtype] += 1
    counts.dtypes = dict(dtypes.most_common())
    counts.untyped = dict(untyped.most_common())
    every = {rel: {f"{s.line}:{s.name}": t for s, t in by.items()} for rel, by in types.items()}
    (where.parent / REVEALED).write_text(json.dumps(every), encoding="utf-8")
    causes = classify(root, types, python=python)
    counts.reasons = tally(causes)
    counts.causes = {
        rel: {f"{site.line}:{site.name}": str(cause) for site, cause in sorted(by_site.items())}
        for rel, by_site in sorted(causes.items())
    }
    return counts, types


def import_roots(root: Path, bases: Sequence[str]) -> list[str]:
    """Return the directories a project's programs import its modules from."""
    return list(dict.fromkeys(str((root / base).resolve()) for base in bases))


def judge_runtime(
    python: str,
    root: Path,
    programs: Sequence[str],
    files: Sequence[str],
    bases: Sequence[str],
    types: dict[str, dict[Site, str]],
    *,
    timeout: float = 600.0,
) -> RuntimeJudgement:
    """Run ``programs`` under the tracer and judge the typed sites they execute."""
    judgement = RuntimeJudgement()
    observed: dict[str, dict[Site, set[tuple[str, bool]]]] = {}
    env = program_env()
    env["PYTHONPATH"] = os.pathsep.join([*import_roots(root, bases), env.get("PYTHONPATH", "")])
    real_root = root.resolve()
    traced = [(root / rel).resolve() for rel in files]
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "observed.json"
        for program in programs:
            path = (root / program).resolve()
            out.unlink(missing_ok=True)
            command = trace_command(python, path, out, traced)
            try:
                done = subprocess.run(
                    command,
                    cwd=path.parent,
                    capture_output=True,
                    text=True,
                    check=False,
                    env=env,
                    timeout=timeout,
                )
                judgement.programs[program] = done.returncode
                if done.returncode:
                    tail = (done.stdout + done.stderr).strip().splitlines()[-1:]
                    judgement.failures[program] = " ".join(tail)
            except subprocess.TimeoutExpired:
                judgement.programs[program] = -1
                judgement.failures[program] = f"timed out after {timeout:g} s"
            if not out.exists():
                continue
            for file, rows in json.loads(out.read_text(encoding="utf-8")).items():
                if not Path(file).is_relative_to(real_root):
                    continue
                rel = Path(file).relative_to(real_root).as_posix()
                for line, name, dtype, weak in rows:
                    sites = observed.setdefault(rel, {})
                    sites.setdefault(Site(line, name), set()).add((dtype, weak))
    for rel, by_site in sorted(observed.items()):
        for site, found in sorted(by_site.items()):
            text = types.get(rel, {}).get(site)
            if text is None or not is_array_type(text):
                continue
            judgement.observed += 1
            result = verdict(static_dtype(text), sorted(found))
            judgement.correct += result == "correct"
            if result == "wrong":
                judgement.wrong += 1
                runtime = ", ".join(sorted({d + (" (weak)" if w else "") for d, w in found}))
                judgement.wrong_sites.append(
                    f"{rel}:{site.line} {site.name}: static {text}, runtime {runtime}"
                )
    return judgement
