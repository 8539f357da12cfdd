"""Packaging benchmarks: the Linux bundle's size and the frozen app's start to a shown window.

    scripts/with-test-services.sh .venv/bin/python bench/packaging/bench_bundle.py
    .venv/bin/python bench/packaging/bench_bundle.py --app dist/sammy-desktop   # reuse a build
    .venv/bin/python bench/packaging/bench_bundle.py --compare-qt   # also measure stock Qt hooks

Without --app it builds the bundle with packaging/build.sh into build/bench-package/.
Start-up is measured from spawning the frozen executable to its "window shown" log line,
with a fresh HOME (no settings, no caches) for every run, on the X display in DISPLAY
(Xvfb under the test services) or Qt's offscreen platform without one. The page cache is
not dropped (that needs root and slows everyone else on the machine): the first run after
the build is the coldest we measure.

Targets (issue 8): the one-folder bundle at most 200 MB (read strictly: 200 * 10^6 bytes;
the size in MiB, as ``du -h`` shows it, is printed too); start to a shown window at most
2 s. The script exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SIZE_TARGET_MB = 200.0
START_TARGET_S = 2.0
WINDOW_SHOWN = "sammy_desktop.desktop_app: window shown"


def folder_size(root: Path) -> int:
    """Bytes in the files under ``root`` (symlinks count as links, not as their targets)."""
    total = 0
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = Path(folder, name)
            total += path.lstat().st_size
    return total


def build(dist: Path, *, all_qt: bool = False) -> Path:
    env = {**os.environ, "PYTHON": sys.executable}
    if all_qt:
        env["SAMMY_BUNDLE_ALL_QT"] = "1"
    work = dist.parent / (dist.name + "-work")
    started = time.monotonic()
    result = subprocess.run(
        [str(REPO / "packaging/build.sh"), "--dist", str(dist), "--work", str(work)],
        env=env,
        check=False,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        sys.exit(f"build failed:\n{result.stdout}\n{result.stderr}")
    print(f"built {dist / 'sammy-desktop'} in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return dist / "sammy-desktop"


def start_to_window(app: Path) -> float:
    """Seconds from spawning the app to its window being shown (fresh HOME)."""
    with tempfile.TemporaryDirectory(prefix="sammy-bench-home-") as home:
        env = {"HOME": home, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        for name in ("DISPLAY", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS"):
            if name in os.environ:
                env[name] = os.environ[name]
        if "DISPLAY" not in env:
            env["QT_QPA_PLATFORM"] = "offscreen"
        started = time.perf_counter()
        process = subprocess.Popen(
            [str(app / "sammy-desktop"), "--log-level", "INFO"],
            env=env,
            cwd=home,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stderr is not None
        try:
            for line in process.stderr:
                if WINDOW_SHOWN in line:
                    return time.perf_counter() - started
            raise RuntimeError("the app ended without showing its window")
        finally:
            process.send_signal(signal.SIGTERM)
            process.communicate(timeout=30)


def biggest_parts(app: Path, count: int = 8) -> list[tuple[str, int]]:
    internal = app / "_internal"
    sizes = {}
    for child in internal.iterdir():
        sizes[child.name] = folder_size(child) if child.is_dir() else child.lstat().st_size
    sizes["sammy-desktop (executable + Python code)"] = (app / "sammy-desktop").stat().st_size
    return sorted(sizes.items(), key=lambda item: -item[1])[:count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--app", type=Path, help="an existing build (dist/sammy-desktop)")
    parser.add_argument("--runs", type=int, default=5, help="start-up runs (default 5)")
    parser.add_argument(
        "--compare-qt", action="store_true", help="also build with stock Qt hooks and compare"
    )
    args = parser.parse_args()

    bench_dir = REPO / "build" / "bench-package"
    app = args.app.resolve() if args.app else build(bench_dir / "dist")
    size_mb = folder_size(app) / 1e6
    starts = [start_to_window(app) for _ in range(args.runs)]

    def verdict(ok: bool) -> str:
        return "ok" if ok else "MISSED"

    first, median = starts[0], statistics.median(starts)
    print("| measure | result | target | note |")
    print("|---|---|---|---|")
    print(
        f"| Linux one-folder bundle | {size_mb:.1f} MB ({size_mb * 1e6 / 2**20:.1f} MiB) "
        f"| <= {SIZE_TARGET_MB:.0f} MB | {verdict(size_mb <= SIZE_TARGET_MB)} |"
    )
    print(
        f"| start to shown window, first run | {first:.2f} s | <= {START_TARGET_S:.0f} s "
        f"| {verdict(first <= START_TARGET_S)} |"
    )
    print(
        f"| start to shown window, median of {len(starts)} | {median:.2f} s "
        f"| <= {START_TARGET_S:.0f} s | {verdict(median <= START_TARGET_S)} |"
    )
    if args.compare_qt:
        stock = build(bench_dir / "dist-all-qt", all_qt=True)
        stock_mb = folder_size(stock) / 1e6
        print(
            f"| bundle with PyInstaller's stock Qt hooks | {stock_mb:.1f} MB "
            f"(narrowing saves {stock_mb - size_mb:.1f} MB) | | |"
        )
    print()
    print("Biggest parts:")
    for name, size in biggest_parts(app):
        print(f"  {size / 1e6:6.1f} MB  {name}")

    missed = size_mb > SIZE_TARGET_MB or statistics.median(starts) > START_TARGET_S
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
