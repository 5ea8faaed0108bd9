"""A real-world-like corpus of PNG, WebP, TIFF, BMP and PNM variants, written by PIL, by libtiff's
tiffcp and byte by byte (test_pil_formats.py's writers), decoded by feedrate (feedrate-decode-files)
and by PIL's Image.open(f).convert("RGB"); prints how many agree exactly, differ, or are refused,
by format, and every file that differs or that only one of them decodes.

  /usr/bin/python3 tests/python/pil_corpus.py --decode build/tests/decode/feedrate-decode-files \\
      --out /tmp/pil-corpus --images 12

test_pil_corpus.py runs a small one in `make test` and asserts that nothing differs.
"""

import argparse
import collections
import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from PIL import Image, TiffImagePlugin

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_pil_formats as w  # noqa: E402  (the writers)


def pixels(seed, width, height, channels=3):
    return w.photo(seed, width, height, channels)


def tiff_info(orientation):
    info = TiffImagePlugin.ImageFileDirectory_v2()
    info[274] = orientation
    return info


def rle8(indices):
    """An RLE8 encoding of rows of palette indices (bottom-up), with runs and absolute runs."""
    out = bytearray()
    for row in indices[::-1]:
        x = 0
        while x < len(row):
            run = 1
            while x + run < len(row) and run < 255 and row[x + run] == row[x]:
                run += 1
            if run >= 3 or len(row) - x < 3:
                out += bytes([run, row[x]])
                x += run
            else:
                n = min(255, len(row) - x)
                n = max(3, min(n, 40))
                out += bytes([0, n]) + bytes(row[x:x + n])
                if n % 2:
                    out.append(0)
                x += n
        out += b"\0\0"
    return bytes(out + b"\0\1")


