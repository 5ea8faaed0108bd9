"""The peers' virtual environment, outside the repository: made and filled on first use.

ensure_peers(venv) makes VENV with Debian's /usr/bin/python3 when it is missing, installs the
peers that compare_peers.py measures (the versions of its last recorded run, docs/benchmarks.md)
from PyPI when one of them does not import there, and then re-runs the calling script under
VENV's interpreter with the same arguments (os.execv: it does not return). Under that
interpreter it returns at once. SPDL needs Debian's libavfilter8 and libavdevice59: as root
they are installed with apt-get, otherwise the apt-get line is printed and the run stops.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

PEERS = ("torch==2.15.0", "torchvision==0.29.2", "numpy", "spdl==0.8.0",
         "nvidia-dali-cuda130==2.4.0", "datago==2026.10.1")
IMPORTS = ("torch", "torchvision", "spdl.pipeline", "nvidia.dali", "datago")
DEBIAN_PACKAGES = ("libavfilter8", "libavdevice59")


def _missing_debian_packages():
    if shutil.which("dpkg-query") is None:
        return []
    missing = []
    for package in DEBIAN_PACKAGES:
        status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package],
                                capture_output=True, text=True).stdout
        if "install ok installed" not in status:
            missing.append(package)
    return missing


def _imports(python):
    probe = "import importlib, sys\nfor m in sys.argv[1:]: importlib.import_module(m)"
    return subprocess.run([str(python), "-c", probe, *IMPORTS],
                          capture_output=True).returncode == 0


def ensure_peers(venv):
    venv = Path(venv).resolve()
    python = venv / "bin" / "python"
    if Path(sys.prefix).resolve() == venv:
        return
    missing = _missing_debian_packages()
    if missing:
        if os.geteuid() != 0:
            sys.exit("compare_peers: SPDL needs Debian packages; run:\n"
                     f"  sudo apt-get install -y {' '.join(missing)}")
        subprocess.run(["apt-get", "install", "-y", "-qq", *missing], check=True)
    if not python.exists():
        print(f"compare_peers: making the peers' virtual environment {venv}", flush=True)
        subprocess.run(["/usr/bin/python3", "-m", "venv", str(venv)], check=True)
    if not _imports(python):
        print(f"compare_peers: installing {' '.join(PEERS)} into {venv}", flush=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *PEERS], check=True)
    os.execv(str(python), [str(python), *sys.argv])
