"""Results of a benchmark run: rows with statistics and targets, the machine, the outputs.

A :class:`Row` keeps every sample it measured; the table shows median, p95 and max, and a
row with a target says pass or MISS on the statistic the target is about. The JSON keeps
the samples too, so a plot or a later comparison needs no re-run.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import math
import os
import platform
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

Stat = Literal["median", "p95", "p99", "max", "value"]


@dataclass
class Target:
    """``stat`` of the samples must be ``op`` ``limit`` (e.g. median <= 40)."""

    stat: Stat
    op: Literal["<=", "<", ">="]
    limit: float
    text: str

    def met(self, value: float) -> bool:
        if math.isnan(value):
            return False
        if self.op == "<=":
            return value <= self.limit
        if self.op == "<":
            return value < self.limit
        return value >= self.limit


@dataclass
class Row:
    """One measurement: its samples, unit, target and a note."""

    group: str
    name: str
    unit: str
    values: list[float]
    target: Target | None = None
    note: str = ""
    error: str = ""
    left_out: str = ""
    """Why samples were left out (the machine made them unmeasurable), when any were."""

    def stat(self, which: Stat) -> float:
        if not self.values:
            return float("nan")
        data = np.asarray(self.values, dtype=float)
        if which in ("median", "value"):
            return float(np.median(data))
        if which == "p95":
            return float(np.percentile(data, 95))
        if which == "p99":
            return float(np.percentile(data, 99))
        return float(np.max(data))

    @property
    def status(self) -> str:
        if self.error:
            return "ERROR"
        if not self.values:
            return "LEFT OUT" if self.left_out else "NO DATA"
        if self.target is None:
            return "-"
        return "pass" if self.target.met(self.stat(self.target.stat)) else "MISS"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(
            n=len(self.values),
            median=self.stat("median"),
            p95=self.stat("p95"),
            p99=self.stat("p99"),
            max=self.stat("max"),
            status=self.status,
        )
        return data


def _fmt(value: float, unit: str = "") -> str:
    if math.isnan(value):
        return "-"
    if unit == "x" and abs(value) < 10:
        # A ratio's target is usually 1: 0.997 must not read as a "1.00" that missed it,
        # nor 0.9995 as a "1.000": as many decimals as it takes not to read as 1 (up to 6).
        decimals = 3
        while decimals < 6 and value != 1 and f"{value:.{decimals}f}" == f"{1:.{decimals}f}":
            decimals += 1
        return f"{value:.{decimals}f}"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def table(rows: list[Row]) -> str:
    """A Markdown table: measurement, n, median, p95, max, unit, target, status, note."""
    header = ("measurement", "n", "median", "p95", "max", "unit", "target", "status", "note")
    lines = [
        (
            f"{row.group}: {row.name}",
            str(len(row.values)),
            _fmt(row.stat("median"), row.unit),
            _fmt(row.stat("p95"), row.unit) if len(row.values) > 1 else "",
            _fmt(row.stat("max"), row.unit) if len(row.values) > 1 else "",
            row.unit,
            row.target.text if row.target else "",
            row.status,
            row.error or "; ".join(part for part in (row.note, row.left_out) if part),
        )
        for row in rows
    ]
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    widths[-1] = len(header[-1])  # notes run long; don't pad every line to the longest

    def render(cells: tuple[str, ...]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    out = [render(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [render(line) for line in lines]
    return "\n".join(out)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _pulseaudio_version() -> str:
    try:
        out = subprocess.run(
            ["pactl", "info"], check=True, capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return "unavailable"
    for line in out.splitlines():
        if line.startswith("Server Version:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    return {
        "cpu_model": _cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)),
        "load_average": os.getloadavg(),
        "memory_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9, 1),
        "os": platform.platform(),
        "python": platform.python_version(),
        "versions": {
            name: _version(name)
            for name in (
                "sammy-desktop",
                "google-genai",
                "websockets",
                "PySide6-Essentials",
                "qasync",
                "sounddevice",
                "numpy",
                "livekit",
            )
        },
        "pulseaudio": _pulseaudio_version(),
    }


@dataclass
class Report:
    """Everything a run produced."""

    mode: str
    started: str = field(
        default_factory=lambda: datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    )
    machine: dict[str, Any] = field(default_factory=machine)
    rows: list[Row] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)
    samples: dict[str, list[float]] = field(default_factory=dict)
    seconds: float = 0.0

    def write_json(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "mode": self.mode,
            "date": self.started,
            "seconds": round(self.seconds, 1),
            "machine": self.machine,
            "rows": [row.to_json() for row in self.rows],
            "samples": self.samples,
            "outputs": self.outputs,
        }
        path.write_text(json.dumps(data, indent=2, default=float))

    @classmethod
    def read_json(cls, path: Path) -> Report:
        """A report written by :meth:`write_json` (to render its table and plot again)."""
        data = json.loads(path.read_text())
        rows = []
        for row in data["rows"]:
            target = Target(**row["target"]) if row.get("target") else None
            rows.append(
                Row(
                    group=row["group"],
                    name=row["name"],
                    unit=row["unit"],
                    values=list(row["values"]),
                    target=target,
                    note=row["note"],
                    error=row["error"],
                )
            )
        return cls(
            mode=data["mode"],
            started=data["date"],
            machine=data["machine"],
            rows=rows,
            outputs=data.get("outputs", {}),
            samples=data.get("samples", {}),
            seconds=data.get("seconds", 0.0),
        )

    def machine_line(self) -> str:
        m = self.machine
        return (
            f"{self.started} on {m['cpu_model']}, {m['cores_usable']} usable cores "
            f"(load {m['load_average'][0]:.1f}), {m['memory_gb']} GB, {m['os']}, "
            f"Python {m['python']}, PulseAudio {m['pulseaudio']}"
        )
