"""The level meter and the talk button's ring repaint only when what they show changes,
and a meter nothing feeds any more falls to the floor instead of freezing."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from pytestqt.qtbot import QtBot

from sammy_desktop.audio.events import AudioLevel, MicrophoneInUse, PlaybackDrained
from sammy_desktop.eventbus import EventBus
from sammy_desktop.ui.assets import Assets
from sammy_desktop.ui.painted import METER_QUIET_MS, LevelMeter, level_from_dbfs
from sammy_desktop.ui.talk_button import FACE_DIAMETER, RING_ROOM, TalkButton, TalkLook

from .conftest import EventCounter, MakeWindow


def test_the_meter_repaints_on_a_change_and_not_for_the_same_level(qtbot: QtBot) -> None:
    meter = LevelMeter()
    qtbot.addWidget(meter)
    meter.resize(200, 6)
    meter.show()
    qtbot.waitExposed(meter)
    counter = EventCounter(meter)
    start = counter.settle()
    for _ in range(10):
        meter.set_dbfs(-100.0)  # silence on an empty meter: nothing to draw
    assert counter.settle() == start
    meter.set_dbfs(-20.0)
    after_rise = counter.settle()
    assert after_rise > start
    assert meter.accessibleDescription() == "67 percent"
    for _ in range(10):
        meter.set_dbfs(-20.0)
    assert counter.settle() == after_rise
    # A drop still eases down over several readings, repainting as it goes, then rests.
    for _ in range(40):
        meter.set_dbfs(-100.0)
    assert counter.settle() > after_rise
    assert meter.level < 0.005
    assert meter.accessibleDescription() == "0 percent"


def test_the_ring_repaints_only_while_it_moves(qtbot: QtBot) -> None:
    button = TalkButton(Assets())
    qtbot.addWidget(button)
    button.show()
    qtbot.waitExposed(button)
    button.set_look(TalkLook.LISTENING)
    counter = EventCounter(button)
    start = counter.settle()
    for _ in range(10):
        button.set_level_dbfs(-100.0)
    assert counter.settle() == start
    button.set_level_dbfs(-10.0)
    moved = counter.settle()
    assert moved > start
    assert button.level > 0.8
    for _ in range(10):
        button.set_level_dbfs(-10.0)
    assert counter.settle() == moved


def test_the_ring_s_face_is_drawn_once_per_look_and_follows_the_look_and_colours(
    qtbot: QtBot,
) -> None:
    # The face is cached (the ring repaints 20-30 times a second while anyone speaks): a
    # stale face would show the wrong state, so each look and colour must still show.
    button = TalkButton(Assets())
    qtbot.addWidget(button)
    button.show()
    qtbot.waitExposed(button)

    def face_colour() -> str:
        # Beside the icon, inside the face: the face's own fill.
        image = button.grab().toImage()
        return str(image.pixelColor(button.width() // 2 - 30, button.height() // 2).name())

    idle = face_colour()
    button.set_look(TalkLook.LISTENING)
    assert face_colour() == button.property("activeColor").name()
    cached = button._face_pixmap(active=True)
    button.set_level_dbfs(-10.0)
    button.grab()
    assert button._face_pixmap(active=True) is cached, "a level drew the face again"
    button.set_look(TalkLook.SPEAKING)
    assert face_colour() == button.property("speakingColor").name()
    button.setProperty("speakingColor", QColor("#aa3300"))
    assert face_colour() == "#aa3300"
    button.set_look(TalkLook.IDLE)
    assert face_colour() == idle != "#aa3300"


def test_the_ring_drawn_from_its_cached_halos_is_the_disc_drawn_afresh(qtbot: QtBot) -> None:
    # Each size of the halo is drawn once and copied after (antialiasing the disc was most
    # of every repaint): what shows must be exactly the disc drawn in place, at every size,
    # in each colour.
    button = TalkButton(Assets())
    qtbot.addWidget(button)
    button.resize(button.sizeHint())
    steps = (RING_ROOM - 6) * 2
    for look, colour in ((TalkLook.LISTENING, "activeColor"), (TalkLook.SPEAKING, "speakingColor")):
        button.set_look(look)
        for step in range(steps + 1):
            button.set_level_dbfs(-100.0)  # the ring falls back to rest...
            button._level = step / steps  # ...and stands at this size
            shown = button.grab().toImage()
            expected = QImage(shown.size(), shown.format())
            expected.setDevicePixelRatio(shown.devicePixelRatio())
            expected.fill(shown.pixelColor(0, 0))  # the grab's background: outside any ring
            painter = QPainter(expected)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(Qt.PenStyle.NoPen)
            halo = QColor(button.property(colour))
            halo.setAlpha(60)
            painter.setBrush(halo)
            center = QPointF(button.width() / 2, button.height() / 2)
            radius = FACE_DIAMETER / 2 + 4 + step / 2
            painter.drawEllipse(center, radius, radius)
            face = button._face_pixmap(active=True)
            side = face.width() / face.devicePixelRatio()
            painter.drawPixmap(QPointF(center.x() - side / 2, center.y() - side / 2), face)
            painter.end()
            assert shown == expected, f"{look.name} ring at {step} half pixels differs"
        key = (QColor(button.property(colour)).rgba(), button.devicePixelRatioF())
        assert len(button._halo_sets[key]) == steps + 1  # one per size of this colour


def test_a_turn_after_the_first_draws_no_halo_afresh(qtbot: QtBot) -> None:
    # A turn shows the ring in two colours, listening then speaking: the halos of both are
    # kept, so the next turn copies every size it shows (each drawn once in the session).
    button = TalkButton(Assets())
    qtbot.addWidget(button)
    button.resize(button.sizeHint())
    steps = (RING_ROOM - 6) * 2

    def one_turn() -> list[int]:
        drawn = []
        for look in (TalkLook.LISTENING, TalkLook.SPEAKING):
            button.set_look(look)
            for step in range(0, steps + 1, 6):
                drawn.append(button._halo_pixmap(step).cacheKey())
        return drawn

    first = one_turn()
    assert len(set(first)) == len(first)  # every size of each colour is its own pixmap
    assert one_turn() == first  # the second turn draws none of them again
    # A third colour (the theme changed) takes the place of the one kept longest.
    button.setProperty("activeColor", QColor("#123456"))
    button.set_look(TalkLook.LISTENING)
    button._halo_pixmap(0)
    button.set_look(TalkLook.SPEAKING)
    assert button._halo_pixmap(0).cacheKey() == first[len(first) // 2]  # speaking's kept
    assert len(button._halo_sets) == 2


def _falling(meter: LevelMeter) -> bool:
    return meter.falling  # read through a call, so mypy does not narrow it between steps


def test_a_meter_no_level_reaches_falls_to_the_floor(qtbot: QtBot) -> None:
    """The tour saw the speaker's meter lit beside an error: its last level, frozen."""
    meter = LevelMeter()
    qtbot.addWidget(meter)
    meter.resize(200, 6)
    meter.show()
    qtbot.waitExposed(meter)
    meter.set_dbfs(-6.0)
    assert meter.level > 0.85
    assert not _falling(meter), "a level just came: nothing to fall from yet"
    # No further level: after METER_QUIET_MS it eases down on its own, to empty.
    qtbot.waitUntil(lambda: meter.falling, timeout=METER_QUIET_MS * 4)
    qtbot.waitUntil(lambda: meter.level == 0.0, timeout=3000)
    assert not _falling(meter)
    assert meter.accessibleDescription() == "0 percent"
    # A level arriving while it falls takes over at once.
    meter.set_dbfs(-30.0)
    meter.fall_to_floor()
    assert _falling(meter)
    meter.set_dbfs(-20.0)
    assert not _falling(meter)
    assert meter.level == level_from_dbfs(-20.0)


def test_the_window_meters_fall_when_the_streams_stop(
    qtbot: QtBot, make_window: MakeWindow, bus: EventBus, test_output_dir: Path
) -> None:
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    bus.emit(AudioLevel("input", -10.0))
    bus.emit(AudioLevel("output", -10.0))
    assert window.input_meter.level > 0.8
    assert window.output_meter.level > 0.8
    window.grab().save(str(test_output_dir / "meters-lit-while-the-streams-run.png"))
    # The microphone closed after the turn: no waiting for the quiet time.
    bus.emit(MicrophoneInUse(in_use=False))
    assert _falling(window.input_meter)
    assert not _falling(window.output_meter)
    # The answer finished playing.
    bus.emit(PlaybackDrained())
    assert _falling(window.output_meter)
    qtbot.waitUntil(
        lambda: window.input_meter.level == 0.0 and window.output_meter.level == 0.0,
        timeout=3000,
    )
    assert window.input_meter.accessibleDescription() == "0 percent"
    window.grab().save(str(test_output_dir / "meters-fallen-after-the-streams-stopped.png"))
