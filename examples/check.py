"""Type-check the examples with the mypy plugin and compare with ``expected.txt``.

Usage (from the repository root)::

    python examples/check.py             # mypy with the plugin
    python examples/check.py --pyright   # basedpyright (or pyright) with the stubs

Runs mypy with the examples' own configuration (``examples/mypy.ini``: the
plugin, ``promotion = jax``) on ``examples/jax_mlp`` (plain JAX code: a
mixed-precision classifier and three dtype mistakes) and
``examples/mixed_precision`` (annotated with ``Array[...]``), prints what
mypy reports — each revealed type and each error — and then compares it with
``examples/expected.txt``, written by hand from the rules' answers.  With
``--pyright`` the checker is basedpyright (or pyright) with
``examples/pyrightconfig.json``, which reads the generated stubs in
``stubs/``; its error rules are compared as the mypy codes they stand for
(``reportOperatorIssue`` for ``dtype-promotion``, ``reportArgumentType`` for
``arg-type``).  The stubs type ``Array[...]`` code only, not JAX's own API
yet, so pyright checks the folders its configuration includes
(``mixed_precision``) against their lines of ``expected.txt``.  Exit
status: 0 when the checker reports exactly what is expected, 1 when it does
not (the differences are printed), 2 when it could not run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
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
_PYRIGHT_LINE = re.compile(
    r"^\s*(?P<path>\S+?):(?P<line>\d+):\d+ - (?P<severity>information|error|warning): "
    r"(?P<message>.*)$"
)
_PYRIGHT_REVEALED = re.compile(r'^Type of ".*" is "(?P<type>.*)"$')
PYRIGHT_CODES = {"reportOperatorIssue": "dtype-promotion", "reportArgumentType": "arg-type"}
"""pyright's rule for each kind of error, as the mypy code ``expected.txt`` names."""


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


def run_pyright() -> subprocess.CompletedProcess[str] | None:
    """Run basedpyright (or pyright) on the examples with their configuration, if installed."""
    found = [shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
             for name in ("basedpyright", "pyright")]  # fmt: skip
    checker = next((path for path in found if path), None)
    if checker is None:
        return None
    return subprocess.run(
        [checker, "-p", "pyrightconfig.json"],
        cwd=HERE, capture_output=True, text=True, check=False,
    )  # fmt: skip


def normalise_pyright(output: str) -> list[str]:
    """Return pyright's revealed types and errors in the form of ``normalise``."""
    entries: list[tuple[str, str, str]] = []  # where, severity, message (all its lines)
    for line in output.splitlines():
        match = _PYRIGHT_LINE.match(line)
        if match is not None:
            path = Path(match["path"])
            shown = path.relative_to(HERE).as_posix() if path.is_absolute() else str(path)
            entries.append((f"{shown}:{match['line']}", match["severity"], match["message"]))
        elif entries and line[:1].isspace():  # a message continued (pyright indents with NBSP)
            where, severity, message = entries[-1]
            entries[-1] = (where, severity, f"{message}\n{line.strip()}")
    found = []
    for where, severity, message in entries:
        revealed = _PYRIGHT_REVEALED.match(message)
        if severity == "information" and revealed:
            found.append(f"{where}: revealed {revealed['type']}")
        elif severity == "error":
            rule = re.search(r"\((\w+)\)$", message)
            code = rule[1] if rule else "error"
            found.append(f"{where}: error [{PYRIGHT_CODES.get(code, code)}]")
    return found


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


def expected(folders: list[str] | None = None) -> list[str]:
    """Return the lines of ``expected.txt`` without comments and explanations.

    With ``folders``, only the lines about files in those folders.
    """
    lines = []
    for line in EXPECTED.read_text(encoding="utf-8").splitlines():
        line = line.split("  (", 1)[0].strip()
        wanted = folders is None or line.split("/", 1)[0] in folders
        if line and not line.startswith("#") and wanted:
            lines.append(line)
    return lines


def pyright_folders() -> list[str]:
    """Return the folders ``pyrightconfig.json`` includes."""
    config = json.loads((HERE / "pyrightconfig.json").read_text(encoding="utf-8"))
    return [str(folder) for folder in config["include"]]


def _in_file_order(output: str) -> str:
    """Return mypy's output with its located lines sorted by file and line (mypy's order varies)."""
    located = re.compile(r"^(?P<path>[^:\s]+):(?P<line>\d+): ")
    lines = output.splitlines()
    other = [line for line in lines if not located.match(line)]
    found = [line for line in lines if located.match(line)]

    def key(line: str) -> tuple[str, int]:
        match = located.match(line)
        assert match is not None
        return match["path"], int(match["line"])

    return "".join(f"{line}\n" for line in [*sorted(found, key=key), *other])


def _key(line: str) -> tuple[str, int, str]:
    """Sort by file, then line number."""
    path, number, rest = line.split(":", 2)
    return path, int(number), rest


def main(argv: list[str] | None = None) -> int:
    """Run the checker, print what it reports and compare it with the expected lines."""
    args = sys.argv[1:] if argv is None else argv
    if args not in ([], ["--pyright"]):
        print("usage: python examples/check.py [--pyright]", file=sys.stderr)
        return 2
    if args:
        print("$ basedpyright -p examples/pyrightconfig.json   (the stubs in stubs/)")
        ran = run_pyright()
        if ran is None:
            print("neither basedpyright nor pyright is installed")
            return 2
        done, reported = ran, normalise_pyright(ran.stdout)
        folders: list[str] | None = pyright_folders()
    else:
        print("$ mypy --config-file examples/mypy.ini   (plugins = mypy_plugin, promotion = jax)")
        done = run_mypy()
        reported = normalise(done.stdout)
        folders = None
    if done.returncode not in (0, 1):
        sys.stdout.write(done.stdout)
        sys.stderr.write(done.stderr)
        print(f"the checker could not check the examples (exit status {done.returncode})")
        return 2
    sys.stdout.write(_in_file_order(done.stdout))
    got, want = sorted(reported, key=_key), sorted(expected(folders), key=_key)
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
