"""Gathers what bench/device/gpu_check.sh left in OUT into OUT/gpu_check.json: the machine, the
steps, the tests, every figure (GB/s, images/s, the scaling curve, device memory) and the
targets met or not, and prints the targets. Standard library only.

  python3 summarize.py OUT BUNDLE SECONDS
"""

import json
import re
import sys
from pathlib import Path

# The targets.
COPIER_VS_PLAIN_LOOP = 0.9  # feedrate's copier against a plain pinned cudaMemcpyAsync loop
DECODE_SCALING_AT_16 = 12.0  # images/s at 16 workers over images/s at 1
FLAT_BYTES = 2 << 20  # device memory growth allowed over 1,000 batches (one 2 MiB page)
# The nvJPEG probe's question: can the hardware engine feed one GPU's training rate (images/s)
# for at most this many host cores at that rate (CPU seconds per image x the rate)?
PROBE_IMAGES_PER_S = 2500
PROBE_HOST_CORES = 0.5


def read_json(path):
    """The first JSON object in a file (a command's stdout may carry lines before it)."""
    try:
        text = Path(path).read_text()
    except OSError:
        return None
    start = text.find("{")
    if start < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(text[start:])[0]
    except json.JSONDecodeError:
        return None


def read_text(path):
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def steps(out):
    rows = []
    for line in read_text(out / "steps.tsv").splitlines():
        name, status, seconds, rc = line.split("\t")
        rows.append({"name": name, "status": status, "seconds": int(seconds), "exit": rc})
    return rows


def gtest(out, name):
    """Counts and each test's status (and recorded properties) from a --gtest_output JSON."""
    report = read_json(out / f"{name}.json")
    if report is None:
        return None
    tests, properties = {}, {}
    standard = {"name", "file", "line", "status", "result", "timestamp", "time", "classname",
                "failures"}
    for suite in report.get("testsuites", []):
        for case in suite.get("testsuite", []):
            full = f"{suite['name']}.{case['name']}"
            tests[full] = "failed" if case.get("failures") else case.get("result", "").lower()
            extra = {k: v for k, v in case.items() if k not in standard}
            if extra:
                properties[full] = extra
    return {"tests": report.get("tests"), "failures": report.get("failures"),
            "skipped": sum(1 for s in tests.values() if s == "skipped"),
            "results": tests, "properties": properties}


def h2d(out):
    """The rows of feedrate-h2d's table, by their labels."""
    text = read_text(out / "h2d.txt")
    rows = {}
    for label, key in [("cudaMemcpyAsync from pageable memory", "pageable_gbs"),
                       ("cudaMemcpyAsync from pinned memory", "pinned_plain_loop_gbs"),
                       ("feedrate copier, uint8 (vs pinned loop)", "copier_uint8_gbs"),
                       ("feedrate copier, uint8 -> float16 NCHW on device", "copier_float16_gbs")]:
        m = re.search(re.escape(label) + r"\s+([0-9.]+)", text)
        if m:
            rows[key] = float(m.group(1))
    for label, key in [("host, uint8", "loader_host_uint8"), ("cuda:0, uint8", "loader_cuda_uint8"),
                       ("cuda:0, float16 NCHW", "loader_cuda_float16")]:
        m = re.search(r"^" + re.escape(label) + r"\s+([0-9.]+)\s+([0-9.]+)", text, re.M)
        if m:
            rows[key] = {"images_per_s": float(m.group(1)), "gb_per_s": float(m.group(2))}
    m = re.search(r"^device\s+(.*)$", text, re.M)
    if m:
        rows["device"] = m.group(1)
    return rows


def bench_figures(report):
    if report is None:
        return None
    keep = ["images_per_s", "mb_per_s", "num_workers", "batch_size", "io_backend", "device",
            "peak_rss_mb", "verdict", "stages", "costs"]
    return {k: report[k] for k in keep if k in report}


def tune(out):
    report = read_json(out / "tune.json")
    if report is None:
        return None
    by_workers = {}
    for point in report.get("curve", []):
        by_workers.setdefault(point["workers"], point["images_per_s"])
    base = by_workers.get(1)
    curve = [{"workers": w, "images_per_s": r,
              "speedup": round(r / base, 2) if base else None,
              "efficiency": round(r / base / w, 2) if base else None}
             for w, r in sorted(by_workers.items())]
    return {"curve": curve, "knee": report.get("knee"), "best": report.get("best"),
            "recommended": report.get("recommended"),
            "at": {w: by_workers.get(w) for w in (1, 2, 4, 8, 12, 16)}}


