"""The docs' shell examples run: every ``$ typing-pkg …`` line prints what the page shows.

Console blocks in ``docs/**/*.rst`` (``.. code-block:: console``) and in the
README (fenced ``console``) list commands after ``$ `` and their output below
them.  ``typing-pkg`` commands are run here and their output (standard output,
then standard error) compared line by line; other commands are set-up or
measurement steps listed in ``NOT_RUN``, which other tests or CI cover.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

NOT_RUN = (
    "python3 -m venv .venv",  # installing: what CI and the README's commands do
    ".venv/bin/pip install",
    "bash .ci/run",
    ".venv/bin/python benchmarks/",  # measurements: docs/performance.rst
    ".venv/bin/python tools/conformance_report.py",  # its counts: the conformance-report directive
    ".venv/bin/python examples/check.py",  # tests/docs/test_plugin_examples.py
    ".venv/bin/mypy",
    ".venv/bin/python -m tools.primer",  # hours over public projects: tests/primer covers the tool
)
_CLI = (
    "import sys; from typing_pkg.cli import main; "
    "sys.argv[0] = 'typing-pkg'; sys.exit(main(sys.argv[1:]))"
)


@dataclass(frozen=True)
class Example:
    """One ``$ command`` and the output shown below it."""

    where: str
    command: str
    output: tuple[str, ...]


def _rst_blocks(text: str) -> list[list[str]]:
    blocks: list[list[str]] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() != ".. code-block:: console":
            continue
        indent = len(line) - len(line.lstrip()) + 3
        body: list[str] = []
        for following in lines[i + 1 :]:
            if following.strip() and len(following) - len(following.lstrip()) < indent:
                break
            body.append(following[indent:])
        blocks.append(body)
    return blocks


def _md_blocks(text: str) -> list[list[str]]:
    return [
        block.splitlines()
        for block in re.findall(r"^ *```console\n(.*?)^ *```", text, re.MULTILINE | re.DOTALL)
    ]


def examples() -> list[Example]:
    """Return every console example of the docs and the README."""
    found: list[Example] = []
    sources = [(p, _rst_blocks) for p in sorted(DOCS.rglob("*.rst")) if "_build" not in p.parts]
    sources.append((ROOT / "README.md", _md_blocks))
    for path, parse in sources:
        for block in parse(path.read_text(encoding="utf-8")):
            command: str | None = None
            output: list[str] = []
            for line in [*block, "$ "]:
                if line.lstrip().startswith("$ "):
                    if command:
                        where = str(path.relative_to(ROOT))
                        found.append(Example(where, command, tuple(output)))
                    command, output = line.lstrip()[2:].strip(), []
                elif command is not None:
                    output.append(line.rstrip())
    return found


def _id(example: Example) -> str:
    return f"{example.where}: {example.command}"


def test_console_examples_found() -> None:
    assert sum(e.command.startswith("typing-pkg ") for e in examples()) >= 10


@pytest.mark.parametrize("example", examples(), ids=_id)
def test_console_example(example: Example) -> None:
    if not example.command.startswith("typing-pkg "):
        assert example.command.startswith(NOT_RUN), (
            f"{example.where}: {example.command!r} is neither run here nor listed in NOT_RUN"
        )
        return
    path = os.pathsep.join([str(ROOT), str(ROOT / "examples"), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", _CLI, *shlex.split(example.command)[1:]],
        capture_output=True, text=True, check=False, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": path, "COLUMNS": "80"},
    )  # fmt: skip
    got = [line.rstrip() for line in (done.stdout + done.stderr).splitlines()]
    want = list(example.output)
    while want and not want[-1]:
        want.pop()
    assert got == want, f"{example.where}: $ {example.command}"
