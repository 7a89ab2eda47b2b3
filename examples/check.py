"""Type-check the examples with the mypy plugin and compare with ``expected.txt``.

Usage (from the repository root)::

    python examples/check.py

Runs mypy with the examples' own configuration (``examples/mypy.ini``: the
plugin, ``promotion = jax``) on ``examples/mixed_precision``, prints what
mypy reports — each revealed type and each error — and then compares it with
``examples/expected.txt``, written by hand from the rules' answers.  Exit
status: 0 when mypy reports exactly what is expected, 1 when it does not
(the differences are printed), 2 when mypy could not run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
EXPECTED = HERE / "expected.txt"
_LINE = re.compile(
    r"^(?P<where>[^:\s]+:\d+): (?P<severity>note|error): (?P<message>.*?)"
    r"(?:  \[(?P<code>[a-z0-9-]+)\])?$"
)
_REVEALED = re.compile(r'^Revealed type is "(?P<type>.*)"$')
_MODULES = re.compile(r"\btyping_pkg\.(?:typing\.|dtypes\.)?")


def run_mypy() -> subprocess.CompletedProcess[str]:
    """Run mypy on the examples with their configuration, from the examples' folder."""
    # The checkout's typing_pkg and mypy_plugin, installed or not.
    path = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": str(ROOT) + (os.pathsep + path if path else "")}
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--no-error-summary"],
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def normalise(output: str) -> list[str]:
    """Return mypy's revealed types and errors as ``path:line: revealed T`` / ``error [code]``."""
    found = []
    for line in output.splitlines():
        match = _LINE.match(line.replace("\\", "/"))
        if match is None:
            continue
        where, message = match["where"], match["message"]
        revealed = _REVEALED.match(message)
        if match["severity"] == "note" and revealed:
            found.append(f"{where}: revealed {_MODULES.sub('', revealed['type'])}")
        elif match["severity"] == "error":
            found.append(f"{where}: error [{match['code'] or 'misc'}]")
    return found


def expected() -> list[str]:
    """Return the lines of ``expected.txt`` without comments and explanations."""
    lines = []
    for line in EXPECTED.read_text(encoding="utf-8").splitlines():
        line = line.split("  (", 1)[0].strip()
        if line and not line.startswith("#"):
            lines.append(line)
    return lines


def _key(line: str) -> tuple[str, int, str]:
    """Sort by file, then line number."""
    path, number, rest = line.split(":", 2)
    return path, int(number), rest


def main() -> int:
    """Run mypy, print what it reports and compare it with the expected lines."""
    print("$ mypy --config-file examples/mypy.ini   (plugins = mypy_plugin, promotion = jax)")
    done = run_mypy()
    if done.returncode not in (0, 1):
        sys.stdout.write(done.stdout)
        sys.stderr.write(done.stderr)
        print(f"mypy could not check the examples (exit status {done.returncode})")
        return 2
    sys.stdout.write(done.stdout)
    got, want = sorted(normalise(done.stdout), key=_key), sorted(expected(), key=_key)
    if got == want:
        reveals = sum("revealed" in line for line in got)
        print(
            f"as expected (examples/expected.txt): {reveals} revealed types, "
            f"{len(got) - reveals} errors caught"
        )
        return 0
    print("NOT as expected (examples/expected.txt):")
    for line in want:
        if line not in got:
            print(f"  expected, not reported: {line}")
    for line in got:
        if line not in want:
            print(f"  reported, not expected: {line}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