def probe_answer(probe):
    """The hardware backend's best run that reaches PROBE_IMAGES_PER_S, by the host cores it
    would take at that rate; else its fastest run."""
    if not probe or probe.get("status") != "measured":
        return None
    runs = [r for b in probe.get("backends", []) if b.get("backend") == "hardware"
            for r in b.get("runs", []) if not r.get("error") and r.get("images")]
    if not runs:
        return None
    for r in runs:
        r["host_cores_at_target"] = round(r["cpu_s_per_image"] * PROBE_IMAGES_PER_S, 3)
    fast = [r for r in runs if r["images_per_s"] >= PROBE_IMAGES_PER_S]
    return min(fast, key=lambda r: r["host_cores_at_target"]) if fast else max(
        runs, key=lambda r: r["images_per_s"])


def target(value, goal, met):
    return {"value": value, "target": goal, "met": met if value is not None else None}


def main():
    out, bundle, seconds = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    result = {
        "seconds": seconds,
        "bundle": read_text(bundle / "MANIFEST.txt").split("files\n")[0].strip().splitlines(),
        "machine": read_text(out / "preflight.txt").strip().splitlines(),
        "steps": steps(out),
        "tests": {name: gtest(out, name) for name in ("cuda_test", "gpu_test")},
        "h2d": h2d(out),
        "bench": {"host_uint8": bench_figures(read_json(out / "bench_host.txt")),
                  **{f"cuda_{layout}": bench_figures(read_json(out / f"bench_cuda_{layout}.json"))
                     for layout in ("uint8", "float16", "float32")},
                  **{f"host_{w}_workers": bench_figures(read_json(p))
                     for p in sorted(out.glob("bench_host_*.json"))
                     for w in [p.stem.rsplit("_", 1)[1]]}},
        "torch": read_json(out / "torch.json"),
        "doctor": {"gpu_lines": [line for line in read_text(out / "doctor_text.txt").splitlines()
                                 if re.match(r"(gpus?|warning)\b", line)],
                   "json": read_json(out / "doctor.json")},
        "tune": tune(out),
        "nvjpeg_probe": read_json(out / "nvjpeg_probe.json"),
    }

    h = result["h2d"]
    copier = (round(h["copier_uint8_gbs"] / h["pinned_plain_loop_gbs"], 3)
              if "copier_uint8_gbs" in h and h.get("pinned_plain_loop_gbs") else None)
    cuda = result["tests"]["cuda_test"] or {}
    memory = cuda.get("properties", {}).get(
        "CudaDelivery.DeviceMemoryStaysFlatOverAThousandBatches", {})
    cpp_growth = (int(memory["device_bytes_after_1000_batches"]) -
                  int(memory["device_bytes_after_first_epoch"])) if memory else None
    torch_memory = (result["torch"] or {}).get("device_memory", {})
    py_growth = torch_memory.get("growth_bytes")
    at = (result["tune"] or {}).get("at", {})
    scaling = round(at[16] / at[1], 2) if at.get(16) and at.get(1) else None
    growths = [g for g in (cpp_growth, py_growth) if g is not None]
    result["targets"] = {
        "copier_vs_plain_loop": target(copier, f">= {COPIER_VS_PLAIN_LOOP}",
                                       copier is not None and copier >= COPIER_VS_PLAIN_LOOP),
        "device_memory_growth_over_1000_batches_bytes": {
            "cuda_test": cpp_growth, "torch": py_growth, "target": f"<= {FLAT_BYTES}",
            "met": all(g <= FLAT_BYTES for g in growths) if len(growths) == 2 else None},
        "decode_scaling_16_workers": target(scaling, f">= {DECODE_SCALING_AT_16}x",
                                            scaling is not None and
                                            scaling >= DECODE_SCALING_AT_16),
        "cuda_tests_none_skipped": target(cuda.get("skipped"), 0,
                                          cuda.get("skipped") == 0 and cuda.get("failures") == 0),
    }
    best = probe_answer(result["nvjpeg_probe"])
    result["targets"]["nvjpeg_hardware_feeds_a_gpu"] = target(
        best, f">= {PROBE_IMAGES_PER_S} images/s for <= {PROBE_HOST_CORES} host core at that rate",
        best is not None and best["images_per_s"] >= PROBE_IMAGES_PER_S and
        best["host_cores_at_target"] <= PROBE_HOST_CORES)
    (out / "gpu_check.json").write_text(json.dumps(result, indent=2) + "\n")
    for row in result["steps"]:
        print(f"{row['status']:8} {row['name']} ({row['seconds']} s)")
    for name, t in result["targets"].items():
        print(f"target   {name}: {json.dumps(t)}")
    for backend in (result["nvjpeg_probe"] or {}).get("backends", []):
        for failure in backend.get("failures", []):
            print(f"probe    {backend['backend']} {failure['part']}: {failure['failure']}")
    print(f"results  {out / 'gpu_check.json'}")


if __name__ == "__main__":
    main()
