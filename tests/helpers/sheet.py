"""Waiting for the confirmation sheet to take a yes (it refuses one for a moment after a
question appears), on the sheet's own signal."""

from __future__ import annotations

import asyncio

from sammy_desktop.ui.confirmation import ConfirmationSheet


async def until_armed(sheet: ConfirmationSheet, within_s: float = 5.0) -> None:
    """Return once the question shown can be approved; TimeoutError after ``within_s``."""
    if sheet.armed:
        return
    armed = asyncio.get_running_loop().create_future()

    def on_armed(_token: str) -> None:
        if not armed.done():
            armed.set_result(None)

    sheet.armed_request.connect(on_armed)
    try:
        if not sheet.armed:
            await asyncio.wait_for(armed, within_s)
    finally:
        sheet.armed_request.disconnect(on_armed)
