#!/usr/bin/env bash
# Builds the PyInstaller one-folder app (`make package` runs this).
#
#   packaging/build.sh [--dist DIR] [--work DIR] [--tarball]
#
#   --dist DIR   where the app goes (default: dist/); the app is DIR/sammy-desktop/
#                (and DIR/Sammy Desktop.app on macOS)
#   --work DIR   PyInstaller's scratch folder (default: build/pyinstaller/)
#   --tarball    Linux: also pack DIR/sammy-desktop-VERSION-linux-ARCH.tar.gz
#
# The Python that builds is $PYTHON, or .venv's. It needs the app and pyinstaller installed
# (pip install -e '.[dev]' pyinstaller). On Linux the system's PortAudio is copied in, so
# libportaudio2 must be installed (scripts/system-deps.sh run). Prove the result with
#   DIR/sammy-desktop/sammy-desktop --self-test
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
dist="$repo/dist"
work="$repo/build/pyinstaller"
tarball=no
while [ $# -gt 0 ]; do
    case "$1" in
        --dist) dist=$2; shift 2 ;;
        --work) work=$2; shift 2 ;;
        --tarball) tarball=yes; shift ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "build.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

if [ -z "${PYTHON:-}" ]; then
    if [ -x "$repo/.venv/bin/python" ]; then PYTHON="$repo/.venv/bin/python"
    elif [ -x "$repo/.venv/Scripts/python.exe" ]; then PYTHON="$repo/.venv/Scripts/python.exe"
    else PYTHON=python3
    fi
fi
"$PYTHON" -c "import PyInstaller" 2>/dev/null || {
    echo "build.sh: PyInstaller is not installed in $PYTHON; run: $PYTHON -m pip install pyinstaller" >&2
    exit 1
}

started=$SECONDS
"$PYTHON" -m PyInstaller --noconfirm --log-level WARN \
    --distpath "$dist" --workpath "$work" "$repo/packaging/sammy-desktop.spec"
app="$dist/sammy-desktop"

case "$(uname -s)" in
    Linux)
        # The desktop entry, its icon and a per-user installer ride along in the folder.
        cp "$repo/packaging/linux/sammy-desktop.desktop" "$app/"
        cp "$work/sammy-desktop/icons/sammy-desktop.png" "$app/"
        install -m 755 "$repo/packaging/linux/install.sh" "$app/install.sh"
        if [ "$tarball" = yes ]; then
            version=$("$PYTHON" -c "import sammy_desktop; print(sammy_desktop.__version__)")
            archive="$dist/sammy-desktop-$version-linux-$(uname -m).tar.gz"
            tar -C "$dist" -czf "$archive" sammy-desktop
            echo "build.sh: archive $archive ($(du -h "$archive" | cut -f1))"
        fi
        ;;
esac

size=$(du -sh "$app" | cut -f1)
echo "build.sh: built $app ($size) in $((SECONDS - started)) s"
echo "build.sh: check it with: \"$app/sammy-desktop\" --self-test"
