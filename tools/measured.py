"""The figures the docs show, each with when and how it was measured: ``docs/measured.json``.

The docs never type a measured figure: ``:measured:`KEY``` (``docs/_ext/measured_figures.py``)
renders the entry ``KEY`` of ``docs/measured.json``, an object of entries::

    "bench_import.vs_numpy": {
      "value": "0.45–0.48×",               the figure as the docs show it
      "date": "2026-11-22",                the day it was measured (YYYY-MM-DD)
      "command": ".venv/bin/python benchmarks/bench_import.py",
      "commit": "714b7c8"                  the checkout measured (optional: when known)
    }

and an optional ``"note"`` (how an entry came to be, where its command did not
write it).  A benchmark (or tool) run with ``--record`` calls :func:`record_all`
with the figures it printed; without it nothing is written, so that a run on a
loaded machine never changes the docs behind anyone's back.  The file is
rewritten whole, keys sorted, so that a recording shows as a small diff.
"""

from __future__ import annotations

import datetime
import json
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
MEASURED: Final = ROOT / "docs" / "measured.json"
"""The measurement file the docs read."""
REQUIRED: Final = ("value", "date", "command")
"""What every entry holds; ``commit`` and ``note`` are optional."""
FIELDS: Final = (*REQUIRED, "commit", "note")
RECORD_HELP: Final = "write the figures the docs show into docs/measured.json (default: print only)"

Entry = dict[str, str]


def load(path: Path = MEASURED) -> dict[str, Entry]:
    """Return the entries of a measurement file (none if it does not exist)."""
    if not path.is_file():
        return {}
    entries: dict[str, Entry] = json.loads(path.read_text(encoding="utf-8"))
    return entries


def dump(entries: Mapping[str, Entry], path: Path = MEASURED) -> None:
    """Write ``entries`` to ``path``: keys sorted, one field a line, UTF-8 as the docs show it."""
    ordered = {
        key: {field: entries[key][field] for field in FIELDS if field in entries[key]}
        for key in sorted(entries)
    }
    text = json.dumps(ordered, indent=2, ensure_ascii=False)
    path.write_text(text + "\n", encoding="utf-8")


def problems(entries: Mapping[str, Entry]) -> list[str]:
    """What is wrong with the entries: a field missing or empty, an unknown field, a bad date."""
    found: list[str] = []
    for key, entry in entries.items():
        found += [f"{key}: no {field}" for field in REQUIRED if not entry.get(field)]
        found += [f"{key}: unknown field {field!r}" for field in entry if field not in FIELDS]
        try:
            datetime.date.fromisoformat(entry.get("date", ""))
        except ValueError:
            found.append(f"{key}: date {entry.get('date')!r} is not YYYY-MM-DD")
    return found


def commit() -> str | None:
    """The short hash of the checkout's ``HEAD``, or ``None`` outside a git checkout.

    ``+dirty`` follows it when a tracked file other than the measurement file
    differs from ``HEAD``: what was measured is then no commit.
    """
    head = _git("rev-parse", "--short", "HEAD")
    if not head:
        return None
    exclude = f":(exclude){MEASURED.relative_to(ROOT).as_posix()}"
    changed = _git("status", "--porcelain", "--untracked-files=no", "--", ".", exclude)
    return head + ("+dirty" if changed else "")


def _git(*arguments: str) -> str | None:
    """What a git command prints, stripped (``None`` when it fails or git is missing)."""
    try:
        done = subprocess.run(["git", *arguments], cwd=ROOT, capture_output=True, text=True)
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def record(
    key: str,
    value: str,
    command: str,
    *,
    path: Path = MEASURED,
    date: datetime.date | None = None,
    at: str | None = None,
) -> None:
    """Set the figure ``key`` to ``value``, measured today by ``command`` at ``HEAD``.

    The file is updated in place: the other entries are kept.  ``date`` and
    ``at`` (a commit) replace today and ``HEAD``.
    """
    _write({key: value}, command, path, date, at)


def record_all(figures: Mapping[str, str], command: str, *, path: Path = MEASURED) -> None:
    """Record each ``key: value`` of ``figures`` (one date and commit for all) and say so."""
    _write(figures, command, path, None, None)
    print(f"recorded {len(figures)} figures in {_shown(path)}: {', '.join(figures)}")


def _write(
    figures: Mapping[str, str],
    command: str,
    path: Path,
    date: datetime.date | None,
    at: str | None,
) -> None:
    """Set each figure of ``figures`` in the file at ``path`` (read and written once)."""
    entries = load(path)
    day = (date or datetime.date.today()).isoformat()
    measured_at = at if at is not None else commit()
    for key, value in figures.items():
        entry: Entry = {"value": value, "date": day, "command": command}
        if measured_at:
            entry["commit"] = measured_at
        entries[key] = entry
    dump(entries, path)


def command_line(program: Sequence[str], argv: Sequence[str] | None = None) -> str:
    """The command as the docs name it: ``.venv/bin/python PROGRAM ARGS``.

    ``program`` is what follows the interpreter (``["benchmarks/bench_import.py"]``,
    ``["-m", "tools.conformance.function_stubs"]``); ``argv`` (default: this
    process's arguments) is given without ``--record``.
    """
    arguments = [a for a in (sys.argv[1:] if argv is None else argv) if a != "--record"]
    return shlex.join([".venv/bin/python", *program, *arguments])


def script_command(script: str, argv: Sequence[str] | None = None) -> str:
    """:func:`command_line` of a script of the checkout (``__file__`` of a benchmark)."""
    return command_line([Path(script).resolve().relative_to(ROOT).as_posix()], argv)


def _shown(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
