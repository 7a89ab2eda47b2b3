"""The primer's command line: ``python -m tools.primer [prepare] …`` (see the package's doc)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from tools.checkers.run import find_basedpyright, mypy_command
from tools.primer import report
from tools.primer.prepare import PrepareError, export, find_mirror
from tools.primer.projects import Project, ProjectError, load_projects
from tools.primer.runner import (
    CHECKERS,
    Options,
    compile_plugin,
    generate_stubs,
    run_projects,
    warm_up,
)

ROOT: Final = Path(__file__).resolve().parents[2]
PROJECTS: Final = Path(__file__).resolve().parent / "projects.toml"
SOURCES: Final = Path("/work/primer/src")
VENV_PYTHON: Final = Path("/work/primer/venv/bin/python")
CACHE: Final = Path("/work/primer/cache")


def _positive(text: str) -> int:
    """argparse's type of a count of at least one."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--projects", type=Path, default=PROJECTS, metavar="FILE", help="default: %(default)s"
    )
    parser.add_argument(
        "--sources", type=Path, default=SOURCES, metavar="DIR", help="default: %(default)s"
    )
    parser.add_argument(
        "--project",
        action="extend",
        nargs="+",
        default=[],
        metavar="NAME",
        help="only these projects (default: all)",
    )


def run_parser() -> argparse.ArgumentParser:
    """Build the parser of the primer's run."""
    parser = argparse.ArgumentParser(
        prog="python -m tools.primer",
        description="Run mypy with and without the plugin (and basedpyright with and without "
        "the JAX stubs) over pinned JAX projects; report what they change.",
        epilog="python -m tools.primer prepare --help: export the projects' sources.",
    )
    _common(parser)
    parser.add_argument(
        "--python",
        type=Path,
        default=VENV_PYTHON,
        metavar="VENV_PYTHON",
        help="the primer environment's interpreter (default: %(default)s)",
    )
    parser.add_argument(
        "--checker", choices=[*CHECKERS, "all"], default="all", help="default: %(default)s"
    )
    parser.add_argument("--jobs", type=int, default=2, help="projects at a time (default: 2)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write everything as JSON")
    parser.add_argument("--rules", default="jax", help="the plugin's rule set (default: jax)")
    parser.add_argument(
        "--cache", type=Path, default=CACHE, metavar="DIR", help="default: %(default)s"
    )
    parser.add_argument(
        "--timeout", type=float, default=3600.0, help="seconds per checker run (default: 3600)"
    )
    parser.add_argument(
        "--run-timeout",
        type=float,
        default=600.0,
        help="seconds per traced program (default: 600)",
    )
    parser.add_argument(
        "--overlap-timed",
        action="store_true",
        help="let the timed checker runs of several jobs overlap (faster, noisier ratios)",
    )
    parser.add_argument(
        "--errors-only",
        action="store_true",
        help="mypy's cold runs alone, no warm runs and no coverage: what the plugin adds, fast",
    )
    parser.add_argument(
        "--repeat",
        type=_positive,
        default=1,
        metavar="N",
        help="run mypy's four timed runs N times, interleaved; the ratios are those of the "
        "best times (default: 1)",
    )
    parser.add_argument(
        "--no-coverage",
        action="store_true",
        help="skip the coverage run (the timed runs alone, with --repeat for a timing pass)",
    )
    parser.add_argument(
        "--modes",
        action="store_true",
        help="also dmypy (started, after an edit, after undoing it) and an incremental run after "
        "an edit, each against a cold run of its configuration",
    )
    parser.add_argument(
        "--no-warm-up", action="store_true", help="skip the untimed mypy run before the projects"
    )
    parser.add_argument(
        "--mypy-flag",
        action="append",
        default=[],
        metavar="FLAG",
        help="a flag for every mypy run (--mypy-flag=--num-workers=2, --mypy-flag=--native-parser)",
    )
    return parser


def prepare_parser() -> argparse.ArgumentParser:
    """Build the parser of ``prepare``."""
    parser = argparse.ArgumentParser(
        prog="python -m tools.primer prepare",
        description="Export each project's pinned commit into SOURCES/NAME with git archive.",
    )
    _common(parser)
    origin = parser.add_mutually_exclusive_group()
    origin.add_argument(
        "--mirror", type=Path, metavar="DIR", help="a git directory of the one project selected"
    )
    origin.add_argument(
        "--mirrors",
        type=Path,
        metavar="ROOT",
        help="a directory of git directories (OWNER+NAME, OWNER+NAME/repo, OWNER/NAME.git, …)",
    )
    origin.add_argument(
        "--url", help="a clone URL of the one project selected (default: GitHub's, per project)"
    )
    parser.add_argument("--force", action="store_true", help="export over an existing folder")
    return parser


def select(parser: argparse.ArgumentParser, path: Path, names: Sequence[str]) -> list[Project]:
    """Read the projects file and keep the projects named (all if none); exit 2 on an error."""
    try:
        projects = load_projects(path)
    except ProjectError as exc:
        parser.error(str(exc))
    if not names:
        return projects
    known = {project.name: project for project in projects}
    unknown = [name for name in names if name not in known]
    if unknown:
        parser.error(f"no project named {', '.join(unknown)} in {path}")
    return [known[name] for name in dict.fromkeys(names)]


