"""The primer (``python -m tools.primer``): its pieces, and one whole run on a tiny project.

Fast: reading ``projects.toml`` (a bad entry gives one clear line), the files
a project checks and their module names, the multiset difference of two
runs' errors, reading mypy's output and its INTERNAL ERRORs, recognising
array types, the report, the command line's usage errors, and ``prepare``
from a local git repository.  Slow: the whole tool, mypy and basedpyright,
on a two-file JAX project written here, one of whose files runs under the tracer.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tools.primer import runner
from tools.primer.__main__ import main
from tools.primer.checkers import (
    Diagnostic,
    MypyRun,
    PyrightRun,
    difference,
    mypy_batches,
    mypy_config,
    pair_reworded,
    parse_internal_error,
    parse_mypy,
    run_mypy,
)
from tools.primer.projects import MARKER, ProjectError, module_name, parse_projects
from tools.primer.report import render, summary_rows
from tools.primer.runner import MypyComparison, Options, ProjectResult, PyrightComparison
from tools.primer.sites import is_array_type

ROOT = Path(__file__).resolve().parents[2]
COMMIT = "0123456789abcdef0123456789abcdef01234567"
ENTRY = f"""\
[[project]]
name = "tiny"
repo = "someone/tiny"
commit = "{COMMIT}"
license = "MIT"
kind = "test"
paths = ["."]
exclude = ["(^|/)tests?/"]
deps = ["chex"]
lines = 12
"""


def test_a_good_entry_is_read() -> None:
    (project,) = parse_projects(ENTRY)
    assert project.name == "tiny"
    assert project.repo == "someone/tiny"
    assert project.paths == (".",)
    assert project.exclude == ("(^|/)tests?/",)
    assert project.deps == ("chex",)
    assert project.lines == 12
    assert project.run == ()


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (('commit = "', 'commit = "xyz'), "project 1 (tiny): 'commit' must be 40"),
        (("lines = 12", 'lines = "12"'), "project 1 (tiny): 'lines' must be a non-negative"),
        (("deps = [", 'depz = ["x"]\ndeps = ['), "project 1 (tiny): unknown key(s): depz"),
        (('license = "MIT"\n', ""), "project 1 (tiny): missing key(s): license"),
        (('exclude = ["', 'exclude = ["('), "project 1 (tiny): 'exclude' holds a bad regex"),
        (('paths = ["."]', 'paths = ["../x"]'), "'paths' must hold paths inside the project"),
        (('repo = "someone/tiny"', 'repo = "tiny"'), "'repo' must be 'owner/name'"),
        (('name = "tiny"', 'name = "a b"'), "project 1 (a b): 'name' must be a folder name"),
        (("[[project]]", "[project]"), "'project' must be an array of tables"),
        (("lines = 12", "lines = 12\nknown = [{file = 'm.py'}]"), "known 1: key(s): missing"),
        (
            ("lines = 12", "lines = 12\nknown = [{file='m', line=1, code='x', kind='k', why='w'}]"),
            "known 1: 'kind' must be one of 'real bug', 'follows a mypy error'",
        ),
    ],
)
def test_a_bad_entry_gives_one_clear_line(change: tuple[str, str], expected: str) -> None:
    old, new = change
    with pytest.raises(ProjectError) as raised:
        parse_projects(ENTRY.replace(old, new, 1), "projects.toml")
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith("projects.toml: ")
    assert expected in message


def test_two_projects_with_one_name_are_refused() -> None:
    with pytest.raises(ProjectError, match="two projects are named 'tiny'"):
        parse_projects(ENTRY + "\n" + ENTRY)


def test_the_command_line_reports_a_bad_entry_as_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    projects = tmp_path / "projects.toml"
    projects.write_text(ENTRY.replace("lines = 12", "lines = -1"), encoding="utf-8")
    with pytest.raises(SystemExit) as exited:
        main(["--projects", str(projects), "--python", sys.executable])
    assert exited.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.endswith(
        f"{projects}: project 1 (tiny): 'lines' must be a non-negative integer, got -1"
    )


def test_an_unknown_project_name_is_a_usage_error(tmp_path: Path) -> None:
    projects = tmp_path / "projects.toml"
    projects.write_text(ENTRY, encoding="utf-8")
    with pytest.raises(SystemExit) as exited:
        main(["--projects", str(projects), "--python", sys.executable, "--project", "other"])
    assert exited.value.code == 2


def test_files_modules_and_batches(tmp_path: Path) -> None:
    for rel in ["pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/train.py", "scripts/train.py",
                "tests/test_x.py", "pkg/.hidden/y.py", "pkg/notes.txt"]:  # fmt: skip
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("", encoding="utf-8")
    (project,) = parse_projects(ENTRY.replace('paths = ["."]', 'paths = ["pkg", "scripts", "no"]'))
    files, missing = project.files(tmp_path)
    assert files == [
        "pkg/__init__.py",
        "pkg/sub/__init__.py",
        "pkg/sub/train.py",
        "scripts/train.py",
    ]
    assert missing == ["no"]
    names = {rel: module_name(tmp_path, rel) for rel in files}
    assert names == {
        "pkg/__init__.py": ("pkg", "."),
        "pkg/sub/__init__.py": ("pkg.sub", "."),
        "pkg/sub/train.py": ("pkg.sub.train", "."),
        "scripts/train.py": ("train", "scripts"),
    }
    modules = {"a/train.py": "train", "b/train.py": "train", "c/util.py": "util"}
    assert mypy_batches(modules) == [["a/train.py", "c/util.py"], ["b/train.py"]]


def _error(line: int, code: str = "arg-type", message: str = "bad") -> Diagnostic:
    return Diagnostic("m.py", line, code, message, f"m.py:{line}: error: {message}  [{code}]")


def test_added_errors_are_a_multiset_difference() -> None:
    without = [_error(1), _error(2), _error(2)]
    with_plugin = [_error(1), _error(2), _error(2), _error(2), _error(3, "dtype-promotion")]
    added = difference(with_plugin, without)
    assert [(d.line, d.code) for d in added] == [(2, "arg-type"), (3, "dtype-promotion")]
    assert difference(without, with_plugin) == []
    # the message counts: the same line and code with another message is another error
    assert difference([_error(1, message="other")], without) == [_error(1, message="other")]


def test_a_reworded_error_pairs_an_added_and_a_removed_one() -> None:
    old = _error(4, message='has type "Array"')
    new = _error(4, message='has type "Array[Any]"')
    elsewhere = _error(5, message='has type "Array[Any]"')
    added = difference([new, elsewhere], [old])
    removed = difference([old], [new, elsewhere])
    (pair,) = pair_reworded(added, removed)
    assert (pair.before, pair.after) == (old, new)


def test_a_reworded_error_may_change_its_code_or_be_spelt_twice() -> None:
    # x += p: [operator] without the plugin, [arg-type] of Array.__iadd__ with it
    operator = _error(6, "operator", 'Unsupported operand types for + ("Array" and "P")')
    iadd = _error(6, "arg-type", 'Argument 1 to "__iadd__" of "Array" has incompatible type "P"')
    # a @ x + b @ y: one message without the plugin, two spellings with it
    once = _error(8, "operator", 'Unsupported operand types for @ ("P" and "Array")')
    first = _error(8, "operator", 'Unsupported operand types for @ ("P" and "Array[Any]")')
    second = _error(8, "operator", 'Unsupported operand types for @ ("P" and "Array[float32]")')
    new = _error(9, "operator", "something else")
    pairs = _pairs([operator, once], [iadd, first, second, new])
    assert pairs == [(once, first), (operator, iadd), (once, second)]


def _pairs(
    without: list[Diagnostic], with_: list[Diagnostic]
) -> list[tuple[Diagnostic, Diagnostic]]:
    """The (before, after) pairs of rewordings between a run without and a run with."""
    added = difference(with_, without)
    found = pair_reworded(added, difference(without, with_), without)
    return [(p.before, p.after) for p in found]


def test_pyrights_summary_of_a_refused_overloaded_call_rewords_the_plain_refusal() -> None:
    # jnp.log(x) with x: Array | None: one refusal of JAX's function; with the stubs (an
    # overloaded function), pyright's summary and the last overload's refusal
    plain = _error(3, "reportArgumentType", 'Argument of type "A | None" ... in function "log"')
    last = _error(3, "reportArgumentType", 'Argument of type "A[Any] | None" ... in function "log"')
    summary = _error(3, "reportCallIssue", 'No overloads for "log" match the provided arguments')
    other = _error(3, "reportCallIssue", 'No overloads for "exp" match the provided arguments')
    # a call over two lines: the summary at the call, the refusal at the argument
    argument = _error(9, "reportArgumentType", 'Argument of type "B" ... in function "mean"')
    call = _error(8, "reportCallIssue", 'No overloads for "mean" match the provided arguments')
    pairs = _pairs([plain, argument], [last, summary, other, argument, call])
    assert pairs == [
        (plain, last),
        (plain, summary),
        (argument, call),
    ]


def test_mypy_output_is_read() -> None:
    output = (
        "pkg/a.py:3: error: Unsupported operand dtypes for *  [dtype-promotion]\n"
        'pkg/a.py:4:5: note: Revealed type is "typing_pkg.typing.Array[Any]"\n'
        'pkg/b.py:9: error: Name "x" is not defined  [name-defined]\n'
        "something else\n"
    )
    errors, notes = parse_mypy(output)
    assert [(e.file, e.line, e.code) for e in errors] == [
        ("pkg/a.py", 3, "dtype-promotion"),
        ("pkg/b.py", 9, "name-defined"),
    ]
    assert errors[0].message == "Unsupported operand dtypes for *"
    assert errors[0].text == output.splitlines()[0]
    assert [(n.line, n.column) for n in notes] == [(4, 5)]


# mypy 2.4's report of a plugin hook that raised (--show-traceback): the traceback on
# stdout, the INTERNAL ERROR line on stderr (run_mypy reads both, stdout first).
CRASH_STDOUT = """\
Traceback (most recent call last):
  File "<frozen runpy>", line 198, in _run_module_as_main
  File "<frozen runpy>", line 88, in _run_code
  File "mypy/checkexpr.py", line 6251, in accept
  File "mypy/checkexpr.py", line 502, in visit_call_expr
  File "mypy/checkexpr.py", line 1913, in check_callable_call
  File "mypy/checkexpr.py", line 1275, in apply_function_plugin
  File "/tmp/ie/crashplug.py", line 6, in hook
    raise RuntimeError("boom")
