"""The typed signatures of feedrate's public entry points hold to the option table of the native
module (python/csrc/options.cc, read through feedrate._C._option_table()): every keyword of
feedrate.Loader, its type and its default appear in the stub of the extension
(python/feedrate/_C.pyi) and in feedrate.Loader, feedrate.DataLoader and feedrate.ray.read
(feedrate.ray is imported without Ray). A keyword added to the table without its stubs fails
here, and so does a stub that names a keyword the table lacks or types it otherwise."""

import ast
import inspect
from pathlib import Path

import feedrate
import feedrate.ray
from feedrate import _C

TABLE = _C._option_table()
STUB = Path(_C.__file__).with_name("_C.pyi")


def text(annotation):
    """An annotation in one spelling (ast's), whatever its quotes and spacing."""
    return ast.unparse(ast.parse(annotation, mode="eval"))


def optional(annotation):
    """Optional[annotation], once."""
    spelled = text(annotation)
    return spelled if spelled.startswith("Optional[") else text(f"Optional[{spelled}]")


def keywords(function):
    """{name: (annotation text, default)} of a function's keyword-only parameters (with
    `from __future__ import annotations`, inspect gives annotations as text)."""
    return {p.name: (text(p.annotation), p.default)
            for p in inspect.signature(function).parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY}


def stub_keywords():
    """{name: (annotation text, default)} of the keyword-only parameters of Loader.__init__ in
    the extension's stub."""
    tree = ast.parse(STUB.read_text())
    (loader,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Loader"]
    (init,) = [n for n in loader.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
    args = init.args
    assert args.kwarg is None, "the stub takes **kwargs: it lists no keyword"
    return {a.arg: (ast.unparse(a.annotation), ast.literal_eval(d))
            for a, d in zip(args.kwonlyargs, args.kw_defaults)}


def expected(names, change=lambda name, annotation, default: (annotation, default)):
    return {name: change(name, text(TABLE[name][0]), TABLE[name][1]) for name in names}


def assert_same(got, want):
    assert sorted(got) == sorted(want), (
        f"missing {sorted(set(want) - set(got))}, not in the table {sorted(set(got) - set(want))}")
    for name in want:
        assert got[name] == want[name], f"{name}: {got[name]} is not the table's {want[name]}"
        # 0 == 0.0 and 1 == True: the defaults' types must agree too.
        assert type(got[name][1]) is type(want[name][1]), name


# A torchvision transform, which the package reads into the native loader's spec text.
PACKAGE_TRANSFORM = text("Union[str, Callable[..., Any]]")


def test_the_table_types_every_keyword_the_loader_takes():
    assert sorted(TABLE) == sorted(feedrate.option_names.split(", "))
    for name, (annotation, _) in TABLE.items():
        assert text(annotation), name


def test_the_extensions_stub_lists_the_table():
    assert_same(stub_keywords(), expected(TABLE))


def test_loader_lists_the_table():
    def change(name, annotation, default):
        return (PACKAGE_TRANSFORM if name == "transform" else annotation), default

    assert_same(keywords(feedrate.Loader.__init__), expected(TABLE, change))


def test_dataloader_lists_the_table_with_torchs_keywords():
    own = {"batch_size", "num_workers", "shuffle", "drop_last"}
    refused = {"batch_sampler", "collate_fn", "worker_init_fn", "multiprocessing_context",
               "generator", "timeout"}
    got = keywords(feedrate.DataLoader.__init__)
    assert refused <= set(got)
    for name in refused:
        del got[name]

    # Every Loader option as "None: the Loader's default, the dataset's or the sampler's".
    def change(name, annotation, default):
        return optional(PACKAGE_TRANSFORM if name == "transform" else annotation), None

    assert_same(got, expected(set(TABLE) - own, change))
    positional = inspect.signature(feedrate.DataLoader.__init__).parameters
    assert own <= set(positional)


def test_ray_read_lists_the_table_but_what_it_decides():
    got = keywords(feedrate.ray.read)
    owned = set(feedrate.ray._OWNED)
    for name in owned:
        assert got.pop(name) == ("None", None), name  # refused unless None
    own = {"epoch": ("int", 0), "num_tasks": ("Optional[int]", None),
           "max_retries": ("int", 3), "num_workers": ("Optional[int]", None)}
    for name, typed in own.items():
        assert got.pop(name) == typed, name

    def change(name, annotation, default):
        return (PACKAGE_TRANSFORM if name == "transform" else annotation), default

    assert_same(got, expected(set(TABLE) - owned - {"num_workers"}, change))
