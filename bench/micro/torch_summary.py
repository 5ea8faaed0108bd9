"""compare_torch.py's summary and report: the medians over repeats of each side's runs, their
ratios and the issue's targets, and the report's environment, tables and target lines.
"""

import statistics

from torch_sides import CROP_SIZE, RESIZE_SIZE
from tree_memory import SAMPLE_INTERVAL_S, SAMPLER_CPU_SHARE

SPEED_TARGET = 2.5  # feedrate images/s >= 2.5x the DataLoader's
MEMORY_TARGET = 4.0  # feedrate peak RSS <= 1/4 of the DataLoader tree's peak PSS
PYTHON_KEEPS_TARGET = 0.95  # feedrate.Loader images/s >= 95% of `feedrate bench`'s


def median_of(runs, key):
    return statistics.median(run[key] for run in runs)


def summarise_python(row, python_runs):
    """Adds the Python module's medians and its ratios to the two peers to a summary row."""
    speed = median_of(python_runs, "images_per_s")
    row.update({
        "python_images_per_s": speed,
        "python_peak_pss_mb": median_of(python_runs, "tree_peak_pss_mb"),
        "python_peak_rss_mb": median_of(python_runs, "peak_rss_mb"),
        "python_baseline_rss_mb": median_of(python_runs, "baseline_rss_mb"),
        "python_to_cpp": speed / row["feedrate_images_per_s"],
        "python_to_torch": speed / row["torch_images_per_s"],
        "python_memory_ratio_pss": row["torch_peak_pss_mb"] / median_of(python_runs,
                                                                         "tree_peak_pss_mb"),
        "python_keeps_target_met": speed >= PYTHON_KEEPS_TARGET * row["feedrate_images_per_s"],
        "python_speed_target_met": speed >= SPEED_TARGET * row["torch_images_per_s"],
        "python_runs": python_runs,
    })
    return row


def summarise(workers, torch_runs, feedrate_runs):
    """Medians over repeats, ratios of the medians and the target verdicts for one workers."""
    torch_speed = median_of(torch_runs, "images_per_s")
    torch_pss = median_of(torch_runs, "tree_peak_pss_mb")
    feedrate_speed = median_of(feedrate_runs, "images_per_s")
    feedrate_pss = median_of(feedrate_runs, "tree_peak_pss_mb")
    feedrate_rss = median_of(feedrate_runs, "peak_rss_mb")
    return {
        "workers": workers,
        "torch_images_per_s": torch_speed,
        "torch_peak_pss_mb": torch_pss,
        "torch_peak_rss_sum_mb": median_of(torch_runs, "tree_peak_rss_sum_mb"),
        "torch_memory_sample_interval_s": median_of(torch_runs, "memory_sample_interval_s"),
        "feedrate_images_per_s": feedrate_speed,
        "feedrate_peak_pss_mb": feedrate_pss,
        "feedrate_peak_rss_mb": feedrate_rss,
        "feedrate_memory_sample_interval_s": median_of(feedrate_runs,
                                                       "memory_sample_interval_s"),
        "speed_ratio": feedrate_speed / torch_speed,
        "memory_ratio_pss": torch_pss / feedrate_pss,
        "memory_ratio_target": torch_pss / feedrate_rss,
        "speed_target_met": feedrate_speed >= SPEED_TARGET * torch_speed,
        "memory_target_met": feedrate_rss * MEMORY_TARGET <= torch_pss,
        "torch_runs": torch_runs,
        "feedrate_runs": feedrate_runs,
    }


def print_environment(env, args, log):
    ds = env["dataset"]
    log("environment")
    log(f"  cpu          {env['cpu']}, {env['cpus_available']} cores available "
        f"({env['cpus_online']} online), load average "
        + " ".join(f"{x:.2f}" for x in env["load_average"]))
    log(f"  kernel       {env['kernel']}")
    log(f"  python       {env['python']}")
    log(f"  torch        {env['torch']}, torchvision {env['torchvision']}, "
        f"Pillow {env['pillow']}")
    log(f"  feedrate     {env['feedrate']}")
    log(f"  dataset      {ds['path']}: {ds['files']} files, {ds['classes']} classes, "
        f"{ds['mb']:.1f} MB (read once to warm the page cache)")
    length = f"{args.batches} batches" if args.batches else f"{args.epochs} epoch(s)"
    log(f"  run          transform {args.transform}, batch {args.batch}, {length}, "
        f"seed {args.seed}, workers {','.join(map(str, args.workers))}, "
        f"{args.repeats} repeat(s), median quoted")
    if args.transform == "train":
        transform = (f"RandomResizedCrop({CROP_SIZE}, scale=(0.08, 1), ratio=(3/4, 4/3)) + "
                     "RandomHorizontalFlip")
    else:
        transform = f"Resize({RESIZE_SIZE}) + CenterCrop({CROP_SIZE})"
    log(f"  torch        ImageFolder + {transform} + PILToTensor -> uint8 NCHW; DataLoader("
        "shuffle=True, persistent_workers=False, pin_memory=False); num_workers=N is N "
        "worker processes (torch.set_num_threads(1) in each, the default) plus the main "
        "process")
    log(f"  feedrate     bench --transform {args.transform} -> uint8 NHWC; --workers N is N "
        "decode threads in one process")
    log("  neither side normalises or converts to float")
    log("")


