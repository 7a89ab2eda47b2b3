"""The typed JAX stubs in the editor: what ``basedpyright-langserver`` shows through them.

One language server session (``lsp_client``) opens a JAX program in a project
whose ``typings/`` holds the generated stubs, as an editor would, and asks
for hovers and completions.  A result's hover names its dtype the way a user
writes it (``Array[float32]``), with nothing of the stubs' machinery: no
private names, no rule protocols, no type variables; completion on an array
offers ``jax.Array``'s methods and properties.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from jaxproject import write_project
from lsp_client import Json, LanguageServer

from tools.checkers.run import basedpyright_command
from typing_pkg.stubgen import jax as jaxstubs

PROGRAM = """\
import jax
import jax.numpy as jnp

key = jax.random.key(0)
k_w, k_x = jax.random.split(key)
w = jax.random.normal(k_w, (3, 4), dtype=jnp.bfloat16)
x = jax.random.uniform(k_x, (2, 3))
h = jnp.tanh(x @ w.astype(jnp.float32))
s = h.sum()
y = jnp.zeros(3, jnp.int8)
p = jax.nn.softmax(h)
e = jnp.exp(y)
updated = y.at[0].set(1)


@jax.jit
def loss(w: jax.Array):
    logits = x @ w.astype(jnp.float32)
    return -jnp.mean(jax.nn.log_softmax(logits))


value = loss(w)
"""

_INTERNAL = re.compile(
    r"\b_[A-Za-z]\w*"  # a private name: _Keep1, _DT_co, _tpd
    r"|\b\w+@\w+"  # a type variable, as pyright shows it: _Requested@zeros
    r"|\b\w+Rule\b"  # a rule protocol: AddRule
    r"|\btyping_pkg\.|\bjax\._src\."  # a qualified name
)


def internal_names(text: str) -> list[str]:
    """The names of the stubs' machinery in a hover's text."""
    return _INTERNAL.findall(text)


@dataclass(frozen=True)
class Editor:
    """The program open in a language server, with what the server reported on it."""

    server: LanguageServer
    uri: str
    diagnostics: list[Json]

    def hover(self, text: str, offset: int = 0) -> str:
        """The code of the hover at ``offset`` characters into ``text`` (unique in the program).

        The hover is Markdown: a Python block, then the docstring if any.
        """
        shown = self.server.hover(self.uri, *_at(text, offset))
        found = re.match(r"```python\n(.*?)\n```(\n|$)", shown, re.DOTALL)
        assert found is not None, f"no code in the hover on {text!r}: {shown!r}"
        return found[1]

    def completion(self, text: str, offset: int) -> set[str]:
        """The labels of the completion at ``offset`` characters into ``text``."""
        return set(self.server.completion(self.uri, *_at(text, offset)))


def _at(text: str, offset: int) -> tuple[int, int]:
    """The LSP position (line, UTF-16 column) of ``offset`` characters into ``text``."""
    assert PROGRAM.isascii() and PROGRAM.count(text) == 1, text
    index = PROGRAM.index(text) + offset
    line = PROGRAM.count("\n", 0, index)
    return line, index - (PROGRAM.rfind("\n", 0, index) + 1)


@pytest.fixture(scope="module")
def editor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Editor]:
    root = tmp_path_factory.mktemp("editor")
    path = write_project(root, PROGRAM)
    command = [*basedpyright_command(name="basedpyright-langserver"), "--stdio"]
    settings: dict[str, Json] = {"python": {"pythonPath": sys.executable}}
    with LanguageServer(command, root, settings) as server:
        uri = server.open(path, PROGRAM)
        yield Editor(server, uri, server.wait_for_diagnostics(uri))


def test_the_program_checks(editor: Editor) -> None:
    assert editor.diagnostics == []  # JAX found, the stubs read, nothing reported


@pytest.mark.parametrize(
    ("name", "dtype"),
    [
        ("w", "bfloat16"),  # jax.random.normal(..., dtype=jnp.bfloat16)
        ("x", "float32"),  # JAX's default float
        ("h", "float32"),
        ("s", "float32"),
        ("y", "int8"),
        ("p", "float32"),
        ("e", "float32"),  # exp of an integer array: the default float
        ("updated", "int8"),
        ("value", "float32"),  # a jitted function's inferred result
    ],
)
def test_hover_on_a_result_shows_its_dtype(editor: Editor, name: str, dtype: str) -> None:
    assert editor.hover(f"\n{name} = ", 1) == f"(variable) {name}: Array[{dtype}]"


def test_hover_on_a_scalar_type_is_readable(editor: Editor) -> None:
    code = editor.hover("x @ w.astype(jnp.float32))", len("x @ w.astype(jnp."))
    # JAX's own class of its scalar types (what ``type(jnp.float32)`` shows), private as
    # JAX's is: pyright lets a parameter defaulting to it take a ``np.dtype`` too
    assert code == "(variable) float32: _ScalarMeta[float32]"
    assert internal_names(code.replace("_ScalarMeta[", "[")) == []


@pytest.mark.parametrize(
    ("text", "offset", "start"),
    [
        ("jnp.exp(y)", len("jnp."), "(function) def exp("),
        ("h.sum()", len("h."), "(method) def sum("),
    ],
)
def test_hover_on_a_call_shows_the_overload_it_takes(
    editor: Editor, text: str, offset: int, start: str
) -> None:
    code = editor.hover(text, offset)
    assert code.startswith(start)
    assert code.endswith(") -> Array[float32]")
    assert internal_names(code) == []


ARRAY_MEMBERS = {
    "astype",
    "sum",
    "mean",
    "reshape",
    "transpose",
    "at",
    "block_until_ready",
    "devices",
    "sharding",
    "dtype",
    "shape",
    "ndim",
    "size",
    "T",
}


def test_completion_on_a_result_lists_the_array_members(editor: Editor) -> None:
    labels = editor.completion("h.sum()", len("h."))
    assert ARRAY_MEMBERS - labels == set()
    jax_own = (jaxstubs.jax_dir() / "_src" / "basearray.pyi").read_text(encoding="utf-8")
    private = [label for label in labels if internal_names(label)]
    assert [label for label in private if f"def {label}(" not in jax_own] == []
