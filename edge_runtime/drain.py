"""Graceful shutdown: on SIGTERM stop taking requests, let running answers finish within a bound.

uvicorn closes the listening socket and waits for open connections; `Drain`
gives every chat stream the same deadline (`ASKDOCS_SHUTDOWN_GRACE`). A stream
still running then ends with an `error` event (`code: "shutting_down"`) that
the widget offers to retry, instead of being cut mid-answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

from askdocs.edge_runtime import events, sse

FINAL = (b"event: done", b"event: error")


class Drain:
    def __init__(self) -> None:
        self.deadline: float | None = None
        self.loop: asyncio.AbstractEventLoop | None = None  # bound by the app's lifespan
        self._started = asyncio.Event()

    @property
    def draining(self) -> bool:
        return self.deadline is not None

    def begin(self, grace: float) -> None:
        """Called from the signal handler: streams must end within `grace` seconds."""
        if self.deadline is None:
            self.deadline = time.monotonic() + grace
            if self.loop is not None:
                self.loop.call_soon_threadsafe(self._started.set)

    async def expired(self) -> None:
        await self._started.wait()
        assert self.deadline is not None
        await asyncio.sleep(max(0.0, self.deadline - time.monotonic()))


async def bounded(body: AsyncIterator[bytes], drain: Drain) -> AsyncIterator[bytes]:
    """Pass an SSE body through; at the drain deadline, stop it and close with an `error` event."""
    iterator = body.__aiter__()
    stopper = asyncio.ensure_future(drain.expired())
    step: asyncio.Future | None = None
    final = False
    try:
        while True:
            step = asyncio.ensure_future(iterator.__anext__())
            await asyncio.wait({step, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if step.done():
                try:
                    chunk = step.result()
                except StopAsyncIteration:
                    return
                final = final or chunk.startswith(FINAL)
                yield chunk
                continue
            step.cancel()
            with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                await step
            if not final:
                yield sse.frame(events.error("shutting_down", "this server is restarting; please ask again"))
            return
    finally:
        stopper.cancel()
        if step is not None and not step.done():
            # Cancelled mid-wait (the reader hung up): the pending read holds the body's
            # generator, and with it the work behind the answer. Cancel it now; left alone it
            # would run on (reading the LLM) until the next event, or until garbage collection.
            step.cancel()
            with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                await step
        aclose = getattr(iterator, "aclose", None)
        if aclose is not None:
            with contextlib.suppress(RuntimeError):
                await aclose()
