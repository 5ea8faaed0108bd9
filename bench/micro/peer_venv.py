"""The peers' virtual environment, outside the repository: made and filled on first use.

ensure_peers(venv) makes VENV with Debian's /usr/bin/python3 when it is missing, installs the
peers that compare_peers.py measures (the versions of its last recorded run, docs/benchmarks.md)
from PyPI when one of them does not import there, and then re-runs the calling script under
VENV's interpreter with the same arguments (os.execv: it does not return). Under that
interpreter it returns at once. SPDL needs Debian's libavfilter8 and libavdevice59: as root
they are installed with apt-get, otherwise the apt-get line is printed and the run stops.
ensure_peers(venv, IMAGE_TEXT) does the same for compare_image_text.py's peers (no Debian
packages): open_clip, webdataset at the highest version open_clip's training extra allows
(<=0.2.86, which img2dataset's <0.3 also admits), img2dataset, DALI. ensure_peers(venv,
DETECTION) for compare_detection.py's: torchvision, pycocotools, ultralytics (which pulls
opencv-python; a venv with opencv-python-headless already there passes the import check as is).
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple, Tuple

class Peers(NamedTuple):
    """What to pip install, the modules that must then import, the Debian packages they need."""

    packages: Tuple[str, ...]
    imports: Tuple[str, ...]
    debian: Tuple[str, ...]


IMAGE_FOLDER = Peers(("torch==2.15.0", "torchvision==0.29.2", "numpy", "spdl==0.8.0",
                      "nvidia-dali-cuda130==2.4.0", "datago==2026.10.1"),
                     ("torch", "torchvision", "spdl.pipeline", "nvidia.dali", "datago"),
                     ("libavfilter8", "libavdevice59"))
IMAGE_TEXT = Peers(("torch==2.15.0", "torchvision==0.29.2", "numpy", "nvidia-dali-cuda130==2.4.0",
                    "open_clip_torch==3.3.0", "webdataset==0.2.86", "img2dataset==1.47.0",
                    "pyarrow==26.0.1", "pandas==2.3.3"),
                   ("torch", "torchvision", "nvidia.dali", "open_clip", "open_clip_train.data",
                    "webdataset", "img2dataset", "pyarrow", "pandas"),
                   ())
DETECTION = Peers(("torch==2.15.0", "torchvision==0.29.2", "numpy", "pillow",
                   "pycocotools==2.0.11", "ultralytics==8.4.190"),
                  ("torch", "torchvision", "PIL", "pycocotools", "ultralytics", "cv2"), ())


def _missing_debian_packages(packages):
    if shutil.which("dpkg-query") is None:
        return []
    missing = []
    for package in packages:
        status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package],
                                capture_output=True, text=True).stdout
        if "install ok installed" not in status:
            missing.append(package)
    return missing


def _imports(python, modules):
    probe = "import importlib, sys\nfor m in sys.argv[1:]: importlib.import_module(m)"
    return subprocess.run([str(python), "-c", probe, *modules],
                          capture_output=True).returncode == 0


def ensure_peers(venv, peers=IMAGE_FOLDER):
    venv = Path(venv).resolve()
    python = venv / "bin" / "python"
    if Path(sys.prefix).resolve() == venv:
        return
    missing = _missing_debian_packages(peers.debian)
    if missing:
        if os.geteuid() != 0:
            sys.exit("compare_peers: SPDL needs Debian packages; run:\n"
                     f"  sudo apt-get install -y {' '.join(missing)}")
        subprocess.run(["apt-get", "install", "-y", "-qq", *missing], check=True)
    if not python.exists():
        print(f"compare_peers: making the peers' virtual environment {venv}", flush=True)
        subprocess.run(["/usr/bin/python3", "-m", "venv", str(venv)], check=True)
    if not _imports(python, peers.imports):
        print(f"compare_peers: installing {' '.join(peers.packages)} into {venv}", flush=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *peers.packages], check=True)
    os.execv(str(python), [str(python), *sys.argv])
