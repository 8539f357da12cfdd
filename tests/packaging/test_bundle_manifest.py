"""The bundle manifest: every resource ships, and only the Qt parts the app uses."""

from __future__ import annotations

import ast
from pathlib import Path
from types import ModuleType

import pytest

from tests.packaging.conftest import REPO

RESOURCES = REPO / "resources"


def test_every_resource_file_is_listed_and_exists(manifest: ModuleType) -> None:
    on_disk = {
        path.relative_to(RESOURCES).as_posix()
        for path in RESOURCES.rglob("*")
        if path.is_file() and path.suffix != ".py" and "__pycache__" not in path.parts
    }
    listed = set(manifest.RESOURCE_FILES)
    assert not on_disk - listed, (
        f"add these to RESOURCE_FILES in packaging/bundle_manifest.py: {sorted(on_disk - listed)}"
    )
    assert not listed - on_disk, (
        "RESOURCE_FILES names files that are gone; remove them from "
        f"packaging/bundle_manifest.py: {sorted(listed - on_disk)}"
    )


def test_the_icon_source_ships(manifest: ModuleType) -> None:
    assert manifest.ICON_SOURCE in manifest.RESOURCE_FILES


@pytest.mark.parametrize(
    ("file_name", "stem"),
    [
        ("libqxcb.so", "qxcb"),
        ("qwindows.dll", "qwindows"),
        ("libqcocoa.dylib", "qcocoa"),
        ("libqt-plugin-wayland-egl.so", "qt-plugin-wayland-egl"),
    ],
)
def test_plugin_stem_is_the_same_on_every_platform(
    manifest: ModuleType, file_name: str, stem: str
) -> None:
    assert manifest.plugin_stem(file_name) == stem


@pytest.mark.parametrize(
    ("plugin_type", "file_name", "kept"),
    [
        ("platforms", "libqxcb.so", True),
        ("platforms", "libqwayland.so", True),
        ("platforms", "libqoffscreen.so", True),
        ("platforms", "qwindows.dll", True),
        ("platforms", "libqeglfs.so", False),
        ("platforms", "libqvnc.so", False),
        ("platformthemes", "libqgtk3.so", False),
        ("platformthemes", "libqxdgdesktopportal.so", True),
        ("imageformats", "libqsvg.so", True),
        ("imageformats", "libqjpeg.so", False),
        ("egldeviceintegrations", "libqeglfs-kms-integration.so", False),
        ("generic", "libqevdevmouseplugin.so", False),
        ("wayland-shell-integration", "libxdg-shell.so", True),
        ("sqldrivers", "libqsqlite.so", False),
    ],
)
def test_keep_qt_plugin(manifest: ModuleType, plugin_type: str, file_name: str, kept: bool) -> None:
    assert manifest.keep_qt_plugin(plugin_type, file_name) is kept


def test_filter_qt_collection_drops_unused_plugins_modules_and_translations(
    manifest: ModuleType,
) -> None:
    plugins = "PySide6/Qt/plugins"
    imports, binaries, datas = manifest.filter_qt_collection(
        ["PySide6.QtCore", "PySide6.QtMultimedia", "PySide6.QtWidgets", "shiboken6"],
        [
            ("/qt/plugins/platforms/libqxcb.so", f"{plugins}/platforms"),
            ("/qt/plugins/platforms/libqeglfs.so", f"{plugins}/platforms"),
            ("/qt/plugins/platformthemes/libqgtk3.so", f"{plugins}/platformthemes"),
            ("/qt/lib/libQt6Core.so.6", "PySide6/Qt/lib"),
            # Windows keeps its plugins one level up, with backslashes in the destination.
            ("C:/qt/plugins/platforms/qwindows.dll", "PySide6\\plugins\\platforms"),
            ("C:/qt/plugins/generic/qtuiotouchplugin.dll", "PySide6\\plugins\\generic"),
        ],
        [
            ("/qt/translations/qtbase_de.qm", "PySide6/Qt/translations"),
            ("/qt/resources/icudtl.dat", "PySide6/Qt/resources"),
        ],
    )
    assert imports == ["PySide6.QtCore", "PySide6.QtWidgets", "shiboken6"]
    assert [Path(source).name for source, _ in binaries] == [
        "libqxcb.so",
        "libQt6Core.so.6",
        "qwindows.dll",
    ]
    assert datas == [("/qt/resources/icudtl.dat", "PySide6/Qt/resources")]


def test_only_the_qt_modules_the_app_imports_are_kept(manifest: ModuleType) -> None:
    used = set()
    for path in (REPO / "sammy_desktop").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for module in (
            "QtCore",
            "QtGui",
            "QtWidgets",
            "QtSvg",
            "QtNetwork",
            "QtDBus",
            "QtMultimedia",
            "QtQml",
            "QtQuick",
            "QtOpenGL",
            "QtSvgWidgets",
            "QtPrintSupport",
            "QtConcurrent",
            "QtXml",
            "QtTest",
            "QtUiTools",
        ):
            if f"PySide6.{module}" in text or f"PySide6 import {module}" in text:
                used.add(module)
    assert used <= manifest.QT_MODULES_USED, (
        f"the app imports {sorted(used - manifest.QT_MODULES_USED)}: add them to "
        "QT_MODULES_USED in packaging/bundle_manifest.py (and their plugins)"
    )


@pytest.mark.parametrize(
    ("name", "excluded"),
    [
        ("requests", True),
        ("requests.adapters", True),
        ("pydantic.v1.fields", True),
        ("pydantic", False),
        ("pydantic.v1x", False),
        ("websockets.asyncio.client", False),
        ("websockets.trio", True),
    ],
)
def test_is_excluded_module(manifest: ModuleType, name: str, excluded: bool) -> None:
    assert manifest.is_excluded_module(name) is excluded


def test_the_app_imports_no_excluded_module(manifest: ModuleType) -> None:
    imported: dict[str, set[str]] = {}
    for path in (REPO / "sammy_desktop").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            else:
                continue
            for name in names:
                imported.setdefault(name, set()).add(path.relative_to(REPO).as_posix())
    excluded = {
        name: sorted(paths) for name, paths in imported.items() if manifest.is_excluded_module(name)
    }
    assert not excluded, (
        "the app imports modules that bundle_manifest.EXCLUDED_MODULES leaves out of the "
        f"bundle: {excluded}"
    )
