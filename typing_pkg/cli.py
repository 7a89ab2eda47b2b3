"""The command line: ``python -m typing_pkg`` or ``typing-pkg``.

Subcommands (the rules default to ``jax``; ``--rules`` takes any name that
``typing_pkg.rules.names()`` lists)::

    typing-pkg promote float32 int8                  # float32
    typing-pkg promote uint64 int64 --rules numpy
    typing-pkg table --format markdown               # the promotion table
    typing-pkg table --op truediv --only bool_,int8,uint8,float16
    typing-pkg table --format html --highlight numpy # JAX's page: cells unlike NumPy's
    typing-pkg diff jax jax-x64                      # cells where two rule sets differ
    typing-pkg lattice --format svg --output lattice.svg
    typing-pkg lattice --format svg --engine builtin  # no Graphviz: same bytes everywhere
    typing-pkg verify                                # the lattice laws, every rule set
    typing-pkg stubs --check
    typing-pkg stubs --rules numpy --out typings     # pyright's stubPath: another rule set
    typing-pkg stubs --config pyproject.toml --out typings --check  # mypy's [tool.typing_pkg]
    typing-pkg explain jnp.mean int8                 # float32: a JAX function's result

Dtypes are given by marker name (``float32``, ``weak_int``), by a code of
JAX's table (``f4``, ``i*``, ``bf``) or by any name NumPy knows.  Operators
(``--op``) are named as in Python's ``operator`` module (``add``,
``truediv``, ``iadd``, ``neg``, ``abs``) or written as symbols (``+``,
``//``, ``<<``; ``-`` and ``+`` mean the binary forms).

Exit status: 0 on success; 1 when the answer is negative (an undefined
promotion, a rule set that breaks a lattice law); 2 for a usage error (an
unknown rule set, dtype, operator or format), reported on one line of
standard error.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn, TypeVar

from typing_pkg import render
from typing_pkg.dtypes import CONCRETE, WEAK
from typing_pkg.lattice import LatticeError, Promotion, Verification, verify
from typing_pkg.ops import OPERATORS, SYMBOL
from typing_pkg.rules import DEFAULT, RuleSet, UnknownRulesError, get_rules, names

__all__ = ["main"]

_EXAMPLES = 3
"""How many counter-examples ``verify`` prints for a broken law."""


class UsageError(Exception):
    """A bad argument: reported on one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and an exception, not an exit."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


# ------------------------------------------------------------------ inputs


def _rules(name: str) -> RuleSet:
    """Return the rule set called ``name`` or raise ``UsageError``."""
    try:
        return get_rules(name)
    except UnknownRulesError as error:
        raise UsageError(str(error)) from None
    except ImportError as error:
        raise UsageError(f"rule set {name!r} is not available: {error}") from None
    except LatticeError as error:
        raise UsageError(f"rule set {name!r} is broken: {error}") from None


