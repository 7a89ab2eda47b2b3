"""The primer's projects: ``projects.toml`` read into frozen dataclasses, and their files.

Each ``[[project]]`` table names a public JAX project pinned at a commit::

    [[project]]
    name = "blackjax"               # the folder under the sources directory
    repo = "blackjax-devs/blackjax"
    commit = "<40 hex digits>"
    license = "Apache-2.0"
    kind = "probabilistic programming"
    paths = ["blackjax"]            # checked, relative to the folder (directories or .py files)
    exclude = []                    # optional: regexes searched in each file's relative path
    deps = ["chex", "optax"]        # PyPI packages the primer's environment installs
    lines = 23456
    run = ["examples/demo.py"]      # optional: programs whose runtime dtypes judge the sites
    known = [                       # optional: errors the plugin adds that are not its defects
      {file = "pkg/m.py", line = 12, code = "return-value", kind = "real bug", why = "..."},
    ]

``known``'s ``kind`` is ``real bug`` (``why`` gives the run-time evidence: JAX
raises, or the value is not of the declared type) or ``follows a mypy error``
(the error follows from a declaration that mypy without the plugin already
refuses, as its other errors there do).  ``code`` is mypy's error code, or
basedpyright's rule (``reportReturnType``) for an error the JAX stubs add.
The report counts them apart.

A bad entry raises :class:`ProjectError` whose message is one line naming the
file, the entry and the key.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = [
    "KNOWN_KINDS",
    "MARKER",
    "Known",
    "Project",
    "ProjectError",
    "load_projects",
    "module_name",
    "parse_projects",
]

_NAME: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_REPO: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$")
_COMMIT: Final = re.compile(r"^[0-9a-f]{40}$")
MARKER: Final = ".primer-commit"
"""The file ``prepare`` writes in an exported folder: the commit it holds."""
_REQUIRED: Final = ("name", "repo", "commit", "license", "kind", "paths", "deps", "lines")
_OPTIONAL: Final = ("exclude", "run", "known")
KNOWN_KINDS: Final = ("real bug", "follows a mypy error")
_KNOWN_KEYS: Final = ("file", "line", "code", "kind", "why")


class ProjectError(ValueError):
    """A bad ``projects.toml``: the message is one line naming the entry and the key."""


@dataclass(frozen=True)
class Known:
    """An error the plugin adds on a project that is not a defect of the plugin (see above)."""

    file: str
    line: int
    code: str
    kind: str
    why: str

    def matches(self, file: str, line: int, code: str) -> bool:
        """Whether an error at ``file:line`` with ``code`` is this one."""
        return (self.file, self.line, self.code) == (file, line, code)


@dataclass(frozen=True)
class Project:
    """One project of the primer, as ``projects.toml`` describes it."""

    name: str
    repo: str
    commit: str
    license: str
    kind: str
    paths: tuple[str, ...]
    exclude: tuple[str, ...]
    deps: tuple[str, ...]
    lines: int
    run: tuple[str, ...] = ()
    known: tuple[Known, ...] = ()

    def excluded(self, rel: str) -> bool:
        """Tell whether a relative path is skipped by one of the ``exclude`` regexes."""
        return any(re.search(pattern, rel) for pattern in self.exclude)

    def files(self, root: Path) -> tuple[list[str], list[str]]:
        """Return the checked ``.py`` files under ``root`` (relative, sorted) and missing paths."""
        found: set[str] = set()
        missing: list[str] = []
        for entry in self.paths:
            path = root / entry
            if path.is_file():
                candidates = [path] if path.suffix == ".py" else []
            elif path.is_dir():
                candidates = list(path.rglob("*.py"))
            else:
                missing.append(entry)
                continue
            for candidate in candidates:
                rel = candidate.relative_to(root).as_posix()
                parts = rel.split("/")
                if "__pycache__" in parts or any(p.startswith(".") for p in parts[:-1]):
                    continue
                if candidate.is_file() and not self.excluded(rel):
                    found.add(rel)
        return sorted(found), missing


def module_name(root: Path, rel: str) -> tuple[str, str]:
    """Return the module name mypy gives a file and its base directory (relative, ``.`` at top)."""
    # As mypy crawls: up from the file's directory while it holds an __init__.py.
    parts = rel.split("/")
    names = [parts[-1].removesuffix(".py")]
    directory = parts[:-1]
    while directory and (root.joinpath(*directory) / "__init__.py").is_file():
        names.insert(0, directory[-1])
        directory = directory[:-1]
    if names[-1] == "__init__" and len(names) > 1:
        names.pop()
    return ".".join(names), "/".join(directory) or "."


def _fail(where: str, message: str) -> ProjectError:
    return ProjectError(f"{where}: {message}")


def _string(entry: dict[str, object], key: str, where: str) -> str:
    value = entry[key]
    if not isinstance(value, str) or not value.strip():
        raise _fail(where, f"{key!r} must be a non-empty string, got {value!r}")
    return value


def _strings(entry: dict[str, object], key: str, where: str) -> tuple[str, ...]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _fail(where, f"{key!r} must be a list of non-empty strings, got {value!r}")
    return tuple(str(v) for v in value)


def _relative(paths: Sequence[str], key: str, where: str) -> None:
    for path in paths:
        if path.startswith("/") or ".." in path.split("/"):
            raise _fail(where, f"{key!r} must hold paths inside the project, got {path!r}")


def _known(entry: dict[str, object], where: str) -> tuple[Known, ...]:
    items = entry.get("known", [])
    if not isinstance(items, list):
        raise _fail(where, "'known' must be an array of tables")
    found: list[Known] = []
    for number, item in enumerate(items, start=1):
        at = f"{where}: known {number}"
        if not isinstance(item, dict):
            raise _fail(at, f"must be a table, got {item!r}")
        keys = set(item)
        if keys != set(_KNOWN_KEYS):
            missing, unknown = set(_KNOWN_KEYS) - keys, keys - set(_KNOWN_KEYS)
            detail = [f"missing {', '.join(sorted(missing))}"] if missing else []
            detail += [f"unknown {', '.join(sorted(unknown))}"] if unknown else []
            raise _fail(at, f"key(s): {'; '.join(detail)}")
        line = item["line"]
        if not isinstance(line, int) or isinstance(line, bool) or line < 1:
            raise _fail(at, f"'line' must be a positive integer, got {line!r}")
        file, code, kind, why = (_string(item, key, at) for key in ("file", "code", "kind", "why"))
        if kind not in KNOWN_KINDS:
            raise _fail(at, f"'kind' must be one of {', '.join(map(repr, KNOWN_KINDS))}")
        found.append(Known(file, line, code, kind, why))
    return tuple(found)


def _project(entry: object, index: int, source: str) -> Project:
    where = f"{source}: project {index}"
    if not isinstance(entry, dict):
        raise _fail(where, f"must be a table, got {entry!r}")
    name = entry.get("name")
    if isinstance(name, str):
        where += f" ({name})"
    missing = [key for key in _REQUIRED if key not in entry]
    if missing:
        raise _fail(where, f"missing key(s): {', '.join(missing)}")
    unknown = sorted(set(entry) - {*_REQUIRED, *_OPTIONAL})
    if unknown:
        raise _fail(where, f"unknown key(s): {', '.join(unknown)}")
    fields = {key: _string(entry, key, where) for key in ("name", "repo", "commit", "license")}
    fields["kind"] = _string(entry, "kind", where)
    if not _NAME.match(fields["name"]):
        raise _fail(where, f"'name' must be a folder name, got {fields['name']!r}")
    if not _REPO.match(fields["repo"]):
        raise _fail(where, f"'repo' must be 'owner/name', got {fields['repo']!r}")
    if not _COMMIT.match(fields["commit"]):
        raise _fail(where, f"'commit' must be 40 lowercase hex digits, got {fields['commit']!r}")
    paths = _strings(entry, "paths", where)
    if not paths:
        raise _fail(where, "'paths' must name at least one path")
    _relative(paths, "paths", where)
    exclude = _strings(entry, "exclude", where)
    for pattern in exclude:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise _fail(where, f"'exclude' holds a bad regex {pattern!r}: {exc}") from None
    run = _strings(entry, "run", where)
    _relative(run, "run", where)
    lines = entry["lines"]
    if not isinstance(lines, int) or isinstance(lines, bool) or lines < 0:
        raise _fail(where, f"'lines' must be a non-negative integer, got {lines!r}")
    return Project(
        **fields,
        paths=paths,
        exclude=exclude,
        deps=_strings(entry, "deps", where),
        lines=lines,
        run=run,
        known=_known(entry, where),
    )


def parse_projects(text: str, source: str = "projects.toml") -> list[Project]:
    """Read the projects of a ``projects.toml`` text; ProjectError on a bad entry."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _fail(source, f"not TOML: {exc}") from None
    unknown = sorted(set(data) - {"project"})
    if unknown:
        raise _fail(source, f"unknown top-level key(s): {', '.join(unknown)}")
    entries = data.get("project", [])
    if not isinstance(entries, list):
        raise _fail(source, "'project' must be an array of tables ([[project]])")
    projects = [_project(entry, index, source) for index, entry in enumerate(entries, start=1)]
    seen: set[str] = set()
    for project in projects:
        if project.name in seen:
            raise _fail(source, f"two projects are named {project.name!r}")
        seen.add(project.name)
    return projects


def load_projects(path: Path) -> list[Project]:
    """Read the projects of a ``projects.toml`` file; ProjectError on a bad entry."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise _fail(str(path), f"cannot be read: {exc.strerror or exc}") from None
    return parse_projects(text, str(path))
