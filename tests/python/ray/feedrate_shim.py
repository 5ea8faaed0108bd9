"""Makes `import feedrate.ray` work against a build whose `feedrate` is still one extension
module (feedrate.cpython-*.so) rather than the package python/feedrate/: a throwaway package
that loads that extension and re-exports its names, with python/feedrate/ray.py beside it.
With the package built, ensure() changes nothing.

ensure() returns the folder to put first on PYTHONPATH (also for Ray's worker processes), or
None when `feedrate` already is a package.
"""

import importlib.util
import os
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))))
RAY_PY = os.path.join(REPO, "python", "feedrate", "ray.py")

# A single-phase extension puts itself into sys.modules under its name when loaded: the package
# puts itself back.
_INIT = '''\
import importlib.machinery as _m, importlib.util as _u, sys as _sys
_package = _sys.modules[__name__]
_loader = _m.ExtensionFileLoader("feedrate", {so!r})
_ext = _u.module_from_spec(_u.spec_from_file_location("feedrate", {so!r}, loader=_loader))
_loader.exec_module(_ext)
_sys.modules[__name__] = _package
globals().update({{k: getattr(_ext, k) for k in dir(_ext) if not k.startswith("__")}})
'''


def ensure():
    spec = importlib.util.find_spec("feedrate")
    if spec is None:
        raise ImportError("feedrate is not importable: put the build's python/ folder on "
                          "PYTHONPATH (make build, then PYTHONPATH=build/python)")
    if spec.submodule_search_locations is not None:
        return None  # the package: feedrate.ray is part of it
    root = tempfile.mkdtemp(prefix="feedrate-shim-")
    package = os.path.join(root, "feedrate")
    os.mkdir(package)
    with open(os.path.join(package, "__init__.py"), "w") as out:
        out.write(_INIT.format(so=spec.origin))
    os.symlink(RAY_PY, os.path.join(package, "ray.py"))
    sys.path.insert(0, root)
    sys.modules.pop("feedrate", None)
    importlib.invalidate_caches()  # the finders' listings predate the new folder
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    return root
