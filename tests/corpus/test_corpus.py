"""The JAX corpus and the script that measures checkers on it (``tools/corpus_coverage.py``).

Fast: every corpus program parses and has a ``main``, each bug program marks
exactly one line ``# BUG:``, and the script's pieces (the recogniser of
revealed dtypes, the verdicts, the instrumented copies) behave on the corpus.
Slow: the programs run under JAX (the bug programs fail on their BUG line),
basedpyright reveals the sites of an instrumented copy, and the script
measures a two-file corpus written here whose figures are derived by hand.
The goals the mypy plugin meets on the corpus are ``test_plugin_on_corpus.py``'s.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tools.checkers.run import find_basedpyright
from tools.corpus_coverage import (
    CheckerRun,
    Site,
    corpus_files,
    instrument,
    program_env,
    run_pyright_once,
    static_dtype,
    verdict,
    write_copies,
)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SCRIPT = ROOT / "tools" / "corpus_coverage.py"
REALISTIC = sorted((HERE / "realistic").glob("*.py"))
BUGS = sorted((HERE / "bugs").glob("*.py"))
ANNOTATED = sorted((HERE / "annotated").glob("*.py"))
PROGRAMS = REALISTIC + BUGS + ANNOTATED
BUG_MARK = re.compile(r"#\s*BUG:")


def ids(paths: list[Path]) -> list[str]:
    """Test ids: the programs' paths inside the corpus."""
    return [path.relative_to(HERE).as_posix() for path in paths]


def test_the_corpus_has_its_programs() -> None:
    assert 10 <= len(REALISTIC) <= 16
    assert 4 <= len(BUGS) <= 8
    assert [path.name for path in ANNOTATED] == ["mnist_typed.py"]


