"""The reference client: written the way Google's Python Live API starter is written.

The starter (``Get_started_LiveAPI.py`` in the Gemini cookbook) reads the microphone with
PyAudio in blocking reads of 1024 frames through ``asyncio.to_thread``, puts each block on a
queue for the sender, and plays the answer with one blocking ``stream.write`` per received
chunk, also through ``asyncio.to_thread``, with no jitter buffer. This client does exactly
that, with sounddevice's blocking stream API in place of PyAudio: PyAudio has no wheels for
Linux and needs a C build against portaudio19-dev, while sounddevice's ``RawInputStream.read``
and ``RawOutputStream.write`` are the same PortAudio blocking calls. PyAudio opens its
streams with the device's default *low* latency, so ``latency="low"`` is passed here too.

Push-to-talk comes from standard input, one command a line: ``down`` (activityStart),
``up`` (activityEnd), ``quit``. Automatic activity detection is off, as in the app's
push-to-talk mode; with ``--stream`` the microphone is sent all the time (the click test).

    SSL_CERT_FILE=ca.pem python bench/reference_client.py --base-url https://127.0.0.1:PORT
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from typing import Any

import sounddevice as sd
from google import genai
from google.genai import types

SEND_RATE = 16_000
RECEIVE_RATE = 24_000
CHUNK_SIZE = 1024  # frames per blocking read, as in the starter
MODEL = "gemini-2.5-flash-native-audio-preview-09-2025"


class StarterStyleClient:
    """Microphone -> Live session -> speaker, as the cookbook's starter does it."""

    def __init__(self, session: Any, *, stream_always: bool) -> None:
        self.session = session
        self.talking = stream_always
        self.out_queue: asyncio.Queue[bytes] = asyncio.Queue(maxsize=5)
        self.audio_in_queue: asyncio.Queue[bytes] = asyncio.Queue()

    async def listen_audio(self) -> None:
        stream = sd.RawInputStream(
            samplerate=SEND_RATE, channels=1, dtype="int16", blocksize=CHUNK_SIZE, latency="low"
        )
        stream.start()
        try:
            while True:
                data, _overflowed = await asyncio.to_thread(stream.read, CHUNK_SIZE)
                if self.talking:
                    await self.out_queue.put(bytes(data))
        finally:
            stream.close()

    async def send_realtime(self) -> None:
        while True:
            data = await self.out_queue.get()
            await self.session.send_realtime_input(
                audio=types.Blob(data=data, mime_type=f"audio/pcm;rate={SEND_RATE}")
            )

    async def receive_audio(self) -> None:
        while True:
            turn = self.session.receive()
            async for response in turn:
                if data := response.data:
                    self.audio_in_queue.put_nowait(data)

    async def play_audio(self) -> None:
        stream = sd.RawOutputStream(
            samplerate=RECEIVE_RATE, channels=1, dtype="int16", latency="low"
        )
        stream.start()
        try:
            while True:
                chunk = await self.audio_in_queue.get()
                await asyncio.to_thread(stream.write, chunk)
        finally:
            stream.close()

    async def commands(self) -> None:
        """Push-to-talk from stdin: down / up / quit."""
        while True:
            line = await asyncio.to_thread(sys.stdin.readline)
            command = line.strip()
            if command == "down":
                self.talking = True
                await self.session.send_realtime_input(activity_start=types.ActivityStart())
            elif command == "up":
                self.talking = False
                await self.session.send_realtime_input(activity_end=types.ActivityEnd())
            elif command in ("quit", ""):
                return


async def run(base_url: str, api_key: str, *, stream_always: bool) -> None:
    client = genai.Client(api_key=api_key, http_options=types.HttpOptions(base_url=base_url))
    config = types.LiveConnectConfig(
        response_modalities=[types.Modality.AUDIO],
        realtime_input_config=types.RealtimeInputConfig(
            automatic_activity_detection=types.AutomaticActivityDetection(disabled=True)
        ),
    )
    async with client.aio.live.connect(model=MODEL, config=config) as session:
        app = StarterStyleClient(session, stream_always=stream_always)
        print("connected", flush=True)
        async with asyncio.TaskGroup() as group:
            tasks = [
                group.create_task(app.listen_audio(), name="listen"),
                group.create_task(app.send_realtime(), name="send"),
                group.create_task(app.receive_audio(), name="receive"),
                group.create_task(app.play_audio(), name="play"),
            ]
            await app.commands()
            for task in tasks:
                task.cancel()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--api-key", default="bench-key")
    parser.add_argument("--stream", action="store_true", help="send the microphone all the time")
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run(args.base_url, args.api_key, stream_always=args.stream))
    return 0


if __name__ == "__main__":
    sys.exit(main())
