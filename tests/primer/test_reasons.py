"""The primer's reasons for untyped array sites (``tools/primer/reasons.py``).

A small project is written to a folder with the types a coverage run would
reveal for its sites (written here by hand, as mypy with the plugin prints
them); each untyped site must get the reason its source gives.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tools.corpus_coverage import Site
from tools.primer.projects import parse_projects
from tools.primer.reasons import REASONS, Cause, classify, is_gap, tally
from tools.primer.report import render
from tools.primer.runner import ProjectResult
from tools.primer.sites import SiteCounts

F32 = "typing_pkg.typing.Array[typing_pkg.dtypes.float32]"
I32 = "typing_pkg.typing.Array[typing_pkg.dtypes.int32]"
UNKNOWN = "typing_pkg.typing.Array[Any]"
ENTRY = """\
[[project]]
name = "tiny"
repo = "someone/tiny"
commit = "0123456789abcdef0123456789abcdef01234567"
license = "MIT"
kind = "test"
paths = ["."]
deps = []
lines = 12
"""

MODEL = """\
from functools import partial
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import not_an_installed_library
from jax import lax
from jax.experimental import pallas as pl
from pkg.ops import scale


def public(x):
    y = x * 2  # site y: input
    return y


def declared(x: jax.Array):
    z = jnp.sin(x)  # site z: annotation
    return z


def narrowed(x: jax.Array):
    d = jnp.cos(x)  # site d: call-site
    return d


class State(NamedTuple):
    w: jax.Array


def objective(params, batch):
    o = params * batch  # site o: transformed
    return o.sum()


def helper(v):
    h = v + 1  # site h: call-site
    return h


def scanned(carry, x):
    c = carry + x  # site c: transformed
    return c, c


def kernel(x_ref, o_ref):
    v = x_ref[...] + 1  # site v: annotation
    o_ref[...] = v


def launch(x: jax.Array):
    return pl.pallas_call(partial(kernel), out_shape=x)(x)


class Solver:
    def __init__(self, eps: float):
        self.eps = eps  # site self.eps

    def step(self, g: jax.Array, opaque):
        r = self.eps * g  # site r: annotation
        t = opaque.value  # site t
        q = t * 2  # site q: annotation
        return r, q


def zeros_of(shape: tuple[int, int], x):
    zz = jnp.zeros(shape) + x  # site zz: input
    return zz


def body(carry, xs):
    i, w = xs
    m = carry * w  # site m: annotation
    return m, m


def run_body(w: jax.Array):
    return lax.scan(body, jnp.zeros(3, jnp.float32), (jnp.arange(3), w))


def lossy(p, b):
    lv = p * b  # site lv: annotation
    return lv.sum()


def train(batch: jax.Array):
    grad_fn = jax.value_and_grad(lossy)
    return grad_fn(jnp.zeros(3), batch)


def pick(i):
    it = jnp.arange(3)[i] + i  # site it: input
    return it


class Box(NamedTuple):
    v: jax.Array


def read(box: Box):
    b = box.v  # site b: annotation
    return b


@jax.jit
def exported(x):
    ex = x * 2  # site ex: input
    return ex


def kw_body(carry, x):
    kb = carry + x  # site kb: annotation
    return kb, kb


def run_kw(w: jax.Array):
    return lax.scan(kw_body, init=w, xs=w)


def from_library(cfg: not_an_installed_library.Config):
    lf = jnp.zeros(3) * cfg.scale  # site lf: untyped-library
    return lf


class Cell(NamedTuple):
    c: jax.Array


class Holder(NamedTuple):
    v: jax.Array


def outer(h: Optional[Holder]):
    if h is None:
        return None

    @jax.vmap
    def inner(hh):
        hv = hh.v * 2  # site hv: annotation
        return hv

    return inner(h)


class Acc(NamedTuple):
    a: jax.Array


def bump(v):
    return v + 1


def accumulate():
    acc = Acc(jnp.zeros(2))._replace(a=bump(jnp.zeros(2)))  # site acc
    ac = acc.a  # site ac: call-site
    return ac


