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


def raw_tiff(path, pixels, bits, photometric, sample_format=1, extra=None, tags=None):
    """An uncompressed little-endian single-strip TIFF of `pixels` (HxWxS integers), for layouts
    PIL cannot write: 2-, 4- and 12-bit samples, 16- and 32-bit gray of any sign, min-is-white
    above 8 bits, associated alpha; `tags` adds entries ({tag: (type, values)})."""
    height, width, samples = pixels.shape
    if bits < 8:  # rows start on a byte
        data = b"".join(pack_bits(row.reshape(-1), bits) for row in pixels)
    elif bits == 12:  # two samples in three bytes, high bits first
        flat = pixels.astype(np.uint16).reshape(height, -1)
        a, b = flat[:, 0::2], flat[:, 1::2]
        data = np.stack([a >> 4, ((a & 15) << 4) | (b >> 8), b & 255], -1).astype(np.uint8)
    else:
        data = pixels.astype({(8, 1): "<u1", (16, 1): "<u2", (16, 2): "<i2", (32, 1): "<u4",
                              (32, 2): "<i4"}[bits, sample_format])
    if not isinstance(data, bytes):
        data = data.tobytes()
    short, long_ = 3, 4
    entries = {256: (long_, [width]), 257: (long_, [height]), 258: (short, [bits] * samples),
               259: (short, [1]), 262: (short, [photometric]), 273: (long_, [0]),
               277: (short, [samples]), 278: (long_, [height]), 279: (long_, [len(data)]),
               284: (short, [1]), 339: (short, [sample_format] * samples)}
    if extra is not None:
        entries[338] = (short, [extra])
    entries.update(tags or {})
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
    # The RGBA path (YCbCr) takes the tag too. Without JPEG compression Pillow has libtiff flip
    # each strip to the top-left orientation, then transposes again: strips of 5 rows show it.
    paths.append(tiffcp(paths[10], tmp_path / "orientation6_jpeg.tif", "-c", "jpeg"))
    ycbcr = photo()[:, :36]
    for orientation in (1, 2, 3, 6, 7, 8):
        raw = raw_tiff(tmp_path / f"ycbcr{orientation}_raw.tif", ycbcr, 8, 6,
                       tags={530: (3, [1, 1]), 274: (3, [orientation])})
        paths.append(tiffcp(raw, tmp_path / f"ycbcr{orientation}_lzw.tif", "-c", "lzw", "-r", "5"))
        # Tiled, Pillow flips whole rows but reverses rows within each band of tiles.
        for tile in ((16, 16), (32, 16), (16, 32)):
            paths.append(tiffcp(paths[-1], tmp_path / f"ycbcr{orientation}_tiles{tile[0]}x{tile[1]}.tif",
                                "-t", "-w", str(tile[0]), "-l", str(tile[1])))
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
             raw_tiff(tmp_path / "gray8_miniswhite.tif", photo()[..., :1], 8, 0),
             raw_tiff(tmp_path / "gray16_miniswhite.tif", wide[..., None], 16, 0),
             raw_tiff(tmp_path / "gray32u.tif", (wide.astype(np.uint32) * 70000)[..., None], 32,
                      1),
             raw_tiff(tmp_path / "gray4.tif", (wide[:, :36] % 16)[..., None], 4, 1),
             raw_tiff(tmp_path / "gray2_miniswhite.tif", (wide[:, :36] % 4)[..., None], 2, 0)]
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
    # 16-bit samples: PIL keeps the high byte (and divides premultiplied colour by alpha's).
    wide = np.random.default_rng(11).integers(0, 65536, size=(HEIGHT, WIDTH, 4))
    wide_premultiplied = wide.copy()
    wide_premultiplied[..., :3] = wide[..., :3] * wide[..., 3:] // 65535
    paths += [raw_tiff(tmp_path / "rgb16.tif", wide[..., :3], 16, 2),
              raw_tiff(tmp_path / "rgba16_associated.tif", wide_premultiplied, 16, 2, extra=1),
              raw_tiff(tmp_path / "rgba16_unassociated.tif", wide, 16, 2, extra=2),
              raw_tiff(tmp_path / "cmyk16.tif", wide, 16, 5)]
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
    colormap = [int(v) for v in np.random.default_rng(9).integers(0, 65536, size=3 * 16)]
    indices = np.random.default_rng(10).integers(0, 16, size=(HEIGHT, 36, 1))
    paths.append(raw_tiff(tmp_path / "palette4.tif", indices, 4, 3, tags={320: (3, colormap)}))
    paths.append(raw_tiff(tmp_path / "palette1.tif", indices % 2, 1, 3,
                          tags={320: (3, colormap[0:2] + colormap[16:18] + colormap[32:34])}))
    paths.append(tiffcp(paths[5], tmp_path / "palette_tiled.tif", "-t", "-w", "16", "-l", "16"))
    expect_pil_pixels(paths, tmp_path)