RuntimeError: boom
"""
CRASH_STDERR = """\
m.py:3: error: INTERNAL ERROR -- Please try using mypy master on GitHub:
https://mypy.readthedocs.io/en/stable/common_issues.html#using-a-development-mypy-build
Please report a bug at https://github.com/python/mypy/issues
version: 2.4.1
m.py:3: note: use --pdb to drop into pdb
"""


def test_an_internal_error_is_read() -> None:
    crash = parse_internal_error(CRASH_STDOUT + "\n" + CRASH_STDERR)
    assert crash is not None
    assert (crash.file, crash.line) == ("m.py", 3)
    assert crash.summary() == "RuntimeError: boom"
    assert crash.traceback[-3:] == (
        '  File "/tmp/ie/crashplug.py", line 6, in hook',
        '    raise RuntimeError("boom")',
        "RuntimeError: boom",
    )
    assert len(crash.traceback) == 8
    # the other order, and the crash line is no error of the project
    assert parse_internal_error(CRASH_STDERR + CRASH_STDOUT) == crash
    errors, _ = parse_mypy(CRASH_STDERR)
    assert errors == []
    assert parse_internal_error("m.py:3: error: bad  [misc]\n") is None


def test_the_configurations() -> None:
    plugin = mypy_config(True, "jax-x64")
    plain = mypy_config(False, "jax-x64")
    for text in (plugin, plain):
        assert "check_untyped_defs = True" in text
        assert "ignore_missing_imports = True" in text
        assert "follow_imports = silent" in text
    assert "plugins = mypy_plugin" in plugin
    assert "[typing_pkg]\npromotion = jax-x64" in plugin
    assert "plugins" not in plain
    assert "typing_pkg" not in plain


@pytest.mark.parametrize(
    ("type_text", "array"),
    [
        ("typing_pkg.typing.Array[typing_pkg.dtypes.float32]", True),
        ("typing_pkg.typing.Array[Any] | None", True),
        ("jax.Array", True),
        ("jax._src.basearray.Array", True),
        ("jax._src.core.Tracer", True),
        ("numpy.ndarray[tuple[int], numpy.dtype[numpy.float32]]", True),
        ("tuple[typing_pkg.typing.Array[Any], typing_pkg.typing.Array[Any]]", False),
        ("typing_pkg.typing.Array[Any] | builtins.int", False),
        ("Any", False),
        ("None", False),
        ("numpy.floating[numpy._typing._nbit_base._32Bit]", False),
    ],
)
def test_array_types_are_recognised(type_text: str, array: bool) -> None:
    assert is_array_type(type_text) is array


def test_the_report_lists_each_added_error() -> None:
    (project,) = parse_projects(ENTRY)
    added = _error(3, "dtype-promotion", "float8 and float16")
    old, new = _error(7, message="Array"), _error(7, message="Array[Any]")

    def mypy_run(seconds: float, errors: list[Diagnostic]) -> MypyRun:
        """Return a run that took ``seconds`` and reported ``errors``."""
        return MypyRun(seconds=seconds, errors=errors)

    comparison = MypyComparison(
        plain_cold=mypy_run(10.0, [_error(1), old]),
        plugin_cold=mypy_run(12.0, [_error(1), added, new]),
        plain_warm=mypy_run(2.0, [_error(1), old]),
        plugin_warm=mypy_run(3.0, [_error(1), added, new]),
        added=[added, new],
        removed=[old],
        reworded=pair_reworded([added, new], [old]),
        internal={},
        failures={},
        warm_differs=[],
        cold_ratio=1.2,
        warm_ratio=1.5,
    )
    result = ProjectResult(project, files=2, mypy=comparison)
    missing = ProjectResult(project, problem="no sources")
    # one new error (line 3); the one at line 7 is the same error reworded
    assert summary_rows([result, missing]) == [
        ["tiny", "test", "12", "0", "1", "0", "-", "-", "-", "1.20x", "1.50x", "-"],
        ["tiny", "test", "12", "-", "-", "-", "-", "-", "-", "-", "-", "-"],
    ]
    lines = render([result]).splitlines()
    changes = [line for line in lines if line.startswith(("    +", "    -", "    ~"))]
    assert changes == [f"    + {added.text}", f"    ~ - {old.text}", f"    ~ + {new.text}"]
    assert any("2 added (1 reworded), 1 removed" in line for line in lines)
    # listed in projects.toml as a real bug of the project: counted apart, shown with its why
    (listed,) = parse_projects(
        ENTRY
        + 'known = [{file = "m.py", line = 3, code = "dtype-promotion", kind = "real bug", '
        + 'why = "JAX raises a TypeError"}]\n'
    )
    known = ProjectResult(listed, files=2, mypy=comparison)
    assert summary_rows([known])[0][4:6] == ["0", "1"]
    lines = render([known]).splitlines()
    at = lines.index(f"    + [real bug] {added.text}")
    assert lines[at + 1] == "        why: JAX raises a TypeError"


def test_a_listed_error_of_basedpyright_s_is_counted_apart() -> None:
    returned = _error(5, "reportReturnType", "array is not float")
    pyright = PyrightComparison(
        with_stubs=PyrightRun(1.0, errors=[returned]),
        without_stubs=PyrightRun(1.0),
        added=[returned],
        removed=[],
        reworded=[],
        ratio=1.0,
    )
    (project,) = parse_projects(ENTRY)
    assert summary_rows([ProjectResult(project, files=2, pyright=pyright)])[0][6] == "1"
    (listed,) = parse_projects(
        ENTRY
        + 'known = [{file = "m.py", line = 5, code = "reportReturnType", kind = "real bug", '
        + 'why = "it returns an array"}]\n'
    )
    result = ProjectResult(listed, files=2, pyright=pyright)
    assert summary_rows([result])[0][6] == "0"
    assert f"    + [real bug] {returned.text}" in render([result]).splitlines()


def test_mypy_flags_reach_every_run(tmp_path: Path) -> None:
    # --mypy-flag: the ways mypy runs (--num-workers=2, --native-parser) over the projects
    (tmp_path / "m.py").write_text("def f(x):\n    return x\n", encoding="utf-8")
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n", encoding="utf-8")
    plain = run_mypy(sys.executable, tmp_path, [["m.py"]], config, tmp_path / "a")
    strict = run_mypy(
        sys.executable, tmp_path, [["m.py"]], config, tmp_path / "b", flags=["--strict"]
    )
    assert plain.errors == []
    assert [e.code for e in strict.errors] == ["no-untyped-def"]


def test_repeated_timed_runs_give_the_ratios_of_the_best_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # --repeat 3: plain cold, plugin cold, plain warm, plugin warm, three times over, the
    # caches cleared before each cold pair; a third repetition's plugin warm run errs
    # processor seconds: the ratios' (the wall clock's is another machine's load)
    seconds = iter([10.0, 11.0, 1.0, 2.0, 10.0, 14.0, 1.0, 1.2, 10.0, 10.5, 1.0, 1.0])
    kept: list[bool] = []

    def fake_run_mypy(
        python: str, root: Path, batches: object, config: Path, cache: Path, **kw: object
    ) -> MypyRun:
        kept.append(cache.exists())
        cache.mkdir(parents=True, exist_ok=True)
        errors = [_error(4)] if len(kept) == 12 else []
        return MypyRun(seconds=100.0 + len(kept), cpu_seconds=next(seconds), errors=errors)

    monkeypatch.setattr(runner, "run_mypy", fake_run_mypy)
    (project,) = parse_projects(ENTRY)
    options = Options(
        sources=tmp_path, python=sys.executable, cache=tmp_path, repeat=3, coverage=False
    )
    comparison, sites = runner.compare_mypy(
        project, tmp_path, [["m.py"]], ["m.py"], [], options, log=lambda message: None
    )
    assert sites is None
    assert kept == [False, False, True, True] * 3
    assert comparison.cold_ratios == [1.1, 1.4, 1.05]
    assert comparison.warm_ratios == [2.0, 1.2, 1.0]
    # the least with the plugin over the least without: 10.5 / 10, 1.0 / 1.0
    assert (comparison.cold_ratio, comparison.warm_ratio) == (1.05, 1.0)
    assert comparison.repeat_differs == ["plugin warm"]
    assert comparison.added == []  # the first repetition's errors
    lines = render([ProjectResult(project, files=1, mypy=comparison)]).splitlines()
    expected = "(1.05x, best of 3; each repetition's 1.05-1.40, median 1.10)"
    assert any(expected in line for line in lines), lines
    assert "  mypy plugin warm: a later repetition reported other errors" in lines


@pytest.mark.parametrize("count", ["0", "two"])
def test_a_bad_repeat_count_is_a_usage_error(
    count: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--repeat", count])
    assert stopped.value.code == 2
    assert f"expected a whole number of at least 1, got '{count}'" in capsys.readouterr().err


def test_the_plugin_s_bytecode_is_written_before_the_timed_runs() -> None:
    # where PYTHONDONTWRITEBYTECODE is set, each mypy run compiled the plugin from source
    import importlib.util

    import mypy_plugin.inference

    cached = Path(importlib.util.cache_from_source(mypy_plugin.inference.__file__))
    cached.unlink(missing_ok=True)
    assert runner.compile_plugin(sys.executable) is None
    assert cached.is_file()


def test_missing_sources_are_reported_and_the_status_is_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    projects = tmp_path / "projects.toml"
    projects.write_text(ENTRY, encoding="utf-8")
    status = main(["--projects", str(projects), "--sources", str(tmp_path / "src"),
                   "--python", sys.executable, "--checker", "mypy",
                   "--cache", str(tmp_path / "cache")])  # fmt: skip
    assert status == 0
    out = capsys.readouterr().out
    assert "not checked: no sources at" in out


def test_a_failure_of_the_primer_is_the_project_s_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> ProjectResult:
        """Fail as an unforeseen bug of the primer would."""
        raise OSError("disk full")

    monkeypatch.setattr(runner, "check_project", broken)
    (project,) = parse_projects(ENTRY)
    options = Options(sources=tmp_path, python=sys.executable, cache=tmp_path)
    result = runner.run_project(project, options, log=lambda message: None)
    assert result.problem == "the primer failed: OSError('disk full')"


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main",
         *args],
        cwd=cwd, check=True, capture_output=True,
    )  # fmt: skip


def _repository(tmp_path: Path, files: dict[str, bytes]) -> tuple[Path, str]:
    """A git repository at ``tmp_path/repo`` with ``files`` committed; it and the commit."""
    repo = tmp_path / "repo"
    _git(tmp_path, "init", "-q", str(repo))
    for rel, data in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(data)
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "first")
    return repo, _rev_parse(repo, "HEAD")


def _rev_parse(repo: Path, name: str) -> str:
    return subprocess.run(
        ["git", "rev-parse", name], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()


def _prepare_arguments(tmp_path: Path, commit: str, mirror: Path) -> tuple[list[str], Path]:
    """``prepare``'s arguments for the tiny project at ``commit`` from ``mirror``; its sources."""
    projects = tmp_path / "projects.toml"
    projects.write_text(ENTRY.replace(COMMIT, commit), encoding="utf-8")
    sources = tmp_path / "src"
    arguments = ["prepare", "--projects", str(projects), "--sources", str(sources),
                 "--mirror", str(mirror)]  # fmt: skip
    return arguments, sources