def grow(x):
    cell = Cell(jnp.zeros(2))._replace(c=x)  # site cell
    cc = cell.c  # site cc: annotation
    return cc


def make_train(n):
    def train(seed_key):
        def step(carry, _):
            p, key = carry
            sk = jax.random.split(key)  # site sk: call-site
            return (p, sk[0]), None

        out, _ = lax.scan(step, (not_an_installed_library.init(), seed_key), None, n)
        return out

    return train


def go(seed):
    return jax.jit(make_train(3))(jax.random.PRNGKey(seed))


class Net(not_an_installed_library.Module):
    def __call__(self, x):
        return x


def apply_net():
    net = Net()  # site net
    ap = net.apply(jnp.zeros(3))  # site ap: untyped-library
    at = not_an_installed_library.wrap(net.apply)  # site at: untyped-library
    return ap, at


class Geo:
    @property
    def cost(self) -> jax.Array:
        return jnp.zeros(3)


def use_geo(g: Geo):
    def dist():
        gc = g.cost * 2  # site gc: annotation
        return gc

    return dist()


def from_batch(batch: dict[str, jax.Array]):
    names = ["x", "y"]  # site names
    bx, by = (batch.get(n) for n in names)  # site bx: annotation
    return bx, by


def choose(mask, x: jax.Array):
    wh = jnp.where(mask, x, -1)  # site wh: annotation
    hl = not_an_installed_library.Linear(3)(jnp.zeros(3))  # site hl: untyped-library
    return wh, hl


def gather(loader):
    batches = []
    for b in loader:
        batches.append(jnp.asarray(b))
    gb = jnp.concatenate(batches)  # site gb: input
    return gb


def coords_of():
    cs = []
    for i in range(4):
        cs.append([i, i])
    ca = jnp.array(cs)  # site ca: value-dependent
    return ca


def padded(valid=None):
    if valid is None:
        valid = jnp.ones(3)  # site valid
    vt = jnp.sum(valid)  # site vt: input
    return vt


def run(flag):
    data = jnp.zeros(3, jnp.float32)  # site data
    out = helper(data)
    final, _ = lax.scan(scanned, data, data)
    params = {"w": data}  # site params
    w = params["w"]  # site w: pytree
    k = jax.scipy.linalg.expm_frechet(data, data)  # site k: api-gap
    ld = jnp.load("weights.npy")  # site ld: value-dependent
    u = not_an_installed_library.load()  # site u: untyped-library
    e = data if flag else jnp.arange(3)  # site e: several-dtypes
    scaled = scale(data)  # site scaled: other-module
    both = narrowed(data)
    objective_of = partial(objective)
    gradient = jax.grad(objective_of)(data, data)
    state = State(data)  # site state
    sw = state.w  # site sw: pytree
    return out, final, w, k, ld, u, e, scaled, both, sw, gradient
"""
OPS = """\
def scale(v):
    s = v * 3  # site s: other-module
    return s
