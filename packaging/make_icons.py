"""Render the app icon (resources/icons/app.svg) into the formats installers need.

    python packaging/make_icons.py OUT_DIR

writes OUT_DIR/sammy-desktop.png (256 px, for the Linux .desktop file),
OUT_DIR/sammy-desktop.ico (Windows: 16 to 256 px) and OUT_DIR/sammy-desktop.icns (macOS:
128 to 1024 px). Qt renders the SVG; the ICO and ICNS containers are written here by hand
(both may hold PNG images), so no Pillow and no platform tool is needed, and every system
builds the same icons. The spec runs this before PyInstaller.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bundle_manifest as manifest  # noqa: E402

ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# ICNS element types holding PNG data, by pixel size.
ICNS_TYPES = {128: b"ic07", 256: b"ic08", 512: b"ic09", 1024: b"ic10"}


def render_png(svg: Path, size: int, scratch: Path) -> bytes:
    """The SVG drawn on a transparent square of ``size`` pixels, as PNG bytes."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"make_icons: {svg} is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    # Saving to a path (not a QBuffer) keeps to the one save() overload PySide6 and its
    # type stubs agree on.
    target = scratch / f"{size}.png"
    if not image.save(str(target)):
        raise SystemExit(f"make_icons: could not write {target}")
    return target.read_bytes()


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """An ICO file holding ``pngs`` (size -> PNG bytes); Windows Vista and later read it."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries = b""
    images = b""
    for size in sizes:
        png = pngs[size]
        dimension = 0 if size >= 256 else size  # 0 means 256 in an ICO directory
        entries += struct.pack(
            "<BBBBHHII", dimension, dimension, 0, 0, 1, 32, len(png), offset + len(images)
        )
        images += png
    return header + entries + images


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    """An ICNS file holding ``pngs`` (size -> PNG bytes) in the PNG element types."""
    body = b""
    for size in sorted(pngs):
        png = pngs[size]
        body += ICNS_TYPES[size] + struct.pack(">I", len(png) + 8) + png
    return b"icns" + struct.pack(">I", len(body) + 8) + body


def main(argv: list[str]) -> int:
    """Write the three icon files into the folder named on the command line."""
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    svg = HERE.parent / "resources" / manifest.ICON_SOURCE
    if not svg.is_file():
        print(f"make_icons: the icon source {svg} is missing", file=sys.stderr)
        return 1
    # Rendering needs a QGuiApplication (fonts, image plugins) but no screen.
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication([sys.argv[0]])
    sizes = sorted(set(ICO_SIZES) | set(ICNS_TYPES))
    scratch = out / "sizes"
    scratch.mkdir(exist_ok=True)
    pngs = {size: render_png(svg, size, scratch) for size in sizes}
    base = out / manifest.ICON_BASENAME
    base.with_suffix(".png").write_bytes(pngs[256])
    base.with_suffix(".ico").write_bytes(ico_bytes({s: pngs[s] for s in ICO_SIZES}))
    base.with_suffix(".icns").write_bytes(icns_bytes({s: pngs[s] for s in ICNS_TYPES}))
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