@pytest.mark.parametrize("compression", ["tiff_lzw", "group3", "group4"])
def test_damaged_tiff_is_an_error(tmp_path, compression):
    """Strips whose compressed data is damaged. Where libtiff reports the damage only through its
    error handler and returns success (a bad CCITT code word), the image is refused all the same
    rather than delivered with garbage rows; what is delivered equals PIL's pixels."""
    image = Image.fromarray(photo()[..., 0])
    base = save(image if compression == "tiff_lzw" else image.convert("1"), tmp_path / "base.tif",
                compression=compression)
    data = bytearray(base.read_bytes())
    with Image.open(base) as opened:
        start, length = opened.tag_v2[273][0], opened.tag_v2[279][0]
    rng = np.random.default_rng(4)
    paths = []
    for trial in range(40):
        bad = bytearray(data)
        for at in rng.integers(start, start + length, size=2):  # inside the strip
            bad[at] ^= 0xFF
        paths.append(tmp_path / f"bad{trial}.tif")
        paths[-1].write_bytes(bytes(bad))
    messages = []
    for path, result in zip(paths, decode_files(paths, tmp_path)):
        if isinstance(result, str):
            assert "TIFF" in result
            messages.append(result)
            continue
        try:
            expected = pil_rgb(path)
        except OSError:
            pytest.fail(f"{path.name}: PIL refuses it, feedrate delivered it")
        assert np.array_equal(result, expected), path.name
    assert messages
    if compression == "group4":  # several of the 40 are errors libtiff returns success for
        assert any("damaged image data" in m and "Bad code word" in m for m in messages), messages


def expect_refused(paths, tmp_path, needles):
    """feedrate refuses each file with a message holding its needle; so does PIL."""
    for path, result, needle in zip(paths, decode_files(paths, tmp_path), needles):
        assert isinstance(result, str), f"{path.name} was decoded"
        assert needle in result, f"{path.name}: {result}"
        with pytest.raises((OSError, ValueError, SyntaxError)):
            pil_rgb(path)


# --- BMP --------------------------------------------------------------------------------------

def bmp(path, width, height, bits, rows, palette=(), compression=0, header=40, masks=None,
        top_down=False, offset=None, colors=None):
    """A BMP written byte by byte (PIL writes only 1-, 8-, 24- and 32-bit BI_RGB): `rows` are
    the pixel data as stored (bottom-up unless top_down), already padded, or RLE data."""
    data = b"".join(rows) if isinstance(rows, list) else rows
    entry = 3 if header == 12 else 4
    table = b"".join(bytes([b, g, r]) + (b"\0" if entry == 4 else b"") for r, g, b in palette)
    if header == 12:
        info = struct.pack("<IHHHH", 12, width, height, 1, bits)
    else:
        info = struct.pack("<IiiHHIIiiII", header, width, -height if top_down else height, 1,
                           bits, compression, len(data), 2835, 2835,
                           len(palette) if colors is None else colors, 0)
        if header > 40:
            extra = struct.pack("<4I", *(masks or (0, 0, 0, 0)))
            info += extra + bytes(header - 40 - len(extra))
        elif masks:
            info += struct.pack("<3I", *masks[:3])
    start = 14 + len(info) + len(table) if offset is None else offset
    head = b"BM" + struct.pack("<IHHI", 14 + len(info) + len(table) + len(data), 0, 0, start)
    path.write_bytes(head + info + table + data)
    return path


