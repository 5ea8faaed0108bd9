"""The TIFF, BMP and PNM variants PIL loads, each made here by PIL, by libtiff's tiffcp or (for
layouts neither writes) byte by byte, and decoded whole by feedrate's decoder
(feedrate-decode-files): the pixels equal PIL's Image.open(f).convert("RGB") exactly, at full
size. Variants PIL refuses are refused with a message that names them."""

import os
import shutil
import struct
import subprocess

import numpy as np
import pytest
from PIL import Image, TiffImagePlugin

WIDTH, HEIGHT = 37, 23  # odd sides: row padding, partial tiles, a short last strip


def decode_files(paths, out_dir):
    """feedrate's result for each path: an HxWx3 array, or the error message."""
    tool = os.environ.get("FEEDRATE_DECODE_FILES")
    if not tool:
        pytest.skip("FEEDRATE_DECODE_FILES is not set (run through ctest)")
    lines = subprocess.run([tool, str(out_dir)] + [str(p) for p in paths], check=True,
                           capture_output=True, text=True).stdout.splitlines()
    assert len(lines) == len(paths)
    results = []
    for k, line in enumerate(lines):
        if line.startswith("ok "):
            width, height = (int(v) for v in line.split()[1:])
            data = np.fromfile(out_dir / f"{k}.rgb", dtype=np.uint8)
            results.append(data.reshape(height, width, 3))
        else:
            results.append(line)
    return results


def pil_rgb(path):
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"))


def expect_pil_pixels(paths, tmp_path):
    results = decode_files(paths, tmp_path)
    for path, result in zip(paths, results):
        assert not isinstance(result, str), f"{path.name}: {result}"
        expected = pil_rgb(path)
        assert result.shape == expected.shape, path.name
        different = int((result != expected).any(axis=2).sum())
        assert different == 0, f"{path.name}: {different} pixels differ from PIL"