def test_prepare_exports_the_commit_from_a_mirror(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, commit = _repository(tmp_path, {"tiny/a.py": b"x = 1\n"})
    (repo / "tiny" / "a.py").write_text("x = 2\n", encoding="utf-8")
    _git(repo, "commit", "-q", "-am", "second")
    _git(tmp_path, "clone", "-q", "--bare", str(repo), str(tmp_path / "mirror.git"))
    arguments, sources = _prepare_arguments(tmp_path, commit, tmp_path / "mirror.git")
    projects = tmp_path / "projects.toml"
    assert main(arguments) == 0
    assert (sources / "tiny" / "tiny" / "a.py").read_text(encoding="utf-8") == "x = 1\n"
    assert (sources / "tiny" / MARKER).read_text(encoding="utf-8").strip() == commit
    assert main(arguments) == 0  # kept as it is
    assert "kept" in capsys.readouterr().out.splitlines()[-1]
    projects.write_text(ENTRY, encoding="utf-8")  # a commit the mirror lacks
    assert main([*arguments, "--force"]) == 1
    assert "git archive" in capsys.readouterr().out


def test_prepare_leaves_out_a_file_the_mirror_lacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A snapshot may list its largest files without holding them: one such file must
    # not stop the export of the code beside it.
    files = {"tiny/a.py": b"x = 1\n", "big.gif": b"GIF89a not really"}
    repo, commit = _repository(tmp_path, files)
    mirror = tmp_path / "mirror.git"
    _git(tmp_path, "init", "-q", "--bare", str(mirror))
    # Fetched objects stay loose (one file each) below the unpack limit: one can go.
    _git(mirror, "-c", "fetch.unpackLimit=1000", "fetch", "-q", str(repo), "main:main")
    blob = _rev_parse(repo, "HEAD:big.gif")
    (mirror / "objects" / blob[:2] / blob[2:]).unlink()
    arguments, sources = _prepare_arguments(tmp_path, commit, mirror)
    assert main(arguments) == 0
    assert (sources / "tiny" / "tiny" / "a.py").read_text(encoding="utf-8") == "x = 1\n"
    assert not (sources / "tiny" / "big.gif").exists()
    assert "1 files the git directory lacks left out: big.gif" in capsys.readouterr().out


TINY_MODEL = """\
import jax.numpy as jnp

from helpers import double


def run():
    x = jnp.zeros(3, jnp.float8_e4m3fn)
    y = jnp.ones(3, jnp.float16)
    z = x * y
    w = double(y)
    return z, w


if __name__ == "__main__":
    h = jnp.ones(3, jnp.bfloat16)
    print(double(h))
"""
TINY_HELPERS = """\
import jax


def double(v: jax.Array) -> jax.Array:
    out = v + v
    return out


count: int = "three"
"""


@pytest.mark.slow
def test_the_whole_tool_on_a_tiny_project(tmp_path: Path) -> None:
    sources = tmp_path / "src"
    (sources / "tiny").mkdir(parents=True)
    (sources / "tiny" / "model.py").write_text(TINY_MODEL, encoding="utf-8")
    (sources / "tiny" / "helpers.py").write_text(TINY_HELPERS, encoding="utf-8")
    projects = tmp_path / "projects.toml"
    projects.write_text(ENTRY + 'run = ["model.py"]\n', encoding="utf-8")
    out = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "tools.primer", "--projects", str(projects),
         "--sources", str(sources), "--python", sys.executable,
         "--cache", str(tmp_path / "cache"), "--json", str(out), "--modes", "--no-warm-up"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    print(done.stdout)
    # dmypy and an incremental run after an edit, with and without the plugin: the same
    # errors as the cold runs', the plugin's float8 * float16 added, the edited file restored
    modes = json.loads(out.read_text(encoding="utf-8"))["projects"][0]["modes"]
    assert [m["label"].split(",")[0] for m in modes] == [
        "cold",
        "dmypy started",
        "dmypy after an edit",
        "incremental after an edit",
        "dmypy after the edit is undone",
    ]
    for mode in modes:
        assert (mode["internal"], mode["failure"], mode["missing"], mode["extra"]) == (
            None, None, [], []
        ), mode  # fmt: skip
        assert (mode["errors"], mode["plain_errors"]) == (2, 1)  # helpers.py's in both
        assert [text.split(": error")[0] for text in mode["added"]] == ["model.py:9"], mode
    assert (sources / "tiny" / "helpers.py").read_text(encoding="utf-8") == TINY_HELPERS
    assert (sources / "tiny" / "model.py").read_text(encoding="utf-8") == TINY_MODEL
    report = json.loads(out.read_text(encoding="utf-8"))
    (project,) = report["projects"]
    assert project["problem"] is None
    assert project["files"] == 2
    mypy = project["mypy"]
    assert mypy["internal"] == {}
    assert mypy["failures"] == {}
    assert mypy["warm_differs"] == []
    # the error both runs report, and the one the plugin adds (float8 times float16)
    assert [(e["file"], e["line"]) for e in mypy["plain_cold"]["errors"]] == [("helpers.py", 9)]
    assert [(e["file"], e["line"], e["code"]) for e in mypy["added"]] == [
        ("model.py", 9, "dtype-promotion")
    ]
    assert mypy["removed"] == []
    assert f"+ {mypy['added'][0]['text']}" in done.stdout
    assert mypy["cold_ratio"] is not None
    assert mypy["warm_ratio"] is not None
    # x, y: one dtype each; w: double(y) checked at the call in model.py (float16); out, in
    # double's own body (its parameter a bare jax.Array annotation): an array of unknown dtype
    sites = project["sites"]
    assert sites["types"]["model.py"]["7:x"].endswith("Array[typing_pkg.dtypes.float8_e4m3fn]")
    assert sites["types"]["model.py"]["8:y"].endswith("Array[typing_pkg.dtypes.float16]")
    assert sites["types"]["helpers.py"]["5:out"] == "typing_pkg.typing.Array[Any]"
    assert sites["dtypes"] == {"float8_e4m3fn": 1, "float16": 2, "bfloat16": 1}
    assert sites["typed"] == 4
    assert sites["arrays"] == 5  # and z, after the error: not an array
    # the program runs h's site (bfloat16, typed so) and out's (bfloat16, untyped)
    runtime = sites["runtime"]
    assert runtime["programs"] == {"model.py": 0}
    assert (runtime["observed"], runtime["correct"], runtime["wrong"]) == (2, 1, 0)
    pyright = project["pyright"]
    assert pyright["with_stubs"]["failure"] is None
    assert pyright["without_stubs"]["failure"] is None
    assert [(e["file"], e["line"]) for e in pyright["without_stubs"]["errors"]] == [
        ("helpers.py", 9)
    ]
    assert pyright["ratio"] is not None
    (row,) = report["table"]
    assert row[:6] == ["tiny", "test", "12", "0", "1", "0"]