def padded(row):
    return row + bytes(-len(row) % 4)


def pack_bits(indices, bits):
    out, acc, filled = bytearray(), 0, 0
    for v in indices:
        acc, filled = (acc << bits) | int(v), filled + bits
        if filled == 8:
            out.append(acc)
            acc, filled = 0, 0
    if filled:
        out.append(acc << (8 - filled))
    return bytes(out)


def palette_of(count, seed=3):
    rng = np.random.default_rng(seed)
    return [tuple(int(c) for c in rng.integers(0, 256, 3)) for _ in range(count)]


def test_bmp_written_by_pil(tmp_path):
    rgb = Image.fromarray(photo())
    paths = [save(rgb, tmp_path / "rgb24.bmp"),
             save(Image.fromarray(photo(channels=4)), tmp_path / "rgba32.bmp"),
             save(rgb.convert("L"), tmp_path / "gray8.bmp"),
             save(rgb.convert("1"), tmp_path / "bilevel.bmp"),
             save(rgb.quantize(100), tmp_path / "palette8.bmp")]
    expect_pil_pixels(paths, tmp_path)


def test_bmp_palettes_headers_and_offsets(tmp_path):
    rng = np.random.default_rng(5)
    w, h = WIDTH, HEIGHT
    idx4 = rng.integers(0, 16, size=(h, w))
    idx1 = rng.integers(0, 2, size=(h, w))
    idx8 = rng.integers(0, 256, size=(h, w))  # 20 colours: indices past them are gray
    pixels24 = photo()
    rows24 = [padded(pixels24[y, :, ::-1].tobytes()) for y in reversed(range(h))]
    paths = [
        bmp(tmp_path / "palette4.bmp", w, h, 4,
            [padded(pack_bits(idx4[y], 4)) for y in reversed(range(h))], palette_of(16)),
        bmp(tmp_path / "palette1_colour.bmp", w, h, 1,
            [padded(pack_bits(idx1[y], 1)) for y in reversed(range(h))], palette_of(2)),
        bmp(tmp_path / "palette8_short.bmp", w, h, 8,
            [padded(bytes(idx8[y].astype(np.uint8))) for y in reversed(range(h))],
            palette_of(20)),
        bmp(tmp_path / "palette4_top_down.bmp", w, h, 4,
            [padded(pack_bits(idx4[y], 4)) for y in range(h)], palette_of(16), top_down=True),
        # The pixel offset points at the palette: Pillow reads the pixels after it.
        bmp(tmp_path / "offset_at_palette.bmp", w, h, 8,
            [padded(bytes(idx8[y].astype(np.uint8))) for y in reversed(range(h))],
            palette_of(256), offset=14 + 40),
        bmp(tmp_path / "os2_24.bmp", w, h, 24, rows24, header=12),
        bmp(tmp_path / "os2_8.bmp", w, h, 8,
            [padded(bytes(idx8[y].astype(np.uint8))) for y in reversed(range(h))],
            palette_of(256), header=12),
        bmp(tmp_path / "v4_24.bmp", w, h, 24, rows24, header=108),
        bmp(tmp_path / "v5_24.bmp", w, h, 24, rows24, header=124),
        bmp(tmp_path / "os2v2_24.bmp", w, h, 24, rows24, header=64)]
    expect_pil_pixels(paths, tmp_path)


