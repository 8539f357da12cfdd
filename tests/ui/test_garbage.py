"""Garbage collection runs on the Qt thread, driven by a timer, following the thresholds."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from sammy_desktop.ui.garbage import QtThreadGarbageCollector


@pytest.fixture
def collector(qapp: QApplication) -> Iterator[QtThreadGarbageCollector]:
    collector = QtThreadGarbageCollector(interval_ms=10)
    collector.start()
    yield collector
    collector.stop()


class Node:
    def __init__(self) -> None:
        self.me = self


def test_automatic_collection_is_off_while_running(collector: QtThreadGarbageCollector) -> None:
    assert not gc.isenabled()


def test_stop_gives_collection_back(qapp: QApplication) -> None:
    was = gc.isenabled()
    collector = QtThreadGarbageCollector()
    collector.start()
    collector.stop()
    assert gc.isenabled() == was


def test_cycles_are_collected_when_the_threshold_is_passed(
    collector: QtThreadGarbageCollector,
) -> None:
    gc.collect()
    assert collector.check() == -1
    threshold = gc.get_threshold()[0]
    garbage = [Node() for _ in range(threshold + 10)]
    del garbage
    assert gc.get_count()[0] > threshold
    assert collector.check() >= 0
    assert gc.get_count()[0] < threshold


def test_the_timer_collects_on_its_own(collector: QtThreadGarbageCollector, qtbot: QtBot) -> None:
    threshold = gc.get_threshold()[0]
    garbage = [Node() for _ in range(threshold + 10)]
    del garbage
    qtbot.waitUntil(lambda: gc.get_count()[0] < threshold, timeout=5000)


def test_frozen_objects_are_left_out_of_collections_until_stop(qapp: QApplication) -> None:
    collector = QtThreadGarbageCollector()
    collector.start()
    try:
        node = Node()
        alive = weakref.ref(node)
        del node  # a cycle: only a collection frees it
        collector.freeze()
        assert gc.get_freeze_count() > 0
        gc.collect()
        assert alive() is not None  # frozen: no collection scans it
    finally:
        collector.stop()
    assert gc.get_freeze_count() == 0
    assert alive() is None  # given back, and collected