def print_columns(columns, rows, log):
    """A table of `rows`: one column per (title, format, width), right-aligned."""
    log(" | ".join(title.rjust(width) for title, _, width in columns))
    log("-+-".join("-" * width for _, _, width in columns))
    for row in rows:
        log(" | ".join(fmt.format(**row).rjust(width) for _, fmt, width in columns))


def print_table(rows, log):
    columns = [("workers", "{workers}", 7),
               ("torch img/s", "{torch_images_per_s:.1f}", 11),
               ("feedrate img/s", "{feedrate_images_per_s:.1f}", 14),
               ("speed ratio", "{speed_ratio:.2f}x", 11),
               ("torch peak PSS MB", "{torch_peak_pss_mb:.1f}", 17),
               ("feedrate peak PSS MB", "{feedrate_peak_pss_mb:.1f}", 20),
               ("memory ratio", "{memory_ratio_pss:.2f}x", 12)]
    print_columns(columns, rows, log)
    log("speed ratio = feedrate / torch images/s; memory ratio = torch tree peak PSS / "
        "feedrate peak PSS; medians over repeats, ratios of the medians")
    log("")
    log("for reference (medians):")
    for row in rows:
        log(f"  workers {row['workers']}: torch tree peak RSS sum "
            f"{row['torch_peak_rss_sum_mb']:.1f} MB (shared pages counted once per process); "
            "feedrate peak RSS (VmHWM) "
            f"{row['feedrate_peak_rss_mb']:.1f} MB")
        log(f"  workers {row['workers']}: memory sampled every "
            f"{row['torch_memory_sample_interval_s'] * 1e3:.0f} ms (torch) and "
            f"{row['feedrate_memory_sample_interval_s'] * 1e3:.0f} ms (feedrate) on average "
            f"(>= {SAMPLE_INTERVAL_S * 1e3:.0f} ms, sampler capped at "
            f"{SAMPLER_CPU_SHARE:.0%} of one core)")
    log("")


def print_python(rows, log):
    columns = [("workers", "{workers}", 7),
               ("torch img/s", "{torch_images_per_s:.1f}", 11),
               ("bench (C++) img/s", "{feedrate_images_per_s:.1f}", 17),
               ("Loader (Python) img/s", "{python_images_per_s:.1f}", 21),
               ("Python/C++", "{python_to_cpp:.1%}", 10),
               ("Python/torch", "{python_to_torch:.2f}x", 12),
               ("Python peak PSS MB", "{python_peak_pss_mb:.1f}", 18),
               ("torch/Python PSS", "{python_memory_ratio_pss:.2f}x", 16)]
    log("feedrate's Python module (feedrate.Loader, torch tensors, torch imported)")
    print_columns(columns, rows, log)
    for row in rows:
        log(f"  workers {row['workers']}: the Python process's RSS is "
            f"{row['python_baseline_rss_mb']:.1f} MB with torch imported, before the Loader; "
            f"peak {row['python_peak_rss_mb']:.1f} MB (medians)")
    log("")


def print_targets(rows, log):
    verdict = {True: "met", False: "NOT met"}
    log("targets (from the issue)")
    for row in rows:
        log(f"  workers {row['workers']}: feedrate >= {SPEED_TARGET}x the DataLoader's images/s:"
            f" {row['speed_ratio']:.2f}x -> {verdict[row['speed_target_met']]}")
        log(f"  workers {row['workers']}: feedrate peak RSS <= 1/{MEMORY_TARGET:g} of the "
            f"DataLoader tree's peak PSS: {row['feedrate_peak_rss_mb']:.1f} MB vs "
            f"{row['torch_peak_pss_mb']:.1f} MB ({row['memory_ratio_target']:.2f}x) -> "
            f"{verdict[row['memory_target_met']]}")
        if "python_images_per_s" in row:
            log(f"  workers {row['workers']}: feedrate.Loader (Python) >= "
                f"{PYTHON_KEEPS_TARGET:.0%} of feedrate bench's images/s: "
                f"{row['python_to_cpp']:.1%} -> {verdict[row['python_keeps_target_met']]}")
            log(f"  workers {row['workers']}: feedrate.Loader (Python) >= {SPEED_TARGET}x the "
                f"DataLoader's images/s: {row['python_to_torch']:.2f}x -> "
                f"{verdict[row['python_speed_target_met']]}")
