"""The command lines and options the README and docs/*.md show, read the way a reader sees
them, and the options each `feedrate` command's --help lists. Shared by test_docs_commands.py
(every shown command runs) and test_docs_options.py (the docs and --help agree).

A code block's command lines are the lines that start with `feedrate ` or `$ feedrate ` (a
backslash continues a line; `#` starts a comment). Fenced ```text blocks hold synopses and
outputs: only their `$ feedrate` lines are commands that were run. Indented (4-space) blocks
count as code blocks too.
"""

import functools
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SUBCOMMANDS = ("bench", "doctor", "tune", "plan", "pack", "index", "make-dataset")


def doc_files():
    return [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))


def cli():
    """The feedrate program under test: $FEEDRATE_CLI (ctest and make test-pip set it)."""
    return os.environ.get("FEEDRATE_CLI") or shutil.which("feedrate")


def make_shards(root, count, classes, per_shard):
    """`feedrate make-dataset` of `count` images as tar shards of `per_shard` at `root`."""
    subprocess.run([cli(), "make-dataset", str(root), "--count", str(count), "--classes",
                    str(classes), "--format", "tar", "--images-per-shard", str(per_shard)],
                   check=True, capture_output=True, timeout=120)
    return root


def code_blocks(text):
    """(language, [lines]) for each fenced or indented code block of a Markdown text."""
    blocks, lines, fence, language, indented = [], [], None, "", []
    previous_blank = True
    for line in text.splitlines():
        if fence is not None:
            if line.strip().startswith(fence):
                blocks.append((language, lines))
                fence, lines = None, []
            else:
                lines.append(line)
            continue
        stripped = line.strip()
        if stripped.startswith("```"):
            if indented:
                blocks.append(("", indented))
                indented = []
            fence, language, lines = "```", stripped[3:].strip(), []
            continue
        if line.startswith("    ") and (previous_blank or indented) and stripped:
            indented.append(line[4:])
        elif indented and stripped:
            blocks.append(("", indented))
            indented = []
        previous_blank = not stripped
    if indented:
        blocks.append(("", indented))
    return blocks


def joined_lines(lines):
    """A code block's lines with each line ending in a backslash joined to the next."""
    joined, pending = [], ""
    for line in lines:
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        joined.append(pending + line)
        pending = ""
    return joined


def command_lines(path):
    """The `feedrate ...` command lines shown in a Markdown file's code blocks."""
    commands = []
    for language, lines in code_blocks(Path(path).read_text()):
        for line in joined_lines(lines):
            stripped = line.strip()
            if stripped.startswith("$ feedrate "):
                commands.append(stripped[2:])
            elif language != "text" and stripped.startswith("feedrate "):
                commands.append(stripped)
    return commands


def tokens(command):
    """The words of a command line, without a trailing comment or a redirection."""
    words = shlex.split(command, comments=True)
    kept, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word in (">", "2>", ">>", "|"):
            skip = True
        else:
            kept.append(word)
    return kept


@functools.cache  # the same few --help texts, asked for by every test
def help_text(subcommand, cpus=None):
    """A command's --help; with cpus, as a process whose affinity allows only that many."""
    limit = (lambda: os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:cpus])) \
        if cpus else None
    result = subprocess.run([cli(), subcommand, "--help"], capture_output=True, text=True,
                            timeout=60, preexec_fn=limit)
    assert result.returncode == 0, result.stderr
    return result.stdout


def help_options(subcommand):
    """{--option: takes a value} for the options a command's --help lists."""
    options = {}
    for line in help_text(subcommand).splitlines():
        match = re.match(r"^  (?:-\w,)?(--[\w-]+)(?:\s+(\S+))?", line)  # not a help line
        if match:
            kind = match.group(2) or ""
            options[match.group(1)] = bool(re.match(r"(INT|UINT|TEXT|FLOAT)", kind))
    return options


def help_defaults(subcommand, cpus=None):
    """{--option: (the default its --help shows, its help line)} for the options that show one
    (`--size INT:INT in [8 - 4096]=224`)."""
    defaults, current = {}, None
    for line in help_text(subcommand, cpus).splitlines():
        # The option, its signature (words one space apart), then its help after 2+ spaces.
        match = re.match(r"^  (?:-\w,)?(--[\w-]+)((?: \S+)*)(?: {2,}(.*))?$", line)
        if match:
            current = None
            shown = re.search(r"=(\S+)", match.group(2))
            if shown:
                current = match.group(1)
                defaults[current] = (shown.group(1), (match.group(3) or "").strip())
        elif current and line.startswith("    "):
            defaults[current] = (defaults[current][0],
                                 (defaults[current][1] + " " + line.strip()).strip())
    return defaults


def option_words(text):
    """The --options a text names."""
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text))