"""
TYPES = {
    "y": UNKNOWN, "z": UNKNOWN, "h": UNKNOWN, "c": UNKNOWN, "data": F32,
    "params": f"builtins.dict[builtins.str, {F32}]", "w": UNKNOWN, "k": UNKNOWN,
    "u": UNKNOWN, "e": f"{F32} | {I32}", "scaled": UNKNOWN, "s": UNKNOWN, "d": UNKNOWN,
    "state": "pkg.model.State", "sw": UNKNOWN, "o": UNKNOWN, "v": UNKNOWN,
    "self.eps": "builtins.float", "r": UNKNOWN, "t": "Array?", "q": UNKNOWN, "b": UNKNOWN,
    "zz": UNKNOWN, "m": UNKNOWN, "lv": UNKNOWN, "it": UNKNOWN, "ld": UNKNOWN, "ex": UNKNOWN,
    "kb": UNKNOWN, "lf": UNKNOWN, "cell": "pkg.model.Cell", "cc": UNKNOWN,
    "hv": UNKNOWN, "acc": "pkg.model.Acc", "ac": UNKNOWN, "sk": UNKNOWN, "ap": UNKNOWN,
    "net": "pkg.model.Net", "at": UNKNOWN, "wh": UNKNOWN, "hl": UNKNOWN,
    "gb": UNKNOWN, "valid": F32, "vt": UNKNOWN, "ca": UNKNOWN,
    "gc": UNKNOWN, "names": "builtins.list[builtins.str]", "bx": UNKNOWN,
}  # fmt: skip


def _sites(source: str) -> dict[Site, tuple[str, str | None]]:
    """Each ``# site name[: reason]`` comment's site, its type and the reason expected."""
    found: dict[Site, tuple[str, str | None]] = {}
    for number, line in enumerate(source.splitlines(), start=1):
        if "# site " in line:
            mark = line.split("# site ", 1)[1]
            name, _, reason = mark.partition(":")
            found[Site(number, name.strip())] = (TYPES[name.strip()], reason.strip() or None)
    return found


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "model.py").write_text(MODEL, encoding="utf-8")
    (tmp_path / "pkg" / "ops.py").write_text(OPS, encoding="utf-8")
    return tmp_path


def test_each_untyped_site_gets_the_reason_its_source_gives(project: Path) -> None:
    files = {"pkg/model.py": _sites(MODEL), "pkg/ops.py": _sites(OPS)}
    types = {rel: {site: text for site, (text, _) in sites.items()} for rel, sites in files.items()}
    causes = classify(project, types, python=sys.executable)
    expected = {
        (rel, site.name): reason
        for rel, sites in files.items()
        for site, (_, reason) in sites.items()
        if reason is not None
    }
    found = {(rel, s.name): cause.key for rel, by in causes.items() for s, cause in by.items()}
    assert found == expected
    assert set(expected.values()) == set(REASONS) - {"numpy", "unexplained"}


def test_a_cause_names_what_it_found(project: Path) -> None:
    sites = _sites(MODEL)
    types = {"pkg/model.py": {site: text for site, (text, _) in sites.items()}}
    causes = classify(project, types, python=sys.executable)["pkg/model.py"]
    by_name = {site.name: cause for site, cause in causes.items()}
    assert by_name["k"] == Cause("api-gap", "jax.scipy.linalg.expm_frechet")  # a flag, pending
    assert by_name["ld"] == Cause("value-dependent", "jax.numpy.load")
    assert by_name["z"].detail == "parameter x of declared: jax.Array"
    assert by_name["y"].detail == "parameter x of public"
    assert by_name["h"].detail == "parameter v of helper (called in pkg/model.py)"
    assert str(by_name["u"]) == "untyped-library: not_an_installed_library.load"
    assert by_name["o"].detail == (
        "parameter params of objective (its transformation's arguments are known)"
    )
    assert by_name["d"].detail == (
        "parameter x of narrowed: jax.Array, narrowed by no call (called in pkg/model.py)"
    )
    assert by_name["v"].detail == "parameter x of launch: jax.Array"  # through pallas_call
    assert by_name["r"].detail == "parameter g of step: jax.Array"  # not the float self.eps
    assert by_name["q"].detail == "t: Array?, a type mypy does not resolve"
    assert by_name["b"].detail == "field Box.v: jax.Array"  # through box's annotation
    assert by_name["m"].detail == "parameter w of run_body: jax.Array"  # not the known carry
    assert by_name["lv"].detail == "parameter batch of train: jax.Array"  # through grad_fn
    assert by_name["it"].detail == "parameter i of pick"  # not jnp.arange(3)[i]
    assert by_name["zz"].detail == "parameter x of zeros_of"  # not shape: tuple[int, int]
    assert by_name["ex"].detail == (
        "parameter x of exported (transformed; the project applies it nowhere in view)"
    )  # jitted, never called: an input, not a gap
    assert by_name["kb"].detail == "parameter w of run_kw: jax.Array"  # scan(init=w)
    assert str(by_name["lf"]) == "untyped-library: not_an_installed_library.Config.scale"
    assert by_name["sw"].detail == (
        "field State.w: jax.Array, built with a known dtype in pkg/model.py"
    )
    assert by_name["cc"].detail == "field Cell.c: jax.Array"  # _replace(c=x) leaves it open
    assert by_name["hv"].detail == "field Holder.v: jax.Array"  # the class inner(h) passes
    assert by_name["ac"].detail.startswith("field Acc.a: jax.Array, set from ")  # bump(known)
    assert by_name["sk"].detail == (
        "parameter seed_key of train, a function make_train returns, called through its result"
    )  # the carry's item 1, not its known item 0
    assert by_name["ap"].detail == (
        "Net.apply, not the project's: not_an_installed_library.Module's"
    )  # a method the library's base class gives, not a field of the program's
    assert by_name["at"] == by_name["ap"]  # net.apply, the function, given to a library
    assert by_name["gc"].detail == "property Geo.cost -> jax.Array"  # read in a closure
    assert by_name["wh"].detail == "parameter x of choose: jax.Array"  # not where's condition
    assert str(by_name["hl"]) == "untyped-library: not_an_installed_library.Linear.__call__"
    assert by_name["gb"].detail == "parameter loader of gather"  # what the list is filled with
    assert by_name["ca"].detail == "jax.numpy.array of a sequence of unknown length"  # maybe []
    assert by_name["vt"].detail == "parameter valid of padded"  # the value the if keeps
    assert by_name["bx"].detail == "parameter batch of from_batch: dict[str, jax.Array]"


