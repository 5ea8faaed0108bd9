"""The docs and --help agree: every option a shown `feedrate COMMAND ...` line uses (in code
blocks, synopses included, and in inline code) exists in that command's --help; every option
docs/cli.md names in a command's section is that command's; and every option of every
command's --help is described in docs/cli.md (tune's loader options in bench's section, which
tune's section points to); and the default --help shows for an option is the one docs/cli.md
states in that option's item."""

import os
import re

import pytest

from docs_text import (REPO, SUBCOMMANDS, code_blocks, doc_files, help_defaults, help_options,
                       joined_lines, option_words, tokens)

# Sections of docs/cli.md that describe another command's options too.
SHARED_SECTIONS = {"tune": ["bench"]}


def shown_lines():
    """Every `feedrate COMMAND ...` line or inline code span of the docs, with its file."""
    found = []
    for path in doc_files():
        text = path.read_text()
        for _, lines in code_blocks(text):
            for line in joined_lines(lines):
                stripped = line.strip().removeprefix("$ ")
                if stripped.startswith("feedrate "):
                    found.append((path.name, stripped))
        for span in re.findall(r"`(feedrate [^`]+)`", text):
            found.append((path.name, span))
    return [(name, line) for name, line in found if line.split()[1] in SUBCOMMANDS]


def cli_sections():
    """{command: its section's text} of docs/cli.md (sections titled `## feedrate COMMAND`)."""
    sections, current = {}, None
    for line in (REPO / "docs" / "cli.md").read_text().splitlines():
        match = re.match(r"^## feedrate ([\w-]+)", line)
        if match:
            current = match.group(1)
            sections[current] = ""
        elif line.startswith("## "):
            current = None
        elif current:
            sections[current] += line + "\n"
    return sections


def test_docs_cli_has_a_section_per_command():
    assert set(cli_sections()) == set(SUBCOMMANDS)


@pytest.mark.parametrize("subcommand", SUBCOMMANDS)
def test_options_shown_with_a_command_exist_in_its_help(subcommand):
    known = set(help_options(subcommand)) | {"--help", "--version"}
    lines = [(name, line) for name, line in shown_lines() if line.split()[1] == subcommand]
    assert lines, f"the docs show no `feedrate {subcommand}` line"
    unknown = [(name, option, line) for name, line in lines
               for option in sorted(option_words(line)) if option not in known]
    assert not unknown, f"options that `feedrate {subcommand} --help` does not list: {unknown}"


@pytest.mark.parametrize("subcommand", SUBCOMMANDS)
def test_options_in_a_commands_section_of_cli_md_are_its_own(subcommand):
    known = set(help_options(subcommand)) | {"--help"}
    unknown = option_words(cli_sections()[subcommand]) - known
    assert not unknown, f"docs/cli.md's `feedrate {subcommand}` section names {sorted(unknown)}"


@pytest.mark.parametrize("subcommand", SUBCOMMANDS)
def test_every_option_in_help_is_described_in_cli_md(subcommand):
    sections = cli_sections()
    text = sections[subcommand] + "".join(sections[s] for s in SHARED_SECTIONS.get(subcommand, []))
    missing = set(help_options(subcommand)) - {"--help"} - option_words(text)
    assert not missing, f"docs/cli.md does not describe `feedrate {subcommand}` {sorted(missing)}"


def list_items(text):
    """The items of a Markdown list (`- ...` and their indented continuation lines), joined."""
    items, open_item = [], False
    for line in text.splitlines():
        if line.startswith("- "):
            items.append(line[2:])
            open_item = True
        elif open_item and line.startswith("  ") and line.strip():
            items[-1] += " " + line.strip()
        else:
            open_item = False
    return items


def states_default(item, value):
    """Whether a docs/cli.md item states this default: `default 224`, `default: 224`,
    ``default `cpu` ``, or `0, the default`."""
    shown = rf"`?{re.escape(value)}`?"
    return bool(re.search(rf"default:? {shown}(?![\w.])", item)
                or re.search(rf"(?<![\w.]){shown},? the default", item))


@pytest.mark.parametrize("subcommand", SUBCOMMANDS)
def test_defaults_in_help_are_the_ones_cli_md_states(subcommand):
    # A default that --help derives from this machine (its help line says "default: ...", or
    # it changes with the CPUs this process may use) is stated in words, not as a number.
    assert len(os.sched_getaffinity(0)) >= 2, "needs 2 CPUs to tell the CPU-derived defaults"
    sections = cli_sections()
    text = sections[subcommand] + "".join(sections[s] for s in SHARED_SECTIONS.get(subcommand, []))
    items = list_items(text)
    one_cpu = help_defaults(subcommand, cpus=1)
    wrong = []
    for option, (value, help_line) in help_defaults(subcommand).items():
        described = " ".join(item for item in items if option in option_words(item))
        if "default" in help_line:
            fine = "default" in described
        elif one_cpu[option][0] != value:
            fine = re.search(r"default:? the (cores|CPUs) available", described) is not None
        else:
            fine = states_default(described, value)
        if not fine:
            wrong.append(f"{option} (--help: {value}, {help_line!r})")
    assert not wrong, (f"docs/cli.md does not state the default `feedrate {subcommand} --help` "
                       f"shows for {wrong}")


def test_a_stated_default_is_read_as_written():
    assert states_default("`--size S` the side (default 224).", "224")
    assert states_default("`--device D` (default: `cpu`)", "cpu")
    assert states_default("`--max-side N` (0, the default: lossless)", "0")
    assert not states_default("`--probe-seconds S` (default 1.5)", "1")
    assert not states_default("`--size S` (default 2240)", "224")
    assert list_items("- `--a` one\n  two\n- `--b` three\n\ntext\n") == ["`--a` one two",
                                                                            "`--b` three"]


def test_shown_command_lines_are_parsed_as_the_reader_sees_them():
    # The parser the two docs tests share: a continued line is one command, a comment is not
    # part of it, a redirection is not an argument.
    text = "```sh\nfeedrate tune DS --workers 2 \\\n    --plot w.svg  # the plot\n```\n"
    ((_, lines),) = code_blocks(text)
    (command,) = joined_lines(lines)
    assert tokens(command) == ["feedrate", "tune", "DS", "--workers", "2", "--plot", "w.svg"]
    assert tokens("feedrate bench DS --json > run.json  # save it") == [
        "feedrate", "bench", "DS", "--json"]


def test_docs_python_md_names_every_option_of_the_module():
    import feedrate
    known = feedrate.option_names.split(", ")
    assert "batch_size" in known
    text = (REPO / "docs" / "python.md").read_text()
    missing = [name for name in known if f"`{name}`" not in text]
    assert not missing, f"docs/python.md does not describe {missing}"