def make_corpus(out, images, tiffcp):
    """Writes the corpus under `out`; returns the paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []

    def add(path):
        paths.append(path)
        return path

    rng = np.random.default_rng(0)
    for k in range(images):
        width, height = int(rng.integers(8, 160)), int(rng.integers(8, 120))
        rgb = Image.fromarray(pixels(k, width, height))
        rgba = Image.fromarray(pixels(k, width, height, 4))
        gray = rgb.convert("L")
        wide = Image.fromarray((np.asarray(gray).astype(np.uint16) * 7 + k).astype(np.uint16))
        modes = {"rgb": rgb, "rgba": rgba, "l": gray, "la": rgba.convert("LA"),
                 "p": rgb.quantize(int(rng.integers(2, 257))), "1": gray.convert("1")}
        base = f"{k:03d}"
        # PNG
        for name, image in dict(modes, i16=wide).items():
            add(w.save(image, out / f"{base}_{name}.png"))
        add(w.save(rgb.quantize(16), out / f"{base}_p16_bits4.png", bits=4))
        # WebP
        add(w.save(rgb, out / f"{base}_lossless.webp", lossless=True))
        add(w.save(rgba, out / f"{base}_alpha_lossless.webp", lossless=True))
        add(w.save(rgb, out / f"{base}_lossy.webp", quality=int(rng.integers(30, 95))))
        # TIFF written by PIL
        compressions = [None, "tiff_lzw", "tiff_adobe_deflate", "packbits"]
        tiffs = {}
        for name, image in dict(modes, i16=wide, cmyk=rgb.convert("CMYK"),
                                i32=Image.fromarray(np.asarray(wide).astype(np.int32) - 300, "I"),
                                f=Image.fromarray(np.asarray(wide).astype(np.float32) / 3.5,
                                                  "F")).items():
            compression = compressions[(k + len(name)) % len(compressions)]
            options = {"compression": compression} if compression else {}
            orientation = 1 + (k + len(name)) % 8
            tiffs[name] = add(w.save(image, out / f"{base}_{name}_{compression}_o{orientation}.tif",
                                     tiffinfo=tiff_info(orientation), **options))
        add(w.save(rgb, out / f"{base}_rgb_jpeg.tif", compression="jpeg"))
        add(w.save(gray, out / f"{base}_l_jpeg.tif", compression="jpeg"))
        add(w.save(modes["1"], out / f"{base}_g4.tif", compression="group4"))
        add(w.save(modes["1"], out / f"{base}_g3.tif", compression="group3"))
        # TIFF rewritten by tiffcp: tiles, planes, byte order, BigTIFF, strips, codecs
        if tiffcp:
            source = tiffs["rgb"]
            for tag, options in [("tiled", ["-t", "-w", "16", "-l", "16"]),
                                 ("separate", ["-p", "separate", "-c", "lzw"]),
                                 ("be", ["-B", "-c", "zip"]), ("bigtiff", ["-8"]),
                                 ("strips", ["-r", str(1 + k % 5)]),
                                 ("jpeg", ["-c", "jpeg", "-r", "16"]),
                                 ("jpeg_rgb", ["-c", "jpeg:r", "-r", "16"]),
                                 ("zip_pred", ["-c", "zip:p2"]), ("lzw_pred", ["-c", "lzw:2"])]:
                add(w.tiffcp(source, out / f"{base}_tiffcp_{tag}.tif", *options))
            for name in ("i16", "cmyk", "rgba", "p", "la"):
                source = tiffs[name]
                add(w.tiffcp(source, out / f"{base}_tiffcp_{name}_tiled.tif", "-t", "-w", "32",
                             "-l", "16"))
                add(w.tiffcp(source, out / f"{base}_tiffcp_{name}_be.tif", "-B"))
            add(w.tiffcp(tiffs["cmyk"], out / f"{base}_tiffcp_cmyk_jpeg.tif", "-c", "jpeg",
                         "-r", "16"))
        # BMP: PIL's, then byte by byte
        for name in ("rgb", "rgba", "l", "p", "1"):
            add(w.save(modes[name], out / f"{base}_{name}.bmp"))
        idx = rng.integers(0, 16, size=(height, width))
        idx[:, : width // 2] = idx[0, 0]  # runs for RLE
        palette = w.palette_of(16, k)
        add(w.bmp(out / f"{base}_p4.bmp", width, height, 4,
                  [w.padded(w.pack_bits(r, 4)) for r in idx[::-1]], palette))
        add(w.bmp(out / f"{base}_rle8.bmp", width, height, 8,
                  rle8([bytes(r.astype(np.uint8)) for r in idx]), palette, compression=1))
        words = rng.integers(0, 65536, size=(height, width)).astype("<u2")
        add(w.bmp(out / f"{base}_555.bmp", width, height, 16,
                  [w.padded(r.tobytes()) for r in words[::-1]]))
        add(w.bmp(out / f"{base}_565.bmp", width, height, 16,
                  [w.padded(r.tobytes()) for r in words[::-1]], compression=3,
                  masks=(0xF800, 0x7E0, 0x1F)))
        rows24 = [w.padded(np.asarray(rgb)[y, :, ::-1].tobytes()) for y in reversed(range(height))]
        add(w.bmp(out / f"{base}_os2.bmp", width, height, 24, rows24, header=12))
        add(w.bmp(out / f"{base}_v5.bmp", width, height, 24, rows24, header=124))
        add(w.bmp(out / f"{base}_top_down.bmp", width, height, 24, rows24[::-1], top_down=True))
        # PNM: PIL's, then plain and other maxvals
        for name in ("rgb", "l", "1"):
            add(w.save(modes[name], out / f"{base}_{name}.pnm"))
        add(w.save(Image.fromarray(np.asarray(wide).astype(np.int32), "I"),
                   out / f"{base}_i16.pgm"))
        maxval = int(rng.integers(1, 65536))
        samples = rng.integers(0, maxval + 1, size=(height, width, 3))
        text = f"P3\n{width} {height}\n{maxval}\n" + w.plain(samples) + "\n"
        (out / f"{base}_p3_{maxval}.ppm").write_text(text)
        add(out / f"{base}_p3_{maxval}.ppm")
        body = samples[..., 0].astype(">u2" if maxval > 255 else "u1").tobytes()
        (out / f"{base}_p5_{maxval}.pgm").write_bytes(b"P5 %d %d %d\n" % (width, height, maxval)
                                                       + body)
        add(out / f"{base}_p5_{maxval}.pgm")
    return paths


def compare(paths, decode_tool, out):
    os.environ["FEEDRATE_DECODE_FILES"] = decode_tool
    results = []
    for start in range(0, len(paths), 200):  # keep the command line short
        results += w.decode_files(paths[start:start + 200], out)
    counts = collections.defaultdict(collections.Counter)
    notes = []
    for path, result in zip(paths, results):
        fmt = path.suffix.lstrip(".").replace("pgm", "pnm").replace("ppm", "pnm")
        try:
            expected = w.pil_rgb(path)
        except Exception as e:  # noqa: BLE001 - PIL's refusal is data here
            expected = f"{type(e).__name__}: {e}"
        if isinstance(result, str) and isinstance(expected, str):
            counts[fmt]["refused by both"] += 1
        elif isinstance(result, str):
            counts[fmt]["refused, PIL loads it"] += 1
            notes.append(f"{path.name}: feedrate refuses ({result})")
        elif isinstance(expected, str):
            counts[fmt]["decoded, PIL refuses it"] += 1
            notes.append(f"{path.name}: PIL refuses ({expected})")
        elif result.shape == expected.shape and np.array_equal(result, expected):
            counts[fmt]["agree"] += 1
        else:
            counts[fmt]["differ"] += 1
            if result.shape != expected.shape:
                notes.append(f"{path.name}: shape {result.shape} vs PIL {expected.shape}")
            else:
                d = np.abs(result.astype(int) - expected.astype(int))
                notes.append(f"{path.name}: mean {d.mean():.3f} max {d.max()}")
    return counts, notes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decode", required=True, help="feedrate-decode-files")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--images", type=int, default=12, help="source images (each ~80 files)")
    args = parser.parse_args()
    import shutil
    paths = make_corpus(args.out, args.images, shutil.which("tiffcp") is not None)
    counts, notes = compare(paths, os.path.abspath(args.decode), args.out)
    print(f"{len(paths)} files from {args.images} source images (PIL {Image.__version__})")
    total = collections.Counter()
    for fmt in sorted(counts):
        total.update(counts[fmt])
        print(f"  {fmt:5s} " + ", ".join(f"{k}: {v}" for k, v in sorted(counts[fmt].items())))
    print("  all   " + ", ".join(f"{k}: {v}" for k, v in sorted(total.items())))
    for note in notes:
        print("   ", note)


if __name__ == "__main__":
    main()
