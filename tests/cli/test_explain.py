"""``typing-pkg explain``: the result dtype of a JAX function on the command line."""

from __future__ import annotations

import pytest

from typing_pkg.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (("jnp.mean", "int8"), "float32"),
        (("jax.numpy.exp", "int64", "--rules", "jax-x64"), "float64"),
        (("jnp.add", "int8", "py_float"), "weak_float"),
        (("jnp.zeros", "--dtype", "bfloat16"), "bfloat16"),
        (("jnp.zeros", "--dtype", "float64"), "float32"),
        (("jnp.sum", "uint8", "--option", "promote_integers=false"), "uint8"),
        (("linalg.slogdet", "complex64"), "complex64, float32"),
        (("random.normal",), "float32"),
    ],
)
def test_prints_the_result_marker(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], expected: str
) -> None:
    assert run(capsys, "explain", *argv) == (0, expected + "\n", "")


def test_unknown_entries_print_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "explain", "jax.scipy.linalg.cho_factor")
    assert status == 0
    assert out.startswith("unknown (a pair (factor, lower: bool)")


def test_a_key_array_is_the_key_marker(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "explain", "random.key") == (0, "key\n", "")
    assert run(capsys, "explain", "random.split", "key") == (0, "key\n", "")


def test_verbose_prints_the_entry(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "explain", "-v", "jnp.mean", "int8")
    assert status == 0
    assert out.splitlines() == ["jax.numpy.mean: reduce: reduce(a)", "float32"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("jnp.subtract", "bool", "bool"), "undefined: jax.numpy.subtract: - does not accept"),
        (("jnp.add", "int8", "float32", "--rules", "jax-strict"), "undefined: jax.numpy.add"),
        (("jnp.shape",), "not an array: jax.numpy.shape: returns a tuple of ints"),
    ],
)
def test_exit_1_where_undefined(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    status, out, err = run(capsys, "explain", *argv)
    assert (status, out) == (1, "")
    assert err.startswith(message)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("jnp.meen", "int8"), "did you mean 'jax.numpy.mean'?"),
        (("jnp.add", "int8"), "needs the dtypes of its array arguments: x, y"),
        (("jnp.exp", "int9"), "unknown dtype 'int9'"),
        (("jnp.exp", "int8", "--rules", "nope"), "unknown rule set 'nope'"),
        (("jnp.exp", "int8", "--rules", "numpy"), "follows JAX's rule sets"),
        (("jnp.sum", "int8", "--option", "promote_integers"), "--option takes NAME=VALUE"),
    ],
)
def test_exit_2_on_usage_errors(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    status, out, err = run(capsys, "explain", *argv)
    assert (status, out) == (2, "")
    assert message in err
    assert err.count("\n") == 1