def photo(seed=1, width=WIDTH, height=HEIGHT, channels=3):
    """Smooth gradients plus noise, every channel different, all 256 levels present."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width]
    base = np.stack([x * 255 // (width - 1), y * 255 // (height - 1), (x * y) % 256,
                     (x + 3 * y) % 256][:channels], -1)
    return ((base + rng.integers(0, 64, size=base.shape)) % 256).astype(np.uint8)


def tiffcp(source, target, *options):
    if shutil.which("tiffcp") is None:
        pytest.skip("tiffcp is missing (Debian: libtiff-tools, in the Makefile's DEB_PACKAGES)")
    subprocess.run(["tiffcp", *options, str(source), str(target)], check=True,
                   capture_output=True)
    return target


def raw_tiff(path, pixels, bits, photometric, sample_format=1, extra=None):
    """An uncompressed little-endian single-strip TIFF of `pixels` (HxWxS integers), for layouts
    PIL cannot write: 12-bit and signed 16-bit gray, associated alpha."""
    height, width, samples = pixels.shape
    if bits == 12:  # two samples in three bytes, high bits first
        flat = pixels.astype(np.uint16).reshape(height, -1)
        a, b = flat[:, 0::2], flat[:, 1::2]
        data = np.stack([a >> 4, ((a & 15) << 4) | (b >> 8), b & 255], -1).astype(np.uint8)
    else:
        data = pixels.astype({8: "<u1", 16: "<u2" if sample_format == 1 else "<i2"}[bits])
    data = data.tobytes()
    short, long_ = 3, 4
    entries = {256: (long_, [width]), 257: (long_, [height]), 258: (short, [bits] * samples),
               259: (short, [1]), 262: (short, [photometric]), 273: (long_, [0]),
               277: (short, [samples]), 278: (long_, [height]), 279: (long_, [len(data)]),
               284: (short, [1]), 339: (short, [sample_format] * samples)}
    if extra is not None:
        entries[338] = (short, [extra])
    table_at = 8 + 2 + 12 * len(entries) + 4  # arrays too long for an entry go after the IFD
    tables, ifd = b"", struct.pack("<H", len(entries))
    for tag in sorted(entries):
        kind, values = entries[tag]
        packed = struct.pack(f"<{len(values)}{'H' if kind == short else 'I'}", *values)
        if len(packed) > 4:
            ifd += struct.pack("<HHII", tag, kind, len(values), table_at + len(tables))
            tables += packed
        else:
            ifd += struct.pack("<HHI", tag, kind, len(values)) + packed.ljust(4, b"\0")
    data_at = table_at + len(tables)
    ifd = ifd.replace(struct.pack("<HHII", 273, long_, 1, 0), struct.pack("<HHII", 273, long_, 1,
                                                                          data_at))
    path.write_bytes(b"II*\0" + struct.pack("<I", 8) + ifd + struct.pack("<I", 0) + tables + data)
    return path


def save(image, path, **options):
    image.save(path, **options)
    return path


def orientation_info(value):
    info = TiffImagePlugin.ImageFileDirectory_v2()
    info[274] = value
    return info


# --- TIFF -------------------------------------------------------------------------------------

def test_tiff_orientation_is_applied_as_pillow_does(tmp_path):
    """Pillow transposes a TIFF by its Orientation tag when it loads it: 5-8 swap the sides."""
    rgb = Image.fromarray(photo())
    paths = []
    for orientation in range(1, 9):
        for compression in (None, "tiff_lzw"):
            name = f"orientation{orientation}_{compression}.tif"
            options = {"compression": compression} if compression else {}
            paths.append(save(rgb, tmp_path / name, tiffinfo=orientation_info(orientation),
                              **options))
    # The RGBA path (YCbCr) takes the tag too.
    paths.append(tiffcp(paths[10], tmp_path / "orientation6_jpeg.tif", "-c", "jpeg"))
    expect_pil_pixels(paths, tmp_path)
    assert pil_rgb(paths[10]).shape == (WIDTH, HEIGHT, 3)


def test_tiff_gray_samples_are_clipped_as_pil_does(tmp_path):
    rng = np.random.default_rng(2)
    wide = rng.integers(0, 1024, size=(HEIGHT, WIDTH), dtype=np.uint16)
    wide[0, :8] = [0, 1, 254, 255, 256, 1000, 65535, 300]
    paths = [save(Image.fromarray(wide), tmp_path / "gray16.tif"),
             save(Image.fromarray(wide), tmp_path / "gray16_lzw.tif", compression="tiff_lzw"),
             save(Image.fromarray(wide.astype(np.int32) - 200, "I"), tmp_path / "gray32s.tif"),
             save(Image.fromarray((wide.astype(np.float32) - 100.5) / 2.5, "F"),
                  tmp_path / "float32.tif"),
             save(Image.fromarray(photo()[..., 0]), tmp_path / "gray8.tif"),
             save(Image.fromarray(photo()[..., 0]).convert("1"), tmp_path / "bilevel.tif"),
             save(Image.fromarray(photo()[..., 0]).convert("1"), tmp_path / "g4.tif",
                  compression="group4"),
             raw_tiff(tmp_path / "gray12.tif", (wide[:, :36] * 4)[..., None], 12, 1),
             raw_tiff(tmp_path / "gray16s.tif", (wide.astype(np.int32) - 500)[..., None], 16, 1,
                      sample_format=2),
             raw_tiff(tmp_path / "gray8_miniswhite.tif", photo()[..., :1], 8, 0)]
    paths.append(tiffcp(paths[0], tmp_path / "gray16_be_tiled.tif", "-B", "-t", "-w", "16",
                        "-l", "16"))
    expect_pil_pixels(paths, tmp_path)
    assert pil_rgb(paths[0])[0, :8, 0].tolist() == [0, 1, 254, 255, 255, 255, 255, 255]


def test_tiff_alpha_as_pil_does(tmp_path):
    """Unassociated alpha is dropped; associated (premultiplied) alpha is divided out, as PIL's
    "RGBa" unpacking does (truncated, clipped, black where alpha is 0)."""
    rgba = photo(channels=4)
    rgba[0, :4, 3] = [0, 1, 128, 255]
    premultiplied = rgba.copy()
    premultiplied[..., :3] = (rgba[..., :3].astype(np.uint32) * rgba[..., 3:] // 255)
    paths = [save(Image.fromarray(rgba), tmp_path / "unassociated.tif"),
             save(Image.fromarray(rgba), tmp_path / "unassociated_deflate.tif",
                  compression="tiff_adobe_deflate"),
             raw_tiff(tmp_path / "associated.tif", premultiplied, 8, 2, extra=1),
             save(Image.fromarray(rgba[..., :2], "LA"), tmp_path / "gray_alpha.tif")]
    paths.append(tiffcp(paths[0], tmp_path / "unassociated_separate.tif", "-p", "separate"))
    expect_pil_pixels(paths, tmp_path)


def test_tiff_layouts_and_compressions(tmp_path):
    rgb = Image.fromarray(photo())
    base = save(rgb, tmp_path / "rgb.tif")
    paths = [base,
             save(rgb, tmp_path / "packbits.tif", compression="packbits"),
             save(rgb, tmp_path / "jpeg.tif", compression="jpeg"),
             save(rgb.convert("CMYK"), tmp_path / "cmyk.tif"),
             save(Image.fromarray(photo(channels=4), "CMYK"), tmp_path / "cmyk_random.tif"),
             save(rgb.quantize(200), tmp_path / "palette8.tif"),
             save(rgb.quantize(16), tmp_path / "palette8_of_16.tif", compression="tiff_lzw"),
             tiffcp(base, tmp_path / "bigtiff.tif", "-8"),
             tiffcp(base, tmp_path / "bigtiff_zip.tif", "-8", "-c", "zip"),
             tiffcp(base, tmp_path / "tiled.tif", "-t", "-w", "16", "-l", "32"),
             tiffcp(base, tmp_path / "separate_lzw.tif", "-p", "separate", "-c", "lzw"),
             tiffcp(base, tmp_path / "strips3.tif", "-r", "3", "-c", "zip:p9")]
    paths.append(tiffcp(paths[3], tmp_path / "cmyk_jpeg.tif", "-c", "jpeg"))
    paths.append(tiffcp(paths[5], tmp_path / "palette_tiled.tif", "-t", "-w", "16", "-l", "16"))
    expect_pil_pixels(paths, tmp_path)


def test_damaged_tiff_is_an_error(tmp_path):
    """A strip whose LZW data is damaged: libtiff reports it through its error handler, and
    the image is refused rather than delivered with garbage rows."""
    base = save(Image.fromarray(photo()), tmp_path / "lzw.tif", compression="tiff_lzw")
    data = bytearray(base.read_bytes())
    with Image.open(base) as image:
        start, length = image.tag_v2[273][0], image.tag_v2[279][0]
    refused = 0
    rng = np.random.default_rng(4)
    for trial in range(40):
        bad = bytearray(data)
        for at in rng.integers(start, start + length, size=3):  # inside the strip
            bad[at] ^= 0xFF
        path = tmp_path / f"bad{trial}.tif"
        path.write_bytes(bytes(bad))
        result = decode_files([path], tmp_path)[0]
        if isinstance(result, str):
            assert "TIFF" in result
            refused += 1
            continue
        # Delivered: then PIL reads the same pixels.
        try:
            expected = pil_rgb(path)
        except OSError:
            pytest.fail(f"{path.name}: PIL refuses it, feedrate delivered it")
        assert np.array_equal(result, expected), path.name
    assert refused > 0
