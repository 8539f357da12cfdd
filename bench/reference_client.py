"""The reference client: written the way Google's Python Live API starter is written.

The starter (``Get_started_LiveAPI.py`` in the Gemini cookbook) reads the microphone with
PyAudio in blocking reads of 1024 frames through ``asyncio.to_thread``, puts each block on a
queue for the sender, and plays the answer with one blocking ``stream.write`` per received
chunk, also through ``asyncio.to_thread``, with no jitter buffer. This client does exactly
that, with sounddevice's blocking stream API in place of PyAudio: PyAudio has no wheels for
Linux and needs a C build against portaudio19-dev, while sounddevice's ``RawInputStream.read``
and ``RawOutputStream.write`` are the same PortAudio blocking calls. PyAudio opens its
streams with the device's default *low* latency, so ``latency="low"`` is passed here too.

With ``--minimal`` it is instead the minimal low-latency client issue 9 compares against
("10 ms blocks and PortAudio's low-latency setting"): callback streams of 10 ms at both
ends, the microphone's blocks handed to the loop as they come, and the answer copied into
the speaker's callback as soon as it arrives, with no jitter buffer at all (a late chunk is
a gap). It shows what the audio path costs on this machine with nothing in the way.

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
import threading
from typing import Any

import sounddevice as sd
from google import genai
from google.genai import types

from sammy_desktop.wire_audio import INPUT_RATE

SEND_RATE = INPUT_RATE
RECEIVE_RATE = 24_000
CHUNK_SIZE = 1024  # frames per blocking read, as in the starter
TURN_ENDED = b""  # on the speaker's queue when a turn's receive() ends (not the starter's)
GAP_LINE = "gap in the answer"  # printed when a write in an answer finds the speaker dry
BLOCK_MS = 10  # the minimal client's callback period, both ways
# What the service serves (docs/live-service.md C1, C6): a starter's own defaults (API v1, a
# retired preview) are refused at setup, so the reference uses these to compare audio paths.
MODEL = "gemini-2.5-flash-native-audio-preview-12-2025"
API_VERSION = "v1beta"


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
            self.audio_in_queue.put_nowait(TURN_ENDED)

    async def play_audio(self) -> None:
        stream = sd.RawOutputStream(
            samplerate=RECEIVE_RATE, channels=1, dtype="int16", latency="low"
        )
        stream.start()
        answer_started = False
        try:
            while True:
                chunk = await self.audio_in_queue.get()
                if chunk == TURN_ENDED:
                    answer_started = False
                    continue
                underflowed = await asyncio.to_thread(stream.write, chunk)
                # The stream runs dry between answers, so an answer's first write always
                # finds it underflowed; a later one that does played a gap before it.
                if underflowed and answer_started:
                    print(GAP_LINE, flush=True)
                answer_started = True
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


class MinimalClient(StarterStyleClient):
    """The same session plumbing; 10 ms callback streams and no jitter buffer."""

    def __init__(self, session: Any, *, stream_always: bool) -> None:
        super().__init__(session, stream_always=stream_always)
        self.out_queue = asyncio.Queue()  # the callback must never wait for the sender
        self._speaker = bytearray()
        self._speaker_lock = threading.Lock()

    async def listen_audio(self) -> None:
        loop = asyncio.get_running_loop()

        def callback(indata: Any, frames: int, time_info: Any, status: Any) -> None:
            if self.talking:
                loop.call_soon_threadsafe(self.out_queue.put_nowait, bytes(indata))

        await _run_callback_stream(sd.RawInputStream, SEND_RATE, callback)

    async def receive_audio(self) -> None:
        while True:
            async for response in self.session.receive():
                if data := response.data:
                    with self._speaker_lock:
                        self._speaker += data

    async def play_audio(self) -> None:
        def callback(outdata: Any, frames: int, time_info: Any, status: Any) -> None:
            needed = frames * 2
            with self._speaker_lock:
                take = min(needed, len(self._speaker))
                outdata[:take] = self._speaker[:take]
                del self._speaker[:take]
            outdata[take:needed] = bytes(needed - take)

        await _run_callback_stream(sd.RawOutputStream, RECEIVE_RATE, callback)


async def _run_callback_stream(kind: Any, rate: int, callback: Any) -> None:
    """Run a mono PCM16 callback stream of BLOCK_MS blocks at low latency until cancelled."""
    with kind(
        samplerate=rate,
        channels=1,
        dtype="int16",
        blocksize=rate * BLOCK_MS // 1000,
        latency="low",
        callback=callback,
    ):
        await asyncio.Event().wait()


async def run(base_url: str, api_key: str, *, stream_always: bool, minimal: bool) -> None:
    client = genai.Client(
        api_key=api_key, http_options=types.HttpOptions(base_url=base_url, api_version=API_VERSION)
    )
    config = types.LiveConnectConfig(
        response_modalities=[types.Modality.AUDIO],
        realtime_input_config=types.RealtimeInputConfig(
            automatic_activity_detection=types.AutomaticActivityDetection(disabled=True)
        ),
    )
    async with client.aio.live.connect(model=MODEL, config=config) as session:
        kind = MinimalClient if minimal else StarterStyleClient
        app = kind(session, stream_always=stream_always)
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
    parser.add_argument(
        "--minimal", action="store_true", help="the minimal low-latency client instead"
    )
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(
            run(args.base_url, args.api_key, stream_always=args.stream, minimal=args.minimal)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
