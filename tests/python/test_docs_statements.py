"""Statements of README.md and docs/*.md that a newcomer found false or partly true (issue 50),
each checked against what the code does, so that they stay true: the install route on
Debian 12, the torchvision versions of the augmentation examples, the commands, the pack
index's version, the sample outputs' verdict, the exceptions of bad options, the batches a
consumer may hold, the two defaults of num_workers, the bound of a remote io_queue_depth and
`feedrate index` checking its options before it reads a URL."""

import ast
import builtins
import json
import os
import re
import socket
import subprocess

import pytest

import feedrate
from docs_text import REPO, SUBCOMMANDS, cli, code_blocks, help_text, make_shards

# The summary sentence (loader/diagnosis/verdict_text.cc's verdict_summary): the binding
# resource, a colon, what it delivers.
SUMMARY = r"(io|cpu|ram|h2d|consumer): .+? [\d,]+ images/s"
# The command line's verdict line: the summary, then the delivered rate and the waits.
VERDICT_LINE = rf"^verdict   {SUMMARY}.* \(delivered [\d,]+ images/s; the consumer waited"
NUMBERS = {"five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}


def text_of(name):
    return (REPO / name).read_text()


def flat(text):
    """The text with every run of white space one space: statements wrap across lines."""
    return " ".join(text.split())


def section(text, title):
    """The text under the Markdown heading `title`, up to the next heading of its level."""
    level = title.split(" ", 1)[0]
    start = text.index(title + "\n") + len(title) + 1
    end = text.find("\n" + level + " ", start)
    return text[start:] if end < 0 else text[start:end]


def text_blocks(path):
    return [lines for language, lines in code_blocks(text_of(path)) if language == "text"]


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    return make_shards(tmp_path_factory.mktemp("statements") / "shards", 16, 2, 8)


# --- Installing with pip on Debian 12 -------------------------------------------------------

VENV = "python3 -m venv --system-site-packages"


@pytest.mark.parametrize("name", ["README.md", "docs/python.md"])
def test_the_pip_install_lines_make_the_virtual_environment_make_test_pip_makes(name):
    assert VENV in text_of("Makefile"), "make test-pip no longer makes its venv this way"
    blocks = [lines for _, lines in code_blocks(text_of(name))
              if any(line.startswith("pip install") for line in lines)]
    assert blocks, f"{name} shows no pip install"
    lines = blocks[0]
    pip = next(k for k, line in enumerate(lines) if line.startswith("pip install"))
    venv = [k for k, line in enumerate(lines) if line.startswith(VENV)]
    assert venv and venv[0] < pip, f"{name}: no `{VENV}` before `pip install`"
    assert "python3-venv" in " ".join(lines), f"{name}: the apt-get line lacks python3-venv"
    assert "externally-managed-environment" in text_of(name)


def test_debians_python_is_externally_managed_as_the_docs_say():
    release = "/etc/debian_version"
    if not os.path.exists(release) or not open(release).read().startswith("12"):
        pytest.skip("not Debian 12")
    marker = subprocess.run(["/usr/bin/python3", "-c",
                             "import sysconfig; print(sysconfig.get_path('stdlib'))"],
                            capture_output=True, text=True, check=True).stdout.strip()
    assert os.path.exists(os.path.join(marker, "EXTERNALLY-MANAGED"))


# --- The augmentation examples and the batches a consumer may hold ---------------------------

def torchvision_examples():
    """(the text before each, its code) of docs/augmentations.md's torchvision examples."""
    text = section(text_of("docs/augmentations.md"), "## torchvision's objects, as they are")
    found = []
    for _, lines in code_blocks(text):
        code = "\n".join(lines)
        if "feedrate.Loader(" in code:
            found.append((text[:text.index(lines[0])], code))
    return found


def run_example(code, image_folder):
    scope = {}
    exec(code.replace('"/data/train"', repr(str(image_folder))), scope)
    images, labels = next(iter(scope["loader"]))
    return images, labels


def test_the_v2_example_needs_the_torchvision_it_names(image_folder):
    torchvision = pytest.importorskip("torchvision")
    examples = [(before, code) for before, code in torchvision_examples()
                if "transforms import v2" in code]
    assert len(examples) == 1
    before, code = examples[0]
    needed = re.findall(r"needs torchvision (\d+)\.(\d+) or later", flat(before))
    assert needed, "the v2 example does not say which torchvision it needs"
    have = tuple(int(x) for x in re.match(r"(\d+)\.(\d+)", torchvision.__version__).groups())
    if have >= tuple(int(x) for x in needed[-1]):
        images, _ = run_example(code, image_folder)
        assert str(images.dtype).endswith("float32")
    else:
        with pytest.raises((ImportError, AttributeError, TypeError)):
            run_example(code, image_folder)


def test_the_v1_example_runs_on_this_torchvision(image_folder):
    pytest.importorskip("torchvision")
    examples = [code for _, code in torchvision_examples() if "transforms import v2" not in code]
    assert len(examples) == 1, "no transforms v1 example beside the v2 one"
    images, labels = run_example(examples[0], image_folder)
    assert str(images.dtype).endswith("float32")
    assert tuple(images.shape[1:]) == (3, 176, 176)


def test_a_dataloader_user_holds_the_batches_the_docs_say(image_folder):
    datasets = pytest.importorskip("torchvision.datasets")
    said = re.search(r"hold at most `prefetch_batches(?: - (\d+))?` of them",
                     flat(text_of("docs/augmentations.md")))
    assert said, "docs/augmentations.md no longer says how many batches may be held"
    fewer = int(said.group(1) or 0)
    for prefetch_batches in (2, 3):
        loader = feedrate.DataLoader(datasets.ImageFolder(str(image_folder)), batch_size=2,
                                     prefetch_batches=prefetch_batches)
        held = []
        with pytest.raises(feedrate.Error, match="holds all"):
            for batch in loader:
                held.append(batch)
        assert len(held) == prefetch_batches - fewer
        del held


# --- The commands -----------------------------------------------------------------------------

def commands_of_help():
    text = subprocess.run([cli(), "--help"], capture_output=True, text=True, check=True,
                          timeout=60).stdout
    listed = text.split("Subcommands:", 1)[1]
    return [match.group(1) for match in re.finditer(r"^  ([\w-]+) ", listed, re.MULTILINE)]


def test_the_docs_know_every_command_of_the_program():
    commands = commands_of_help()
    assert sorted(commands) == sorted(SUBCOMMANDS)
    cli_md = text_of("docs/cli.md")
    count = re.search(r"one program with (\w+) commands", cli_md)
    assert count and NUMBERS.get(count.group(1)) == len(commands), count and count.group(0)
    synopsis = "\n".join(text_blocks("docs/cli.md")[0])
    missing = [c for c in commands if not re.search(rf"^feedrate {c} ", synopsis, re.MULTILINE)]
    assert not missing, f"docs/cli.md's synopsis lacks {missing}"
    readme = section(text_of("README.md"), "## The command line")
    missing = [c for c in commands if f"- **`feedrate {c}" not in readme]
    assert not missing, f"README.md's list of commands lacks {missing}"


def test_index_checks_its_options_before_it_reads_a_url():
    said = flat(section(text_of("docs/cli.md"), "## feedrate index"))
    assert "required for a URL" in said
    assert "Options are checked before anything runs" in flat(text_of("docs/cli.md"))
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        server.setblocking(False)
        url = f"http://127.0.0.1:{server.getsockname()[1]}/shard-{{0..1}}.tar"
        result = subprocess.run([cli(), "index", url], capture_output=True, text=True,
                                timeout=60)
        assert result.returncode != 0
        assert "option --out is required for a URL" in result.stderr, result.stderr
        with pytest.raises(BlockingIOError):
            server.accept()  # the command never connected


def test_the_pack_index_version_is_the_one_feedrate_pack_writes(shards, tmp_path):
    subprocess.run([cli(), "pack", str(shards), str(tmp_path / "packed")], check=True,
                   capture_output=True, timeout=240)
    written = json.loads((tmp_path / "packed" / "index.json").read_text())["version"]
    stated = re.search(r'and a version \((\d+)', flat(text_of("docs/packed-shards.md")))
    assert stated and int(stated.group(1)) == written
    assert f'"version": {written},' in text_of("docs/pack-index.md")
    assert f"version {written}," in flat(section(text_of("docs/cli.md"), "## feedrate index"))


# --- The sample outputs show today's verdict --------------------------------------------------

def test_the_sample_verdict_lines_have_the_form_bench_prints(shards):
    result = subprocess.run([cli(), "bench", str(shards), "--workers", "1", "--no-pack-probe"],
                            capture_output=True, text=True, check=True, timeout=240)
    printed = [line for line in result.stdout.splitlines() if line.startswith("verdict ")]
    assert len(printed) == 1 and re.match(VERDICT_LINE, printed[0]), printed
    for name in ("README.md", "docs/verdict.md"):
        shown = [line for lines in text_blocks(name) for line in lines
                 if line.startswith("verdict ")]
        assert shown, f"{name} shows no verdict line"
        stale = [line for line in shown if not re.match(VERDICT_LINE, line)]
        assert not stale, f"{name} shows verdict lines of another form: {stale}"


def test_the_quick_starts_summary_has_the_form_report_gives(image_folder):
    loader = feedrate.Loader(str(image_folder), batch_size=4, size=32, num_workers=1)
    for _ in loader:
        pass
    assert re.fullmatch(SUMMARY + ".*", loader.report()["verdict"]["summary"])
    quick = section(text_of("README.md"), "## Quick start for PyTorch")
    assert 'print(report["verdict"]["summary"])' in quick
    output = [lines for language, lines in code_blocks(quick) if language == "text"][0]
    assert re.fullmatch(SUMMARY + ".*", output[0]), output[0]


# --- Options: their errors and defaults -------------------------------------------------------

def test_the_errors_docs_ray_md_names_are_the_loaders(image_folder, tmp_path):
    said = flat(text_of("docs/ray.md"))
    listed = re.search(r"raises the Loader's own exception with its message \((.*?)\), before",
                       said)
    assert listed, "docs/ray.md no longer lists the exceptions of bad options"
    pairs = re.findall(r"`(\w+)=([^`]+)` an? `([\w.]+)`", listed.group(1))
    assert len(pairs) >= 3, listed.group(1)
    for name, value, raised in pairs:
        expected = feedrate.Error if raised == "feedrate.Error" else getattr(builtins, raised)
        with pytest.raises(Exception) as caught:
            feedrate.Loader(str(image_folder), **{name: ast.literal_eval(value)})
        assert isinstance(caught.value, expected), (name, value, type(caught.value))
    assert "a missing folder a `feedrate.Error`" in listed.group(1)
    with pytest.raises(feedrate.Error):
        feedrate.Loader(str(tmp_path / "missing"))


def test_both_defaults_of_num_workers_are_stated_where_both_appear(image_folder):
    python_default = feedrate.Loader(str(image_folder)).report()["costs"]["num_workers"]
    phrase = f"`num_workers` defaults to {python_default}"
    items = flat(section(text_of("docs/cli.md"), "## feedrate bench"))
    workers = items[items.index("`-w, --workers N`"):]
    workers = workers[:workers.index(" - `")]
    assert "default: the cores available" in workers and phrase in workers, workers
    row = next(line for line in text_of("docs/python.md").splitlines()
               if line.startswith("| `num_workers` |"))
    assert row.split("|")[2].strip() == str(python_default)
    assert "`--workers` defaults to the cores available" in row
    readme = flat(text_of("README.md"))
    assert f"{phrase} in Python" in readme
    assert "default `--workers` to the cores available" in readme
    assert f"Python's num_workers defaults to {python_default}" in flat(help_text("bench"))


def test_a_remote_io_queue_depth_past_its_bound_is_refused_as_the_docs_say():
    row = next(line for line in text_of("docs/python.md").splitlines()
               if line.startswith("| `io_queue_depth` |"))
    bound = int(re.search(r"at most (\d+)", row).group(1))
    assert f"at most {bound}" in flat(section(text_of("docs/cli.md"), "## feedrate bench"))
    assert f"at most {bound} for a remote source" in flat(text_of("docs/remote.md"))
    with pytest.raises(feedrate.Error, match=re.escape(f"must be in [1, {bound}] for a remote")):
        feedrate.Loader("https://127.0.0.1:9/shard-{0..1}.tar", io_queue_depth=bound + 1)