@pytest.mark.parametrize("path", PROGRAMS, ids=ids(PROGRAMS))
def test_program_parses_and_has_a_main(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert "main" in functions
    guard = tree.body[-1]  # if __name__ == "__main__": main()
    assert isinstance(guard, ast.If)
    assert ast.unparse(guard.test) == "__name__ == '__main__'"
    assert ast.unparse(guard.body[0]) == "main()"


@pytest.mark.parametrize("path", REALISTIC, ids=ids(REALISTIC))
def test_realistic_program_is_a_program_and_has_no_bug_mark(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert 60 <= len(text.splitlines()) <= 250
    assert not BUG_MARK.search(text)
    assert "typing_pkg" not in text  # zero annotation changes: plain JAX code


@pytest.mark.parametrize("path", BUGS, ids=ids(BUGS))
def test_bug_program_marks_exactly_one_line(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len([line for line in lines if BUG_MARK.search(line)]) == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("typing_pkg.typing.Array[typing_pkg.dtypes.float32]", "float32"),
        ("Array[bfloat16]", "bfloat16"),
        ("Array[weak_float] | None", "weak_float"),
        ("Array[float32] | Any", None),  # a union with an unknown member is not concrete
        ("numpy.ndarray[tuple[Any, ...], numpy.dtype[numpy.float64]]", "float64"),
        ("numpy.ndarray[tuple[int], numpy.dtype[numpy.bool]]", "bool_"),
        # NumPy's sized scalar types, as mypy writes them
        (
            "numpy.ndarray[tuple[Any, ...], numpy.dtype[numpy.signedinteger["
            "numpy._typing._nbit_base._64Bit]]]",
            "int64",
        ),
        ("numpy.unsignedinteger[numpy._typing._nbit_base._8Bit]", "uint8"),
        (
            "numpy.complexfloating[numpy._typing._nbit_base._32Bit, "
            "numpy._typing._nbit_base._32Bit]",
            "complex64",
        ),
        # ... and as pyright writes them
        ("ndarray[tuple[Any, ...], dtype[signedinteger[_64Bit]]]", "int64"),
        ("ndarray[tuple[int], dtype[unsignedinteger[_8Bit]]]", "uint8"),
        ("floating[_32Bit]", "float32"),
        ("ndarray[tuple[Any, ...], dtype[floating[_16Bit]]]", "float16"),
        ("ndarray[tuple[int], dtype[float64]]", "float64"),
        ("complexfloating[_32Bit, _32Bit]", "complex64"),
        ("complexfloating[_64Bit, _64Bit]", "complex128"),
        ("complexfloating[_32Bit]", "complex64"),  # one width for both parts
        ("ndarray[tuple[int], dtype[numpy.bool[builtins.bool]]]", "bool_"),
        ("ndarray[tuple[Any, ...], dtype[bool[Any]]]", "bool_"),  # NumPy's bool is generic
        ("bool", None),  # Python's
        ("ndarray[tuple[int], dtype[signedinteger[_32Bit | _64Bit]]]", None),  # intp: either
        ("floating[_64Bit | _96Bit | _128Bit]", None),  # longdouble
        ("complexfloating[Any, Any]", None),
        ("ndarray[tuple[Any, ...], dtype[Any]]", None),
        ("other.floating[_32Bit]", None),  # not NumPy's
        ("Array[float32] | ndarray[tuple[int], dtype[floating[_32Bit]]]", "float32"),
        ("Array[float32] | ndarray[tuple[int], dtype[signedinteger[_32Bit]]]", None),
        ("jax._src.basearray.Array", None),
        ("Array[Any]", None),
        ("Array[floating]", None),  # a category is not a dtype
        ("tuple[Array[int32], Array[float32]]", None),  # two dtypes
        ("Unknown", None),
        ("typing_pkg.typing.Array[typing_pkg.dtypes.key]", "key"),  # a typed PRNG key
    ],
)
def test_static_dtype_recognises_one_dtype_marker(text: str, expected: str | None) -> None:
    assert static_dtype(text) == expected


def test_verdict_treats_weak_runtime_values_as_their_dtype_or_weak_marker() -> None:
    weak, strong = ("float32", True), ("float32", False)
    assert verdict(None, [strong]) == "none"
    assert verdict("float32", [strong]) == "correct"
    assert verdict("float32", [weak]) == "correct"
    assert verdict("weak_float", [weak]) == "correct"
    assert verdict("weak_float", [strong]) == "wrong"  # a strong float32 is not weak
    assert verdict("weak_int", [("int32", True)]) == "correct"
    assert verdict("bool_", [("bool", False)]) == "correct"
    assert verdict("float32", [strong, ("int32", False)]) == "wrong"  # polymorphic
    assert verdict("bfloat16", [strong]) == "wrong"
    assert verdict("key", [("key<fry>", False)]) == "correct"  # any implementation's key


@pytest.mark.parametrize("path", PROGRAMS, ids=ids(PROGRAMS))
def test_instrumented_copy_keeps_every_line_where_it_was(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    copy = instrument(source)
    compile(copy.text, str(path), "exec")  # still Python
    lines, copied = source.splitlines(), copy.text.splitlines()
    assert len(copied) == len(copy.line_map)
    for number, copied_line in zip(copy.line_map, copied, strict=True):
        original = lines[number - 1]
        # A line of the copy is its original with reveal_type calls added, or a new
        # line of reveal_type calls (mapped to the for/with statement it reveals).
        stripped = re.sub(r"(; )?reveal_type\([\w.]+\)(; )?", "", copied_line)
        assert stripped == original or stripped.strip() == ""
    for (line, column), site in copy.reveals.items():
        assert copied[line - 1][column:].startswith(site.name + ")")


def test_instrument_reveals_each_kind_of_site() -> None:
    source = (
        "a, (b, *c) = f()\n"
        "for i, w in g():\n"
        "    if w:\n"
        "        pass\n"
        "with h() as x: y = x\n"
        "self.w += 1\n"
        "z: int = 2\n"
        "u: int\n"
        "d[0] = 1\n"
    )
    copy = instrument(source)
    assert sorted(copy.reveals.values()) == [
        Site(1, "a"), Site(1, "b"), Site(1, "c"), Site(2, "i"), Site(2, "w"),
        Site(5, "x"), Site(5, "y"), Site(6, "self.w"), Site(7, "z"),
    ]  # fmt: skip
    # One reveal per line (mypy drops a repeated note), on lines of their own.
    assert copy.text.splitlines() == [
        "a, (b, *c) = f()",
        "reveal_type(a)",
        "reveal_type(b)",
        "reveal_type(c)",
        "for i, w in g():",
        "    reveal_type(i)",
        "    reveal_type(w)",
        "    if w:",
        "        pass",
        "with h() as x: reveal_type(x); y = x; reveal_type(y)",  # no line to insert
        "self.w += 1",
        "reveal_type(self.w)",
        "z: int = 2",
        "reveal_type(z)",
        "u: int",
        "d[0] = 1",
    ]
    assert copy.line_map == [1, 1, 1, 1, 2, 2, 2, 3, 4, 5, 6, 6, 7, 7, 8, 9]


def test_instrument_never_reveals_beside_a_statement_that_has_its_own_line() -> None:
    # pyright leaves out the reveal of x (and every later one) in "x = x + 1; reveal_type(x)"
    # with x an unannotated parameter: the reveal must be on a line of its own.
    source = (
        "def f(key, x):\n"
        "    key, sub = split(key)  # a comment\n"
        "    x = (x +\n"
        "         1)\n"
        "    for k in x:\n"
        "        x = x * k\n"
        "    a = 1; b = a\n"
        "    if x: c = 2\n"
        "    return x\n"
    )
    copy = instrument(source)
    assert copy.text.splitlines() == [
        "def f(key, x):",
        "    key, sub = split(key)  # a comment",
        "    reveal_type(key)",
        "    reveal_type(sub)",
        "    x = (x +",
        "         1)",
        "    reveal_type(x)",
        "    for k in x:",
        "        reveal_type(k)",
        "        x = x * k",
        "        reveal_type(x)",
        "    a = 1; reveal_type(a); b = a; reveal_type(b)",  # a line of two statements
        "    if x: c = 2; reveal_type(c)",
        "    return x",
    ]
    assert copy.line_map == [1, 2, 2, 2, 3, 4, 3, 5, 5, 6, 6, 7, 8, 9]


def test_corpus_files_leave_tests_out() -> None:
    found = corpus_files(HERE)
    assert HERE / "test_corpus.py" not in found
    assert HERE / "test_public_slice.py" not in found
    # public/: the vendored libraries, checked by test_public_slice.py (they are no programs)
    assert {f for f in found if f.relative_to(HERE).parts[0] != "public"} == set(PROGRAMS)


# --------------------------------------------------------------------------------------------
# Slow: running the programs, and the script on a corpus with known figures


def run_program(path: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run a corpus program as its users would, JAX on CPU with x64 off (the script's setting)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, path.name], cwd=path.parent, env=program_env(), capture_output=True,
        text=True, timeout=300, check=False,
    )  # fmt: skip
    return done, time.perf_counter() - start


@pytest.mark.slow
def test_realistic_and_annotated_programs_run() -> None:
    # Two at a time (the machines running this have two cores or more).
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(REALISTIC + ANNOTATED, pool.map(run_program, REALISTIC + ANNOTATED),
                           strict=True))  # fmt: skip
    for path, (done, _) in results.items():
        assert done.returncode == 0, f"{path.name}:\n{done.stderr[-3000:]}"
        assert done.stdout.strip(), f"{path.name} printed nothing"
        assert "Warning" not in done.stderr, f"{path.name}:\n{done.stderr[-3000:]}"
    seconds = sum(elapsed for _, elapsed in results.values())
    print(f"realistic and annotated programs: {seconds:.1f} s of wall time, two at a time")


@pytest.mark.slow
@pytest.mark.parametrize("path", BUGS, ids=ids(BUGS))
def test_bug_program_fails_at_its_bug_line(path: Path) -> None:
    done, _ = run_program(path)
    assert done.returncode != 0
    bug_line = next(n for n, line in enumerate(path.read_text().splitlines(), 1)
                    if BUG_MARK.search(line))  # fmt: skip
    frames = re.findall(rf'File ".*{re.escape(path.name)}", line (\d+)', done.stderr)
    assert frames, done.stderr[-3000:]
    assert int(frames[-1]) == bug_line, done.stderr[-3000:]  # the innermost frame of the program
    assert re.search(r"(TypeError|TypePromotionError|ValueError): ", done.stderr)


@pytest.mark.slow
def test_basedpyright_reveals_the_sites_of_a_rebound_parameter(tmp_path: Path) -> None:
    # With "x = x + 1; reveal_type(x)" (x an unannotated parameter) pyright reveals nothing
    # there nor at the later sites of x: each reveal has a line of its own.
    source = (
        "def f(key, x):\n"
        "    key, sub = key.split()\n"
        "    x = x + 1\n"
        "    y = x\n"
        "    return key, sub, y\n"
    )
    copies = {"m.py": instrument(source)}
    write_copies(copies, tmp_path)
    exe = find_basedpyright()
    assert exe is not None, "basedpyright is not installed"
    run = CheckerRun()
    run_pyright_once(copies, tmp_path, ROOT / "stubs", run, exe)
    assert run.failure is None
    assert run.types["m.py"] == {
        Site(2, "key"): "Unknown", Site(2, "sub"): "Unknown", Site(3, "x"): "Unknown",
        Site(4, "y"): "Unknown",
    }  # fmt: skip


TINY_A = """\
from typing import cast

import jax.numpy as jnp
import numpy as np

from typing_pkg import Array, float8_e4m3fn, float16, float32, int8, weak_float


def scale(x):
    y = x * 2
    return y


def never_called(x8, s):
    bad = cast(Array[float8_e4m3fn], x8) * cast(Array[float16], s)  # BUG: no promotion
    return bad


def main():
    a = jnp.zeros(3)
    b = a.astype(jnp.int32)
    c = scale(a)
    d = scale(b)
    t = cast(Array[float32], jnp.ones(2))
    u = cast(Array[int8], jnp.ones(2))
    w = cast(Array[weak_float], jnp.asarray(1.0))
    s = cast(Array[weak_float], jnp.ones(2))
    n = np.asarray([1, 2])
    k = 3
    for v in (a, b):
        print(v.dtype)
    if k > 5:
        z = jnp.ones(2)
        print(z)
    print(a, b, c, d, t, u, w, s, n)


if __name__ == "__main__":
    main()
"""

TINY_B = """\
import jax
import jax.numpy as jnp


class Model:
    def __init__(self):
        self.w = jnp.ones(2, dtype=jnp.bfloat16)


@jax.jit
def step(x):
    h = x + 1.0
    return h


def main():
    m = Model()
    m.w = step(m.w)
    key = jax.random.key(0)
    print(m.w, key)


if __name__ == "__main__":
    main()
"""

# What the programs above bind, worked out by hand: (file, line, name) → runtime dtypes.
TINY_RUNTIME = {
    ("a.py", 10, "y"): ["float32", "int32"],  # scale() is called with both
    ("a.py", 20, "a"): ["float32"],
    ("a.py", 21, "b"): ["int32"],
    ("a.py", 22, "c"): ["float32"],
    ("a.py", 23, "d"): ["int32"],
    ("a.py", 24, "t"): ["float32"],
    ("a.py", 25, "u"): ["float32"],
    ("a.py", 26, "w"): ["float32 (weak)"],  # jnp.asarray of a Python float
    ("a.py", 27, "s"): ["float32"],
    ("a.py", 28, "n"): ["int64"],  # NumPy's default integer
    ("a.py", 30, "v"): ["float32", "int32"],
    ("b.py", 7, "self.w"): ["bfloat16"],
    ("b.py", 12, "h"): ["bfloat16"],  # seen once, as a tracer under jit
    ("b.py", 18, "m.w"): ["bfloat16"],
    ("b.py", 19, "key"): ["key<fry>"],  # a typed PRNG key: the key marker
}
# k (an int), m (a Model), bad (never called) and z (never executed) are not there.

# The casts give every checker the same static dtype, with or without JAX hooks.
TINY_CAST_VERDICTS = {
    ("a.py", "t"): ("float32", "correct"),
    ("a.py", "u"): ("int8", "wrong"),  # runtime float32
    ("a.py", "w"): ("weak_float", "correct"),  # runtime weak float32
    ("a.py", "s"): ("weak_float", "wrong"),  # runtime strong float32
}
# Sites that can only be "none" (several dtypes, NumPy's dtype[Any], and for basedpyright an
# unannotated argument; the mypy plugin types b.py's h through the call step(m.w)).
TINY_NONE = {("a.py", "y"), ("a.py", "v"), ("a.py", "n")}
TINY_NONE_OF = {"mypy": TINY_NONE, "basedpyright": TINY_NONE | {("b.py", "h")}}


@pytest.mark.slow
def test_script_measures_a_tiny_corpus(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.py").write_text(TINY_A)
    (corpus / "b.py").write_text(TINY_B)
    out = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(corpus), "--json", str(out)],
        capture_output=True, text=True, check=False, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(out.read_text())
    assert report["unparsable"] == {}
    assert set(report["checkers"]) == {"mypy", "basedpyright"}
    assert all(info["failure"] is None for info in report["checkers"].values())

    rows = {(rel, row["line"], row["name"]): row
            for rel, entry in report["files"].items() for row in entry["sites"]}  # fmt: skip
    assert {site: row["runtime"] for site, row in rows.items()} == TINY_RUNTIME
    assert {site for site, row in rows.items() if row["polymorphic"]} == {
        ("a.py", 10, "y"), ("a.py", 30, "v")
    }  # fmt: skip
    assert {site for site, row in rows.items() if row["unmarked"]} == set()
    for entry in report["files"].values():
        assert entry["status"] == 0

    for checker in ("mypy", "basedpyright"):
        by_name = {(rel, name): row[checker] for (rel, _, name), row in rows.items()}
        for site, (dtype, result) in TINY_CAST_VERDICTS.items():
            assert (by_name[site]["dtype"], by_name[site]["verdict"]) == (dtype, result), checker
        none = TINY_NONE_OF[checker]
        for site in none:
            assert by_name[site]["verdict"] == "none", (checker, site)
        # The other sites are plain JAX calls: no dtype without the hooks, the right one with them.
        others = {site: static for site, static in by_name.items()
                  if site not in TINY_CAST_VERDICTS and site not in none}  # fmt: skip
        assert all(static["verdict"] in ("none", "correct") for static in others.values())
        extra = sum(static["verdict"] == "correct" for static in others.values())

        a, b = report["files"]["a.py"], report["files"]["b.py"]
        extra_a, extra_b = extra_in(a, checker), extra_in(b, checker)
        assert a["figures"][checker] == {
            "arrays": 11, "polymorphic": 2, "unmarked": 0, "concrete": 4 + extra_a,
            "correct": 2 + extra_a, "wrong": 2, "new_errors": 1, "bugs": 1, "caught": 1,
        }  # fmt: skip
        assert b["figures"][checker] == {
            "arrays": 4, "polymorphic": 0, "unmarked": 0, "concrete": extra_b,
            "correct": extra_b, "wrong": 0, "new_errors": 0, "bugs": 0, "caught": 0,
        }  # fmt: skip
        assert report["totals"][checker] == {
            "arrays": 15, "polymorphic": 2, "unmarked": 0, "concrete": 4 + extra,
            "correct": 2 + extra, "wrong": 2, "new_errors": 1, "bugs": 1, "caught": 1,
        }  # fmt: skip
        # The one new error: float8_e4m3fn * float16, which the plugin and the stubs reject.
        [error] = a["new_errors"][checker]
        assert (error["file"], error["line"]) == ("a.py", 15)
        assert error["code"] == {"mypy": "dtype-promotion",
                                 "basedpyright": "reportOperatorIssue"}[checker]  # fmt: skip
    assert "coverage (correct / arrays)" in done.stdout
    assert "bugs caught (a new error on a line marked # BUG:): 1 of 1" in done.stdout
    # mypy's sites without a dtype each get the primer's reason (tools/primer/reasons.py)
    reasons = {(rel, name): row["mypy"].get("reason") for (rel, _, name), row in rows.items()
               if row["mypy"]["verdict"] == "none" and not row["unmarked"]}  # fmt: skip
    assert reasons == TINY_REASONS
    assert "sites without a dtype, by reason (* a gap of the plugin): " in done.stdout


# Why mypy leaves each of those sites without a dtype: y is scale()'s, called with both dtypes
# (several-dtypes at the revealed union), v an element of a tuple of the two, n NumPy's.
_BOTH = "typing_pkg.typing.Array[typing_pkg.dtypes.float32] | typing_pkg.typing.Array[typing_pkg.dtypes.int32]"  # noqa: E501
TINY_REASONS = {
    ("a.py", "y"): f"several-dtypes: {_BOTH}",
    ("a.py", "v"): f"several-dtypes: {_BOTH}",
    ("a.py", "n"): "numpy: numpy.asarray",
}


def extra_in(entry: dict[str, Any], checker: str) -> int:
    """How many plain-JAX sites of a file a checker typed correctly (none before the hooks)."""
    casts = {name for _, name in TINY_CAST_VERDICTS}
    return sum(
        row[checker]["verdict"] == "correct"
        for row in entry["sites"]
        if row["name"] not in casts and not row["unmarked"]
    )