def test_bmp_16_bit_and_bit_fields(tmp_path):
    rng = np.random.default_rng(6)
    w, h = WIDTH, HEIGHT
    words = rng.integers(0, 65536, size=(h, w)).astype("<u2")
    words[0, :4] = [0, 0x7FFF, 0xFFFF, 0x8000]
    rows16 = [padded(words[y].tobytes()) for y in reversed(range(h))]
    rgba = photo(channels=4)
    paths = [
        bmp(tmp_path / "rgb555.bmp", w, h, 16, rows16),
        bmp(tmp_path / "rgb555_fields.bmp", w, h, 16, rows16, compression=3,
            masks=(0x7C00, 0x3E0, 0x1F)),
        bmp(tmp_path / "rgb565.bmp", w, h, 16, rows16, compression=3,
            masks=(0xF800, 0x7E0, 0x1F)),
        bmp(tmp_path / "rgb565_v4.bmp", w, h, 16, rows16, compression=3, header=108,
            masks=(0xF800, 0x7E0, 0x1F, 0)),
        bmp(tmp_path / "xbgr.bmp", w, h, 32,
            [bytes(rgba[y, :, ::-1].tobytes()) for y in reversed(range(h))], compression=3,
            masks=(0xFF000000, 0xFF0000, 0xFF00, 0)),
        bmp(tmp_path / "rgba_v4.bmp", w, h, 32, [rgba[y].tobytes() for y in reversed(range(h))],
            compression=3, header=108, masks=(0xFF, 0xFF00, 0xFF0000, 0xFF000000)),
        bmp(tmp_path / "bgra_v5.bmp", w, h, 32,
            [rgba[y][:, [2, 1, 0, 3]].tobytes() for y in reversed(range(h))], compression=3,
            header=124, masks=(0xFF0000, 0xFF00, 0xFF, 0xFF000000)),
        bmp(tmp_path / "bgr_fields.bmp", w, h, 24,
            [padded(photo()[y, :, ::-1].tobytes()) for y in reversed(range(h))], compression=3,
            masks=(0xFF0000, 0xFF00, 0xFF))]
    expect_pil_pixels(paths, tmp_path)
    refused = [bmp(tmp_path / "rgb101010.bmp", w, h, 32, [bytes(4 * w)] * h, compression=3,
                   masks=(0x3FF00000, 0xFFC00, 0x3FF)),
               bmp(tmp_path / "bits2.bmp", w, h, 2, [padded(pack_bits([0] * w, 2))] * h,
                   palette_of(4)),
               bmp(tmp_path / "jpeg.bmp", w, h, 24, b"\xff\xd8", compression=4)]
    expect_refused(refused, tmp_path, ["bit fields 3ff00000", "2 bits per pixel",
                                       "compression 4 (JPEG)"])


def test_bmp_rle(tmp_path):
    w, h = 13, 6
    # RLE8: runs (one past the row's end, clipped), an absolute run with padding, end of line,
    # a delta, end of bitmap (the rest stays index 0).
    rle8 = bytes([4, 7, 3, 9, 0, 5, 1, 2, 3, 4, 5, 0, 9, 20, 0, 0,
                  0, 3, 30, 31, 32, 0, 2, 12, 6, 8, 40, 0, 2, 3, 1, 0, 0,
                  2, 50, 0, 0, 13, 60, 0, 1])
    rle4 = bytes([5, 0x12, 6, 0x34, 0, 0, 0, 4, 0x56, 0x78, 0, 7, 0x9a, 0xbc, 0xd0, 0,
                  0, 2, 1, 1, 3, 0xef, 0, 0, 13, 0x11, 0, 0, 0, 1])
    paths = [bmp(tmp_path / "rle8.bmp", w, h, 8, rle8, palette_of(256), compression=1),
             bmp(tmp_path / "rle8_16_colours.bmp", w, h, 8, rle8, palette_of(16), compression=1),
             bmp(tmp_path / "rle4.bmp", w, h, 4, rle4, palette_of(16), compression=2),
             bmp(tmp_path / "rle8_top_down.bmp", w, h, 8, rle8, palette_of(256), compression=1,
                 top_down=True)]
    expect_pil_pixels(paths, tmp_path)
    cut = bmp(tmp_path / "rle8_cut.bmp", w, h, 8, rle8[:10], palette_of(256), compression=1)
    expect_refused([cut], tmp_path, ["RLE data ends"])


# --- PNM --------------------------------------------------------------------------------------

