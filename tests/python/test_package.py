"""The package's layout: real .py files (tracebacks name them), the extension as feedrate._C with
stubs for everything it exports, py.typed, test hooks outside the public module, and the typed
example (typing/train_loop.py) running for real."""

import ast
import importlib.util
import sys
import traceback
from pathlib import Path

import pytest

import feedrate
import feedrate._C

PACKAGE = Path(feedrate.__file__).parent
PUBLIC = ["DataLoader", "Error", "Loader", "__version__", "gather_verdicts", "option_names"]


def test_public_names_and_nothing_of_the_tests():
    assert sorted(feedrate.__all__) == sorted(PUBLIC)
    for name in PUBLIC:
        assert hasattr(feedrate, name), name
    for hook in ("_apply_op", "_resized_crop", "_spec_from_torchvision"):
        assert not hasattr(feedrate, hook), hook
    from feedrate import _testing
    assert callable(_testing._apply_op) and callable(_testing._spec_from_torchvision)


def test_the_extension_is_feedrate_C_and_the_rest_are_py_files():
    assert Path(feedrate._C.__file__).name.startswith("_C.")
    assert Path(feedrate._C.__file__).suffix == ".so"
    assert feedrate.Error.__module__ == "feedrate" and issubclass(feedrate.Error, RuntimeError)
    assert issubclass(feedrate.Loader, feedrate._C.Loader)
    for name in ("__init__", "_loader", "_dataloader", "_torchvision", "_testing"):
        assert (PACKAGE / f"{name}.py").is_file(), name
    assert (PACKAGE / "py.typed").is_file()
    assert sys.modules[feedrate.DataLoader.__module__].__file__ == str(PACKAGE / "_dataloader.py")


def test_a_compose_error_traceback_names_the_python_file(image_folder):
    class GaussianBlur:  # an operation feedrate does not run natively
        pass

    with pytest.raises(TypeError, match="GaussianBlur") as raised:
        feedrate.Loader(image_folder, transform=GaussianBlur())
    files = [frame.filename for frame in traceback.extract_tb(raised.value.__traceback__)]
    assert str(PACKAGE / "_torchvision.py") in files
    assert "<string>" not in files


def stub_names():
    tree = ast.parse((PACKAGE / "_C.pyi").read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names, {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def test_the_stubs_name_everything_the_extension_exports():
    names, classes = stub_names()
    exported = {name for name in dir(feedrate._C)
                if not (name.startswith("__") and name != "__version__")}
    assert names == exported
    loader_stub = {node.name for node in classes["Loader"].body if isinstance(node, ast.FunctionDef)}
    # pybind11 3 (PyPI's, which `pip install .` builds with) adds _pybind11_conduit_v1_ to every
    # class; Debian's 2.10 does not.
    loader_runtime = {name for name in vars(feedrate._C.Loader)
                      if (not name.startswith("__") or name in ("__init__", "__iter__", "__len__"))
                      and not name.startswith("_pybind11_")}
    assert loader_stub == loader_runtime


def test_the_typed_example_runs(image_folder):
    spec = importlib.util.spec_from_file_location(
        "train_loop", Path(__file__).parent / "typing" / "train_loop.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    figures = example.train(image_folder, 2)
    assert figures["version"] == feedrate.__version__
    assert figures["samples"] == 2 * 28 and figures["batches_per_epoch"] == 4
    assert figures["resumed_batches"] == 3
    assert figures["classes"] == sorted(figures["class_to_idx"])
    assert figures["verdict"]["bottleneck"] and len(figures["ranks"]) == 1
    assert str(image_folder / "missing") in figures["missing"]