def prepare(argv: Sequence[str]) -> int:
    """Run ``prepare``: export the projects' sources; 1 if one failed."""
    parser = prepare_parser()
    args = parser.parse_args(argv)
    projects = select(parser, args.projects, args.project)
    if (args.mirror or args.url) and len(projects) != 1:
        parser.error("--mirror and --url need exactly one project (--project NAME)")
    status = 0
    for project in projects:
        mirror: Path | None = args.mirror
        if args.mirrors is not None:
            mirror = find_mirror(args.mirrors, project)
            if mirror is None:
                print(f"{project.name}: no git directory for {project.repo} under {args.mirrors}")
                status = 1
                continue
        try:
            print(export(project, args.sources, mirror=mirror, url=args.url, force=args.force))
        except PrepareError as exc:
            print(str(exc))
            status = 1
    return status


def version(command: Sequence[str]) -> str:
    """Return the first line a ``--version`` command prints, or why it printed none."""
    try:
        done = subprocess.run(
            [*command, "--version"], capture_output=True, text=True, check=False, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unavailable ({exc})"
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0] if lines else f"unavailable (status {done.returncode})"


def checkout_commit(python: str) -> str:
    """Return the commit of the typing_pkg the checkers' ``python`` imports the plugin from.

    With ``+changes`` when that tree's tracked files differ; ``unknown`` when it
    is no git checkout.  (A primer environment may take the plugin from another
    checkout than this one: a copy pinned while this one changes.)
    """
    where_is = "import mypy_plugin, pathlib; print(pathlib.Path(mypy_plugin.__file__).parent)"
    found = subprocess.run(  # from / : not the current directory's mypy_plugin
        [python, "-c", where_is], capture_output=True, text=True, check=False, cwd="/"
    )
    where = Path(found.stdout.strip()).parent if found.returncode == 0 else ROOT
    head = subprocess.run(
        ["git", "-C", str(where), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    )
    dirty = subprocess.run(
        ["git", "-C", str(where), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
        check=False,
    )
    commit = head.stdout.strip() or "unknown"
    return commit + ("+changes" if dirty.stdout.strip() else "")


def run(argv: Sequence[str]) -> int:
    """Run the primer over the selected projects and print the report; 0 whatever it finds."""
    parser = run_parser()
    args = parser.parse_args(argv)
    projects = select(parser, args.projects, args.project)
    python = str(args.python.absolute())  # not resolved: a venv's python is a symbolic link
    if not os.access(python, os.X_OK):
        parser.error(f"no interpreter at {python} (--python VENV_PYTHON)")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    checkers = CHECKERS if args.checker == "all" else (args.checker,)
    cache: Path = args.cache.absolute()
    cache.mkdir(parents=True, exist_ok=True)
    stubs: Path | None = None
    stubs_failure: str | None = None
    sources: Path = args.sources.absolute()
    present = any((sources / project.name).is_dir() for project in projects)
    with tempfile.TemporaryDirectory(prefix="primer-stubs-") as scratch:
        if "basedpyright" in checkers and present:
            print(f"generating the JAX stubs ({args.rules}) with {python}", file=sys.stderr)
            stubs = Path(scratch) / "stubs"
            stubs_failure = generate_stubs(python, args.rules, stubs)
            if stubs_failure is not None:
                stubs = None
        options = Options(
            sources=sources,
            python=python,
            cache=cache,
            checkers=checkers,
            rules=args.rules,
            timeout=args.timeout,
            run_timeout=args.run_timeout,
            stubs=stubs,
            stubs_failure=stubs_failure,
            serialize_timed=not args.overlap_timed,
            errors_only=args.errors_only,
            mypy_flags=tuple(args.mypy_flag),
            modes=args.modes,
            repeat=args.repeat,
            coverage=not args.no_coverage,
        )
        if "mypy" in checkers and present:
            failure = compile_plugin(python)
            if failure is not None:
                print(f"the plugin's bytecode was not written: {failure}", file=sys.stderr)
            if not args.no_warm_up:
                warm_up(options)
        results = run_projects(projects, options, args.jobs)
    meta: dict[str, Any] = {
        "rules": args.rules,
        "python": python,
        "sources": str(options.sources),
        "checkers": list(checkers),
        "jobs": args.jobs,
        "typing_pkg": checkout_commit(python),
        "mypy": version(mypy_command(python)) if "mypy" in checkers else None,
        "mypy_flags": list(args.mypy_flag),
        "basedpyright": None,
    }
    if "basedpyright" in checkers:
        exe = find_basedpyright(python)
        meta["basedpyright"] = version([exe]).replace("\n", " ") if exe else "not installed"
    header = [
        f"primer: {len(results)} projects, rules {args.rules}, {python}",
        f"  typing_pkg {meta['typing_pkg']}; mypy: {meta['mypy'] or '-'}; "
        f"basedpyright: {meta['basedpyright'] or '-'}; {args.jobs} jobs",
    ]
    if args.mypy_flag:
        header.append(f"  mypy flags: {' '.join(args.mypy_flag)}")
    if args.modes:
        header.append("  modes: dmypy and an incremental run after an edit, against cold runs")
    if stubs_failure:
        header.append(f"  JAX stubs: {stubs_failure}")
    header.append("")
    print(report.render(results, header), end="")
    if args.json is not None:
        data = report.to_json(results, meta)
        args.json.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line: ``prepare`` or the primer's run."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["prepare"]:
        return prepare(arguments[1:])
    return run(arguments)


if __name__ == "__main__":
    sys.exit(main())