def _dtype(text: str) -> str:
    """Return the marker name ``text`` stands for, or raise ``UsageError``."""
    from typing_pkg.dtypelike import to_marker

    try:
        return to_marker(text).name
    except TypeError:
        pass
    known = [m.name for m in (*CONCRETE, *WEAK)] + [m.code for m in (*CONCRETE, *WEAK)]
    close = difflib.get_close_matches(text, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise UsageError(f"unknown dtype {text!r}{hint} (give a name like float32 or a code like f4)")


def _operator(text: str | None) -> str | None:
    """Return the operator name for a name or symbol, or raise ``UsageError``."""
    if text is None or text in OPERATORS:
        return text
    for op in OPERATORS:  # binary operators come first: "-" is sub, not neg
        if SYMBOL[op] == text:
            return op
    raise UsageError(f"unknown operator {text!r}; valid operators: {', '.join(OPERATORS)}")


def _only(text: str | None) -> list[str] | None:
    """Return the marker names of a comma-separated list of dtypes."""
    if text is None:
        return None
    items = [item.strip() for item in text.split(",")]
    if not all(items):
        raise UsageError(f"--only: empty dtype in {text!r}")
    return [_dtype(item) for item in items]


def _choice(values: Sequence[str], what: str) -> Callable[[str], str]:
    """Return an argparse type that accepts only ``values``."""

    def check(text: str) -> str:
        if text not in values:
            raise argparse.ArgumentTypeError(
                f"unknown {what} {text!r}; valid {what}s: {', '.join(values)}"
            )
        return text

    check.__name__ = what
    return check


# ---------------------------------------------------------------- commands


def _write(text: str, output: str | None = None) -> None:
    """Write ``text`` to ``output`` (a path) or to standard output."""
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write {output}: {error.strerror or error}") from None


def _cmd_promote(args: argparse.Namespace) -> int:
    from typing_pkg.promotion import PromotionError, promote_types

    rules = _rules(args.rules)
    a, b = _dtype(args.a), _dtype(args.b)
    try:
        result = promote_types(a, b, rules=rules.name)
    except PromotionError as error:
        print(error, file=sys.stderr)
        return 1
    _write(result.name)
    return 0


_T = TypeVar("_T")


def _render(call: Callable[[], _T]) -> _T:
    """Run a renderer, turning its refusals into usage errors."""
    try:
        return call()
    except render.RenderError as error:
        raise UsageError(str(error)) from None


def _cmd_table(args: argparse.Namespace) -> int:
    rules = _rules(args.rules)
    op, only = _operator(args.op), _only(args.only)
    highlight = _rules(args.highlight) if args.highlight else None
    _write(
        _render(
            lambda: render.render_table(
                rules, args.format, op=op, names=args.names, only=only, highlight=highlight
            )
        )
    )
    return 0


def _cmd_diff(args: argparse.Namespace) -> int:
    left, right = _rules(args.r1), _rules(args.r2)
    op, only = _operator(args.op), _only(args.only)
    _write(
        _render(
            lambda: render.render_diff(left, right, args.format, op=op, names=args.names, only=only)
        )
    )
    return 0


def _cmd_lattice(args: argparse.Namespace) -> int:
    rules = _rules(args.rules)
    lattice = _render(lambda: render.lattice_of(rules))
    title = f"{rules.name}: {rules.title}"
    if args.format == "dot":
        text = render.render_dot(lattice, name=rules.name, title=title)
    else:
        text = _render(
            lambda: render.render_svg(lattice, name=rules.name, title=title, engine=args.engine)
        )
    _write(text, args.output)
    return 0


def _join_text(promotion: Promotion, a: str | None, b: str | None) -> str | None:
    return None if a is None or b is None else promotion.join(a, b)


def _show(result: str | None) -> str:
    return "undefined" if result is None else result


def _describe(promotion: Promotion) -> str:
    kind = "a lattice" if hasattr(promotion, "edges") else "a promotion table"
    return f"{kind} of {len(promotion.types)} types"


def _report(rules: RuleSet, found: Verification) -> list[str]:
    """Return the readable report of one rule set's verification."""
    promotion = rules.promotion
    join = promotion.join
    lattice = hasattr(promotion, "edges")
    pairs = found.defined + found.undefined
    lines = [
        f"rules: {rules.name} ({rules.title})",
        f"promotion: {_describe(promotion)}",
        f"types: {found.types}",
        f"pairs: {pairs} ({found.defined} defined, {found.undefined} undefined)",
        "unique joins: "
        + ("yes (every pair has one least upper bound, or none)" if lattice
           else "not applicable (a table, not a lattice)"),
    ]  # fmt: skip
    if found.not_idempotent:
        lines.append(f"idempotent: no, {len(found.not_idempotent)} types, e.g.")
        lines += [
            f"  {a} with {a} gives {_show(join(a, a))}" for a in found.not_idempotent[:_EXAMPLES]
        ]
    else:
        lines.append("idempotent: yes")
    if found.not_commutative:
        lines.append(f"commutative: no, {len(found.not_commutative)} pairs, e.g.")
        lines += [
            f"  {a} with {b} gives {_show(join(a, b))}, {b} with {a} gives {_show(join(b, a))}"
            for a, b in found.not_commutative[:_EXAMPLES]
        ]
    else:
        lines.append("commutative: yes")
    if found.not_associative:
        lines.append(f"associative: no, {len(found.not_associative)} triples, e.g.")
        lines += [
            f"  ({a} with {b}) with {c} gives {_show(_join_text(promotion, join(a, b), c))}, "
            f"{a} with ({b} with {c}) gives {_show(_join_text(promotion, a, join(b, c)))}"
            for a, b, c in found.not_associative[:_EXAMPLES]
        ]
    else:
        lines.append("associative: yes")
    lines.append("all laws hold" if found.ok else "some laws do not hold")
    return lines


def _summary(found: Verification) -> str:
    """Return a one-line account of a verification."""
    pairs = found.defined + found.undefined
    broken = [
        f"not {law} ({len(cases)} {unit})"
        for law, cases, unit in (
            ("idempotent", found.not_idempotent, "types"),
            ("commutative", found.not_commutative, "pairs"),
            ("associative", found.not_associative, "triples"),
        )
        if cases
    ]
    laws = ", ".join(broken) if broken else "idempotent, commutative, associative"
    return f"{found.types} types, {found.defined} of {pairs} pairs defined; {laws}"


def _cmd_verify(args: argparse.Namespace) -> int:
    if args.rules is not None:
        try:
            rules = get_rules(args.rules)
        except LatticeError as error:
            print(f"rules: {args.rules}\n{error}")  # the error says "not a lattice"
            return 1
        except (UnknownRulesError, ImportError):
            rules = _rules(args.rules)  # raises the usage error
        found = verify(rules.promotion)
        _write("\n".join(_report(rules, found)))
        return 0 if found.ok else 1
    status = 0
    width = max(len(n) for n in names())
    for name in names():
        try:
            rules = get_rules(name)
        except LatticeError as error:
            print(f"{name:<{width}}  FAIL  {error}")
            status = 1
            continue
        except ImportError as error:
            print(f"{name:<{width}}  --    not available: {error}")
            continue
        found = verify(rules.promotion)
        print(f"{name:<{width}}  {'ok' if found.ok else 'FAIL':<4}  {_summary(found)}")
        if not found.ok:
            status = 1
    return status


def _configured_rules(config: str) -> RuleSet:
    """Return the rule set the configuration file ``config`` names, as the mypy plugin reads it.

    A module beside the file can hold a custom rule set (``promotion =
    "myrules:RULES"``): the file's directory is on the module path while the
    rules load.  Any mistake is a usage error of one line.
    """
    from typing_pkg.config import ConfigError, ProjectConfig

    directory = str(Path(config).resolve().parent)
    added = directory not in sys.path
    if added:
        sys.path.insert(0, directory)
    try:
        return ProjectConfig.from_file(config).load_rules()
    except ConfigError as error:
        raise UsageError(f"{config}: {error}") from None
    finally:
        if added:
            sys.path.remove(directory)


def _stubs_rules(args: argparse.Namespace) -> tuple[RuleSet, str]:
    """Return the rule set ``stubs`` is asked for, and the options that ask for it again."""
    if args.config is not None:
        return _configured_rules(args.config), f" --config {args.config}"
    rules = _rules(args.rules or DEFAULT)
    return rules, "" if rules.name == DEFAULT else f" --rules {args.rules}"


def _other_rules(root: Path, rules: RuleSet) -> str:
    """Return a hint when the stubs under ``root`` were generated from a rule set not ``rules``."""
    from typing_pkg import stubgen

    recorded = stubgen.recorded_rules(root)
    if recorded is None or recorded == rules.name:
        return ""
    return (
        f" (they were generated from the {recorded!r} rule set and checked against "
        f"{rules.name!r}: to check them, name {recorded!r} with --rules or --config)"
    )


def _jax_stubs(args: argparse.Namespace, rules: str, options: str) -> int:
    from typing_pkg.stubgen import jax as jaxstubs

    if args.out is None:
        raise UsageError("--jax writes typed JAX stubs: give the directory with --out DIR")
    if args.check:
        try:
            stale = jaxstubs.check(Path(args.out), rules)
        except ValueError as error:
            raise UsageError(str(error)) from None
        for found in stale:
            sys.stderr.write(found.diff)
        if stale:
            print(
                f"{len(stale)} generated stub file(s) under {args.out} are stale; regenerate "
                f"them with: python -m typing_pkg stubs --jax{options} --out {args.out}"
                f"{_other_rules(Path(args.out), get_rules(rules))}",
                file=sys.stderr,
            )
            return 1
        _write(f"the JAX stubs under {args.out} are fresh")
        return 0
    try:
        written = jaxstubs.write(Path(args.out), rules)
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot write the JAX stubs under {args.out}: {error}") from None
    for path in written:
        _write(f"wrote {path}")
    version = jaxstubs.jax_version()
    if version != jaxstubs.TESTED_JAX:
        print(
            f"note: these stubs come from JAX {version}'s own; typing_pkg checks them with JAX "
            f"{jaxstubs.TESTED_JAX}: a call they refuse that JAX accepts is a bug to report",
            file=sys.stderr,
        )
    return 0


def _cmd_stubs(args: argparse.Namespace) -> int:
    from typing_pkg import stubgen

    rules, options = _stubs_rules(args)
    if args.jax:
        return _jax_stubs(args, rules.name, options)
    checkout = stubgen.in_checkout()
    root = stubgen.stubs_dir() if args.out is None else Path(args.out)
    if args.out is None and not args.check:
        if not checkout:  # the default would be site-packages: the wheel's own files
            raise UsageError(
                "typing_pkg is installed, not run from its source checkout: give the "
                "directory to write the stubs to with --out DIR (the installed stub "
                f"package is {root / stubgen.PACKAGE})"
            )
        if rules.name != DEFAULT:
            raise UsageError(
                f"stubs/ holds the stubs of the {DEFAULT} rules, which the wheel ships: "
                f"give the directory for the {rules.name} ones with --out DIR"
            )
    if args.check:
        stale = stubgen.check(root, rules)
        for found in stale:
            sys.stderr.write(found.diff)
        if stale:
            if args.out is None and not checkout and rules.name == DEFAULT:
                fix = "reinstall typing_pkg"
            else:
                options += "" if args.out is None and checkout else f" --out {root}"
                fix = f"regenerate them with: python -m typing_pkg stubs{options}"
            print(
                f"{len(stale)} generated stub file(s) under {root} are stale; {fix}"
                f"{_other_rules(root, rules)}",
                file=sys.stderr,
            )
            return 1
        _write(f"the stubs under {root} are fresh")
        return 0
    try:
        written = stubgen.write(root, rules)
    except OSError as error:
        raise UsageError(
            f"cannot write the stubs under {root}: {error.strerror or error}"
        ) from None
    for path in written:
        _write(f"wrote {path}")
    return 0


def _cmd_explain(args: argparse.Namespace) -> int:
    from typing_pkg.api import UnknownFunctionError, explain
    from typing_pkg.api.kinds import NotArray, Unknown
    from typing_pkg.rules import Undefined

    rules = _rules(args.rules)
    options: dict[str, object] = {}
    if args.dtype is not None:
        options["dtype"] = _dtype(args.dtype)
    for item in args.option or ():
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"--option takes NAME=VALUE, not {item!r}")
        flags = {"true": True, "false": False}
        options[name] = flags[value.lower()] if value.lower() in flags else _dtype(value)
    dtypes = [d if d.startswith("py_") else _dtype(d) for d in args.dtypes]
    try:
        found = explain(args.function, *dtypes, rules=rules, **options)
    except (UnknownFunctionError, TypeError, ValueError) as error:
        raise UsageError(str(error).strip("'\"")) from None
    if args.verbose:
        print(f"{found.function}: {found.kind.kind}: {found.kind.describe()}")
    outcomes = found.result if isinstance(found.result, tuple) else (found.result,)
    refused = [o for o in outcomes if isinstance(o, Undefined | NotArray)]
    if refused:
        reason = refused[0]
        what = "not an array" if isinstance(reason, NotArray) else "undefined"
        print(f"{what}: {found.function}: {reason.reason}", file=sys.stderr)
        return 1
    shown = [f"unknown ({o.reason})" if isinstance(o, Unknown) else str(o) for o in outcomes]
    _write(", ".join(shown))
    return 0