def test_pnm_written_by_pil(tmp_path):
    rgb = Image.fromarray(photo())
    wide = np.random.default_rng(7).integers(0, 700, size=(HEIGHT, WIDTH)).astype(np.int32)
    paths = [save(rgb, tmp_path / "rgb.ppm"), save(rgb.convert("L"), tmp_path / "gray.pgm"),
             save(rgb.convert("1"), tmp_path / "bitmap.pbm"),
             save(Image.fromarray(wide, "I"), tmp_path / "gray16.pgm")]
    expect_pil_pixels(paths, tmp_path)
    assert paths[3].read_bytes().startswith(b"P5\n37 23\n65535\n")


def plain(values, per_line=17):
    tokens = [str(int(v)) for v in np.asarray(values).reshape(-1)]
    return "\n".join(" ".join(tokens[i:i + per_line]) for i in range(0, len(tokens), per_line))


def test_pnm_plain_bitmaps_and_maxvals(tmp_path):
    rng = np.random.default_rng(8)
    w, h = WIDTH, HEIGHT
    bits = rng.integers(0, 2, size=(h, w))
    files = {
        "p1.pbm": f"P1\n# a comment\n{w} {h}\n" + "\n".join("".join(map(str, r)) for r in bits),
        "p1_spaced.pbm": f"P1 {w} {h}\n" + plain(bits, 5),
        "p2.pgm": f"P2\n{w} {h}\n255\n" + plain(rng.integers(0, 256, size=(h, w))),
        "p2_15.pgm": f"P2\n{w} {h}\n15\n" + plain(rng.integers(0, 16, size=(h, w))),
        "p2_1000.pgm": f"P2\n{w} {h}\n1000\n# mid-data comment\n" +
                       plain(rng.integers(0, 1001, size=(h, w))),
        "p3.ppm": f"P3\n{w} {h}\n255\n" + plain(rng.integers(0, 256, size=(h, w, 3))),
        "p3_100.ppm": f"P3\n{w} {h}\n100\n" + plain(rng.integers(0, 101, size=(h, w, 3))),
        "p3_4095.ppm": f"P3\n{w} {h}\n4095\n" + plain(rng.integers(0, 4096, size=(h, w, 3))),
    }
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text + "\n")
        paths.append(tmp_path / name)
    binary = {
        "p4.pbm": (b"P4\n%d %d\n" % (w, h),
                   b"".join(pack_bits(r, 1) for r in bits)),
        "p5_15.pgm": (b"P5 %d %d 15\n" % (w, h), rng.integers(0, 16, size=(h, w)).astype("u1")),
        "p5_1000.pgm": (b"P5\n%d %d\n1000\n" % (w, h),
                        rng.integers(0, 1001, size=(h, w)).astype(">u2")),
        "p5_65535.pgm": (b"P5\n%d %d\n65535\n" % (w, h),
                         rng.integers(0, 600, size=(h, w)).astype(">u2")),
        "p6_100.ppm": (b"P6\n%d %d\n100\n" % (w, h),
                       rng.integers(0, 101, size=(h, w, 3)).astype("u1")),
        "p6_65535.ppm": (b"P6\n#c\n%d %d\n65535\n" % (w, h),
                         rng.integers(0, 65536, size=(h, w, 3)).astype(">u2")),
        "p6_300.ppm": (b"P6\n%d %d\n300\n" % (w, h),
                       rng.integers(0, 301, size=(h, w, 3)).astype(">u2")),
    }
    for name, (head, body) in binary.items():
        (tmp_path / name).write_bytes(head + (body if isinstance(body, bytes) else body.tobytes()))
        paths.append(tmp_path / name)
    expect_pil_pixels(paths, tmp_path)
    bad = {"maxval0.pgm": b"P5\n2 2\n0\n\0\0\0\0", "maxval70000.pgm": b"P5\n2 2\n70000\n",
           "p2_above_maxval.pgm": b"P2\n2 1\n15\n3 16\n", "p1_bad.pbm": b"P1\n2 1\n0 2\n",
           "p6_cut.ppm": b"P6\n2 2\n255\n" + bytes(11)}
    for name, data in bad.items():
        (tmp_path / name).write_bytes(data)
    expect_refused([tmp_path / n for n in bad], tmp_path,
                   ["maxval 0", "maxval 70000", "above maxval 15", "not 0 or 1", "samples end"])
