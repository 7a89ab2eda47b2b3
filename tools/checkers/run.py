"""Running a type checker: mypy (its command, its daemon, in this process) and basedpyright.

Every test, tool and benchmark that runs a checker builds its command here:
the interpreter and the executable (``PYTHON -m mypy``, ``PYTHON -m
mypy.dmypy``, basedpyright installed beside ``PYTHON``), the options that make
mypy's report one message a line (:data:`MYPY_REPORT`, what
:func:`tools.checkers.output.read_mypy` reads), an environment without
colours, and the run's wall-clock and processor time (:class:`Ran`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

from tools.checkers.output import Diagnostics, MypyMessage, read_basedpyright, read_mypy

__all__ = [
    "MYPY_REPORT",
    "Ran",
    "basedpyright",
    "basedpyright_command",
    "checker_env",
    "dmypy_command",
    "find_basedpyright",
    "mypy",
    "mypy_command",
    "mypy_in_process",
    "run_command",
    "timed_command",
]

ROOT: Final = Path(__file__).resolve().parents[2]
"""The checkout: mypy imports ``mypy_plugin`` from here."""

MYPY_REPORT: Final = (
    "--no-error-summary",
    "--hide-error-context",
    "--no-pretty",
    "--no-color-output",
    "--show-error-codes",
    "--show-traceback",
)
"""mypy's report as :func:`tools.checkers.output.read_mypy` reads it: a message a line,
with its code, and a crash's traceback."""


@dataclass(frozen=True)
class Ran:
    """What a checker's command did."""

    command: tuple[str, ...]
    status: int
    stdout: str
    stderr: str
    seconds: float
    """Wall-clock seconds."""
    cpu_seconds: float
    """Processor seconds (user and system, the command's descendants included): the
    checker's cost, barely moved by other work on the machine (the wall clock is)."""
    timed_out: bool = False
    """It ran past its time and was killed (what it said is then incomplete)."""

    @property
    def output(self) -> str:
        """Its standard output, then its standard error."""
        return self.stdout + self.stderr

    def messages(self) -> list[MypyMessage]:
        """mypy's messages (a run with :data:`MYPY_REPORT`)."""
        return read_mypy(self.stdout)

    def revealed(self) -> list[str]:
        """The types mypy revealed (``reveal_type``), in order."""
        return [m.revealed for m in self.messages() if m.revealed is not None]

    def diagnostics(self) -> Diagnostics:
        """basedpyright's report (a run with ``--outputjson``)."""
        return read_basedpyright(self.stdout)


def checker_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a checker's subprocess: the caller's, colours off (and ``extra``)."""
    return {
        **os.environ,
        "NO_COLOR": "1",
        "MYPY_FORCE_COLOR": "0",
        "TERM": "dumb",
        **(extra or {}),
    }


def mypy_command(python: str | Path = sys.executable) -> list[str]:
    """mypy run by ``python`` (the environment it checks against and imports plugins from)."""
    return [str(python), "-m", "mypy"]


def dmypy_command(status_file: Path, python: str | Path = sys.executable) -> list[str]:
    """mypy's daemon client run by ``python``, its state in ``status_file`` (one daemon each)."""
    return [str(python), "-m", "mypy.dmypy", "--status-file", str(status_file)]


def find_basedpyright(
    python: str | Path = sys.executable, name: str = "basedpyright"
) -> str | None:
    """basedpyright (or ``basedpyright-langserver``) installed beside ``python``, else on the
    ``PATH``; None when neither has it."""
    beside = Path(python).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which(name)


def basedpyright_command(
    python: str | Path = sys.executable, name: str = "basedpyright"
) -> list[str]:
    """:func:`find_basedpyright`'s command; AssertionError naming the missing tool."""
    found = find_basedpyright(python, name)
    assert found is not None, f"{name} is missing: the test extra installs it (.ci/run does)"
    return [found]


def timed_command(
    command: Sequence[str],
    cwd: Path,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> Ran:
    """Run ``command`` in ``cwd`` (:func:`checker_env` unless ``env``): what it did, killed past
    ``timeout`` seconds (``Ran.timed_out``)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        list(command),
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(env) if env is not None else checker_env(),
    )
    output: dict[str, str] = {}

    def read(name: str, stream: IO[str] | None) -> None:
        output[name] = stream.read() if stream is not None else ""

    readers = [
        threading.Thread(target=read, args=("stdout", process.stdout), daemon=True),
        threading.Thread(target=read, args=("stderr", process.stderr), daemon=True),
    ]
    for reader in readers:
        reader.start()
    expired = threading.Event()

    def kill() -> None:
        expired.set()
        process.kill()

    killer = threading.Timer(timeout, kill) if timeout is not None else None
    if killer is not None:
        killer.start()
    try:
        # os.wait4, not Popen.wait: it gives the finished process's resource usage
        _, status, usage = os.wait4(process.pid, 0)
    finally:
        if killer is not None:
            killer.cancel()
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    for reader in readers:
        reader.join()
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()
    return Ran(
        tuple(command),
        process.returncode,
        output.get("stdout", ""),
        output.get("stderr", ""),
        seconds,
        usage.ru_utime + usage.ru_stime,
        expired.is_set(),
    )


def run_command(
    command: Sequence[str], cwd: Path, timeout: float, env: Mapping[str, str] | None
) -> Ran:
    """:func:`timed_command`, TimeoutError past ``timeout`` seconds."""
    ran = timed_command(command, cwd, timeout, env)
    if ran.timed_out:
        raise TimeoutError(f"{' '.join(command)} ran past {timeout:g} s")
    return ran


def mypy(
    *arguments: str | Path,
    cwd: Path,
    python: str | Path = sys.executable,
    report: bool = True,
    timeout: float = 1800.0,
    env: Mapping[str, str] | None = None,
) -> Ran:
    """``python -m mypy ARGUMENTS`` in ``cwd`` (with :data:`MYPY_REPORT` unless ``report`` is
    false: a test of mypy's own report); TimeoutError past ``timeout`` seconds."""
    command = [*mypy_command(python), *map(str, arguments), *(MYPY_REPORT if report else ())]
    return run_command(command, cwd, timeout, env)


def mypy_in_process(*arguments: str | Path, report: bool = True) -> Ran:
    """mypy ``ARGUMENTS`` in this process (``mypy.api.run``: no interpreter to start, the
    plugin imported from the checkout); its processor time is this process's."""
    from mypy import api  # a tool that never runs mypy does not import it

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # mypy imports the plugin from here
    command = [*map(str, arguments), *(MYPY_REPORT if report else ())]
    start, cpu = time.perf_counter(), time.process_time()
    stdout, stderr, status = api.run(command)
    return Ran(
        ("mypy", *command),
        status,
        stdout,
        stderr,
        time.perf_counter() - start,
        time.process_time() - cpu,
    )


def basedpyright(
    *arguments: str | Path,
    cwd: Path,
    python: str | Path | None = sys.executable,
    timeout: float = 1800.0,
    env: Mapping[str, str] | None = None,
) -> Ran:
    """basedpyright (installed beside this interpreter) ``ARGUMENTS --outputjson`` in ``cwd``,
    with ``--pythonpath PYTHON``: the environment whose packages it reads (``None``: the
    configuration's ``venv``, or the ``PATH``'s interpreter).  The report is what
    :meth:`Ran.diagnostics` reads; TimeoutError past ``timeout`` seconds."""
    command = [
        *basedpyright_command(),
        *map(str, arguments),
        *(("--pythonpath", str(python)) if python is not None else ()),
        "--outputjson",
    ]
    return run_command(command, cwd, timeout, env)