# ------------------------------------------------------------------ parser


def _parser(prog: str) -> _Parser:
    """Build the argument parser."""
    parser = _Parser(
        prog=prog,
        description="Dtype promotion rules of JAX, NumPy, PyTorch, …: query, tabulate, "
        "compare, draw and verify them.",
        epilog="Exit status: 0 success, 1 negative answer, 2 usage error.",
    )
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_Parser
    )
    rules_help = f"rule set (default: {DEFAULT}; one of: {', '.join(names())})"
    table_format = _choice(render.TABLE_FORMATS, "format")
    name_style = _choice(render.NAMES, "label style")

    p = commands.add_parser("promote", help="print the dtype two dtypes promote to")
    p.add_argument("a", metavar="A", help="a dtype: float32, f4, weak_int, i*, …")
    p.add_argument("b", metavar="B", help="another dtype")
    p.add_argument("--rules", default=DEFAULT, help=rules_help)
    p.set_defaults(run=_cmd_promote)

    def grid_options(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--format",
            default="text",
            type=table_format,
            help="text (default), markdown, html or csv",
        )
        p.add_argument(
            "--op",
            help="show what this operator gives (add, truediv, neg, +, //, …) "
            "instead of the promotion",
        )
        p.add_argument(
            "--names",
            default="code",
            type=name_style,
            help="cell labels: codes (f4, i*; default) or full names (float32)",
        )
        p.add_argument(
            "--only", metavar="T1,T2,...", help="only these dtypes, in this order (comma-separated)"
        )

    p = commands.add_parser("table", help="print the promotion (or an operator's) table")
    p.add_argument("--rules", default=DEFAULT, help=rules_help)
    grid_options(p)
    p.add_argument(
        "--highlight",
        metavar="R2",
        help="mark the cells where rule set R2 differs (as JAX's page does for NumPy)",
    )
    p.set_defaults(run=_cmd_table)

    p = commands.add_parser("diff", help="print the cells where two rule sets differ")
    p.add_argument("r1", metavar="R1", help="a rule set")
    p.add_argument("r2", metavar="R2", help="another rule set")
    grid_options(p)
    p.set_defaults(run=_cmd_diff)

    p = commands.add_parser("lattice", help="draw the promotion lattice (Graphviz dot or SVG)")
    p.add_argument("--rules", default=DEFAULT, help=rules_help)
    p.add_argument(
        "--format",
        default="dot",
        type=_choice(render.LATTICE_FORMATS, "format"),
        help="dot (default) or svg",
    )
    p.add_argument(
        "--engine",
        default="auto",
        type=_choice(render.ENGINES, "engine"),
        help="svg: Graphviz's dot when on PATH (auto, default), graphviz, "
        "or the built-in writer (builtin: the same bytes everywhere)",
    )
    p.add_argument(
        "--output", "-o", metavar="FILE", help="write to FILE instead of standard output"
    )
    p.set_defaults(run=_cmd_lattice)

    p = commands.add_parser("verify", help="check the lattice laws (commutativity, associativity…)")
    p.add_argument(
        "--rules", help="one rule set, fully reported (default: every rule set, one line each)"
    )
    p.set_defaults(run=_cmd_verify)

    p = commands.add_parser(
        "explain", help="print the result dtype of a JAX function for argument dtypes"
    )
    p.add_argument("function", metavar="FUNCTION", help="jnp.mean, lax.exp, Array.sum, …")
    p.add_argument(
        "dtypes",
        metavar="DTYPE",
        nargs="*",
        help="the dtype of each array argument, in order (py_int, py_float: a Python scalar)",
    )
    p.add_argument("--rules", default=DEFAULT, help=rules_help)
    p.add_argument("--dtype", metavar="D", help="the function's dtype= argument")
    p.add_argument(
        "--option",
        action="append",
        metavar="NAME=VALUE",
        help="another option: promote_integers=false, preferred_element_type=float32, …",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="also print the table entry")
    p.set_defaults(run=_cmd_explain)

    p = commands.add_parser("stubs", help="regenerate the .pyi stubs (or --check them)")
    p.add_argument("--check", action="store_true", help="fail if the stubs are out of date")
    p.add_argument(
        "--jax",
        action="store_true",
        help="write typed JAX stubs (jax-stubs, with typing_pkg-stubs) into --out DIR "
        "(with --check: fail if they differ from a fresh generation)",
    )
    chosen = p.add_mutually_exclusive_group()
    chosen.add_argument("--rules", help=f"the stubs' {rules_help}")
    chosen.add_argument(
        "--config",
        metavar="FILE",
        help="take the rule set from the [tool.typing_pkg] (pyproject.toml) or [typing_pkg] "
        "(mypy.ini, setup.cfg) section of FILE, as the mypy plugin does",
    )
    p.add_argument(
        "--out",
        "--dir",
        dest="out",
        metavar="DIR",
        help="the directory that holds typing_pkg-stubs (default: stubs/ in a source "
        "checkout; for an installed typing_pkg, --check reads its own stub package "
        "and writing needs --out)",
    )
    p.set_defaults(run=_cmd_stubs)
    return parser


def _prog() -> str:
    argv0 = sys.argv[0] if sys.argv else ""
    return "python -m typing_pkg" if argv0.endswith("__main__.py") else "typing-pkg"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``) and return the exit status."""
    prog = _prog()
    try:
        parser = _parser(prog)
        try:
            args = parser.parse_args(argv)
        except SystemExit as exit_:  # --help, --version
            return exit_.code if isinstance(exit_.code, int) else 0
        status: int = args.run(args)
        sys.stdout.flush()
    except UsageError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (typing-pkg table | head)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return status
