"""The docs' measured figures come from ``docs/measured.json``, and that file from the commands.

Every ``:measured:`KEY``` of ``docs/**/*.rst`` names an entry of the file
(``docs/_ext/measured_figures.py`` renders it), every entry has its value,
date and command and is shown somewhere, and ``tools/measured.py`` (what
``--record`` calls) keeps the other entries when it writes one.  No Sphinx build:
the Sphinx tests build the pages.
"""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path

import pytest

from tools import measured

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
ROLE = re.compile(r":measured:`([^`]*)`")


def _used() -> dict[str, list[str]]:
    """Each key the pages use, and where (``page:line``)."""
    used: dict[str, list[str]] = {}
    for page in sorted(DOCS.rglob("*.rst")):
        if "_build" in page.parts:
            continue
        lines = page.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, start=1):
            for key in ROLE.findall(line):
                used.setdefault(key.strip(), []).append(f"{page.relative_to(ROOT)}:{number}")
    return used


def test_the_pages_use_the_file() -> None:
    assert len(_used()) >= 50  # the benchmarks' and conformance figures, not a stray role


def test_every_key_the_docs_use_is_in_the_file() -> None:
    entries = measured.load()
    missing = [f"{where[0]}: {key}" for key, where in _used().items() if key not in entries]
    assert not missing, "not in docs/measured.json:\n" + "\n".join(missing)


def test_every_entry_is_complete() -> None:
    entries = measured.load()
    assert entries
    assert not measured.problems(entries)
    for key, entry in entries.items():
        assert re.fullmatch(r"[a-z][a-z0-9_]*(\.[a-z0-9_-]+)+", key), key
        assert entry["command"].startswith(".venv/bin/python "), key


def test_no_entry_is_unused() -> None:
    unused = sorted(set(measured.load()) - set(_used()))
    assert not unused, "shown on no page (use it or remove it): " + ", ".join(unused)


def test_the_file_is_written_as_record_writes_it() -> None:
    """Keys sorted, UTF-8 (``×``, not ``\\u00d7``): a recording is a small diff."""
    text = measured.MEASURED.read_text(encoding="utf-8")
    entries = json.loads(text)
    assert list(entries) == sorted(entries)
    assert "\\u" not in text and text.endswith("}\n")


def test_a_problem_is_found() -> None:
    entries = {
        "a.b": {"value": "1×", "date": "2026-11-31", "command": "x"},
        "a.c": {"value": "", "date": "2026-11-30", "command": "x", "by": "hand"},
    }
    assert measured.problems(entries) == [
        "a.b: date '2026-11-31' is not YYYY-MM-DD",
        "a.c: no value",
        "a.c: unknown field 'by'",
    ]


def test_record_round_trips(tmp_path: Path) -> None:
    """``record`` sets one entry (today, the checkout's commit) and keeps the others."""
    copy = tmp_path / "measured.json"
    copy.write_bytes(measured.MEASURED.read_bytes())
    before = measured.load(copy)
    key = next(iter(before))
    measured.record(key, "9.99×", ".venv/bin/python benchmarks/bench_x.py --repeat 3", path=copy)
    measured.record("bench_new.figure", "1.5 ms", ".venv/bin/python benchmarks/x.py", path=copy)
    after = measured.load(copy)
    assert set(after) == set(before) | {"bench_new.figure"}
    assert {k: v for k, v in after.items() if k not in (key, "bench_new.figure")} == {
        k: v for k, v in before.items() if k != key
    }
    entry = after[key]
    assert entry["value"] == "9.99×"
    assert entry["command"] == ".venv/bin/python benchmarks/bench_x.py --repeat 3"
    assert entry["date"] == datetime.date.today().isoformat()
    assert "note" not in entry  # a recorded entry was not seeded by hand
    assert entry.get("commit") == measured.commit()
    assert not measured.problems(after)
    # what record writes, dump writes again byte for byte
    text = copy.read_text(encoding="utf-8")
    measured.dump(after, copy)
    assert copy.read_text(encoding="utf-8") == text


def test_record_all_dates_every_figure_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "measured.json"  # no file yet: record makes it
    figures = {"bench_a.one": "1.0×", "bench_a.two": "2 ns"}
    measured.record_all(figures, ".venv/bin/python benchmarks/bench_a.py", path=path)
    entries = measured.load(path)
    assert {k: e["value"] for k, e in entries.items()} == figures
    assert len({(e["date"], e.get("commit")) for e in entries.values()}) == 1
    assert "recorded 2 figures" in capsys.readouterr().out


def test_the_command_is_the_docs_command() -> None:
    script = str(ROOT / "benchmarks" / "bench_stubs.py")
    command = measured.script_command(script, ["--floor", "--record", "--ops", "1000"])
    assert command == ".venv/bin/python benchmarks/bench_stubs.py --floor --ops 1000"
    module = measured.command_line(["-m", "tools.conformance.function_stubs"], ["--rules", "jax"])
    assert module == ".venv/bin/python -m tools.conformance.function_stubs --rules jax"


def test_the_tool_writes_the_keys_the_docs_show() -> None:
    """``function_stubs --record`` names its counts as the pyright page's roles do."""
    from collections import Counter

    from tools.conformance.function_compare import Verdict
    from tools.conformance.function_stubs import FAILING, figures

    verdict = Verdict(frozenset(FAILING), counts=Counter({"exact": 3, "not expressed": 2}))
    verdict.unexpressed.update({"refusal": 1, "function: several arrays": 1})
    found = figures("jax", "basedpyright", 5, verdict)
    assert found["function_stubs.jax.cells"] == "5"
    assert found["function_stubs.jax.reason.function_several_arrays"] == "1"
    assert found["function_stubs.jax.wrong_missed_false"] == "0"
    used = _used()
    shown = [k for k in used if k.startswith("function_stubs.jax.")]
    assert shown and all(k in found for k in shown), [k for k in shown if k not in found]
    assert "function_stubs.pyrefly.jax.exact" in figures("jax", "pyrefly", 5, verdict)
