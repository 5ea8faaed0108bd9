"""Every `feedrate ...` command line shown in README.md and docs/*.md runs, and is not refused.

Each line runs as shown on a small generated dataset: the dataset or source it names becomes
that dataset, the folders and files it writes become fresh temporary paths, `plan`'s RUN a
`bench --json` of it, and a few values are made small so that the suite stays fast (the
generated image count, epochs and batches, tune's timing window, doctor's disk probe). Skipped,
and listed in the output: lines that need a GPU (`--device cuda...`, `--layout float16`, which
is CUDA only). No shown command needs the network.
"""

import json
import subprocess

import pytest

from docs_text import (cli, command_lines, doc_files, help_options, make_shards, tokens,
                       SUBCOMMANDS)

# Values lowered to keep a run short, and the value they get.
SHORTER = {"--count": "24", "--epochs": "1", "--window": "0.2", "--probe-seconds": "0.1",
           "--probe-mb": "8", "--batches": "2"}
# Options whose value is a path the command writes, and those whose value is the dataset.
WRITES = {"--trace", "--plot", "--cache-dir"}
READS_DATASET = {"--dataset"}


def shown_commands():
    found = []
    for path in doc_files():
        for line in command_lines(path):
            found.append(pytest.param(line, id=f"{path.name}: {line[:70]}"))
    return found


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return make_shards(tmp_path_factory.mktemp("docs") / "shards", 48, 4, 16)


@pytest.fixture(scope="module")
def run_json(dataset, tmp_path_factory):
    result = subprocess.run([cli(), "bench", str(dataset), "--json", "--no-pack-probe"],
                            check=True, capture_output=True, text=True, timeout=120)
    path = tmp_path_factory.mktemp("run") / "run.json"
    json.loads(result.stdout)
    path.write_text(result.stdout)
    return path


def needs_gpu(words):
    for name, value in zip(words, words[1:]):
        if name == "--device" and value.startswith("cuda"):
            return True
        if name == "--layout" and value == "float16":
            return True
    return False


def as_run_here(words, dataset, run_json, scratch):
    """The command with its dataset, outputs and long-running values replaced (see above)."""
    subcommand = words[1]
    takes_value = help_options(subcommand)
    options, positionals, k = [], [], 2
    while k < len(words):
        word = words[k]
        name = word.split("=", 1)[0]
        if name in takes_value and takes_value[name] and "=" not in word:
            value = words[k + 1] if k + 1 < len(words) else ""
            if name in WRITES:
                value = str(scratch / f"out{len(options)}{name}")
            elif name in READS_DATASET:
                value = str(dataset)
            elif SHORTER.get(name):
                value = SHORTER[name]
            options += [name, value]
            k += 2
            if name == "--instance" or name == "--shuffle-windows":  # repeatable lists
                while k < len(words) and not words[k].startswith("-"):
                    options.append(words[k])
                    k += 1
            continue
        if word.startswith("-"):
            options.append(word)
        else:
            positionals.append(word)
        k += 1
    if subcommand in ("bench", "tune"):
        positionals = [str(dataset)] if positionals else []
    elif subcommand == "pack":
        positionals = [str(dataset), str(scratch / "packed")]
    elif subcommand == "index":
        positionals = [str(dataset)]
    elif subcommand == "make-dataset":
        positionals = [str(scratch / "made")]
        if "--count" not in options:
            options += ["--count", SHORTER["--count"]]
    elif subcommand == "plan":
        positionals = [str(run_json)]
    if subcommand == "tune" and "--window" not in options and "--shuffle-windows" not in options:
        options += ["--window", SHORTER["--window"]]
    if subcommand == "doctor" and "--no-disk" not in options:
        for name in ("--probe-seconds", "--probe-mb"):
            if name not in options:
                options += [name, SHORTER[name]]
    return [cli(), subcommand] + positionals + options


def test_the_docs_show_commands_of_every_subcommand():
    shown = {tokens(line)[1] for path in doc_files() for line in command_lines(path)}
    assert set(SUBCOMMANDS) <= shown, f"no command line shown for {set(SUBCOMMANDS) - shown}"


@pytest.mark.parametrize("line", shown_commands())
def test_shown_command_runs(line, dataset, run_json, tmp_path):
    words = tokens(line)
    assert words[0] == "feedrate" and words[1] in SUBCOMMANDS, f"not a feedrate command: {line}"
    if needs_gpu(words):
        pytest.skip(f"needs a GPU: {line}")
    command = as_run_here(words, dataset, run_json, tmp_path)
    result = subprocess.run(command, capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert result.returncode == 0, (f"refused: {line}\nran: {' '.join(command)}\n"
                                    f"stderr: {result.stderr[-2000:]}")
