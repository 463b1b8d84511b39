"""reference/cli.md: the command line, from its argparse parser (rigidflock.cli.parser).

For the program and every subcommand (nested ones too, ``scenes copy``): the usage line as
``--help`` prints it, the description, and a table of the arguments and options. The usage is
formatted at a fixed width, so the page does not depend on the terminal that generated it.
"""

from __future__ import annotations

import argparse

from rigidflock.cli import EXIT_STATUSES, build_parser

WIDTH = 90  # usage lines wrap here, as argparse wraps them on a terminal this wide
SKIP = {"help"}  # -h/--help: every command has it; said once in the introduction
GLOBAL = {"debug"}  # taken before or after the command: in the program's table only


def _formatter(parser: argparse.ArgumentParser) -> argparse.HelpFormatter:
    return argparse.HelpFormatter(parser.prog, width=WIDTH)


def _usage(parser: argparse.ArgumentParser) -> str:
    fmt = _formatter(parser)
    fmt.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return fmt.format_help().strip()


def _cell(text: str) -> str:
    """Table cell text: one line, ``|`` escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _code(text: str) -> str:
    return f"`{text}`" if text else ""


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "?", "!")) else ".")


def _value(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """What follows the flag on the command line, as ``--help`` shows it ("" for a switch)."""
    if action.nargs == 0:
        return ""
    return _formatter(parser)._format_args(action, action.dest.upper())


def _default(action: argparse.Action) -> str:
    d = action.default
    if d is None or d is False or d == [] or d == argparse.SUPPRESS or action.nargs == 0:
        return ""
    if isinstance(d, tuple):
        return ("x" if action.metavar == "WxH" else ",").join(map(str, d))
    return str(d)


def _subcommands(parser: argparse.ArgumentParser):
    """The parser's subcommands: (name, one-line help, parser), in the order they were added."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            return [(name, helps.get(name, ""), p) for name, p in action.choices.items()]
    return []


def _anchor(prog: str) -> str:
    return prog.lower().replace(" ", "-")


def _arguments_table(parser: argparse.ArgumentParser, top: bool) -> list[str]:
    rows = []
    for action in parser._actions:
        if action.dest in SKIP or isinstance(action, argparse._SubParsersAction):
            continue
        if action.dest in GLOBAL and not top:
            continue
        if action.help == argparse.SUPPRESS:
            continue
        if action.option_strings:
            name = ", ".join(map(_code, action.option_strings))
            value = _value(parser, action)
        else:  # a positional, named as the usage line names it
            name = _code(_formatter(parser)._format_args(action, action.dest))
            value = ""
        rows.append(
            f"| {_cell(name)} | {_cell(_code(value))} | {_cell(_code(_default(action)))} "
            f"| {_cell(action.help or '')} |"
        )
    if not rows:
        return []
    return ["| argument | value | default | meaning |", "|---|---|---|---|", *rows, ""]


def _section(parser, about: str, level: int, top: bool = False) -> list[str]:
    """The parser's heading, description, usage and tables, then its subcommands' sections one
    level down; ``top``: the program itself (its global flags; its commands get sections of
    their own at its level)."""
    lines = [f"{'#' * level} `{parser.prog}`", ""]
    text = parser.description or about
    if text:
        lines += [_sentence(text), ""]
    lines += ["```text", _usage(parser), "```", ""]
    subs = _subcommands(parser)
    lines += _arguments_table(parser, top)
    if subs:
        lines += ["| command | what it does |", "|---|---|"]
        for name, help_, sub in subs:
            lines.append(f"| [`{name}`](#{_anchor(sub.prog)}) | {_cell(help_)} |")
        lines.append("")
    if not top:
        for _, help_, sub in subs:
            lines += _section(sub, help_, level + 1)
    return lines


def page() -> str:
    parser = build_parser()
    lines = [
        "# Command line",
        "",
        "Every command, its arguments and options, as `rigidflock COMMAND --help` prints them. "
        "`rigidflock` is also `python -m rigidflock`. Every command takes `-h`/`--help`, and "
        "`--debug` before or after the command name. A scene argument is a scene file or the name "
        "of a bundled scene or scenario, a sweep argument a sweep file or a bundled sweep's name "
        "(`rigidflock scenes` lists them all).",
        "",
        "This page is generated from the argument parser (`python docs/generate.py`); a test "
        "fails when it is stale.",
        "",
        "## Exit status",
        "",
        "Errors are one line each on stderr; `--debug` shows the traceback instead.",
        "",
        "| status | meaning |",
        "|---|---|",
        *(f"| {_cell(code)} | {_cell(meaning)} |" for code, meaning in EXIT_STATUSES),
        "",
    ]
    lines += _section(parser, "", 2, top=True)
    for _, help_, sub in _subcommands(parser):
        lines += _section(sub, help_, 2)
    return "\n".join(lines).rstrip() + "\n"


def pages() -> dict[str, str]:
    return {"reference/cli.md": page()}