def test_typed_sites_and_other_types_get_no_reason(project: Path) -> None:
    sites = _sites(MODEL)
    types = {"pkg/model.py": {site: text for site, (text, _) in sites.items()}}
    causes = classify(project, types, python=sys.executable)["pkg/model.py"]
    assert {site.name for site in causes} == {
        "y", "z", "h", "c", "w", "k", "u", "e", "scaled", "d", "sw", "o", "v", "r", "q", "b",
        "zz", "m", "lv", "it", "ld", "ex", "kb", "lf", "cc", "hv", "ac", "sk", "ap", "gc", "bx",
        "at", "wh", "hl", "gb", "vt", "ca",
    }  # fmt: skip


def test_the_tally_keeps_the_classes_order_and_gaps_are_marked() -> None:
    causes = {
        "a.py": {
            Site(1, "x"): Cause("pytree", "d['x']"),
            Site(2, "y"): Cause("input", "parameter y of f"),
            Site(3, "z"): Cause("pytree", "d['z']"),
        }
    }
    assert list(tally(causes).items()) == [("input", 1), ("pytree", 2)]
    assert is_gap("pytree") and not is_gap("input")
    assert [key for key in REASONS if not is_gap(key)] == [
        "input", "annotation", "untyped-library", "value-dependent", "several-dtypes", "numpy",
    ]  # fmt: skip


def test_the_report_gives_the_reasons_over_the_projects_and_each_project_s_gaps() -> None:
    (project,) = parse_projects(ENTRY)
    sites = SiteCounts(arrays=5, typed=2, reasons={"input": 1, "pytree": 2})
    sites.causes = {
        "m.py": {
            "3:x": "input: parameter x of f",
            "4:w": "pytree: an item: d['w']",
            "5:v": "pytree: an item: d['v']",
        }
    }
    lines = render([ProjectResult(project, files=1, sites=sites)]).splitlines()
    at = lines.index(
        "Array-valued sites of the 1 projects measured: 5, typed 2 (40.0%); the untyped, by reason:"
    )
    table = lines[at + 1 : at + 1 + len(REASONS)]
    assert table[0].split() == ["1", "input", *REASONS["input"].text.split()]
    assert "      2  gap  pytree " in "\n".join(table)
    assert "    * m.py:4 w  <- pytree: an item: d['w']" in lines
    assert "    * m.py:3 x  <- input: parameter x of f" not in lines
