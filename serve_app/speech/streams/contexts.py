"""A stream session's contexts: opened by their first text (within the session's
limit, each past the first with an admission place of its own), each run in a task of
its own, cleared on a barge-in, ended with the input; the first that fails fails the
session. Their notices (cleared, ended) go out through the session's ``notify``."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable

from serve_app.http.errors import RateLimited
from serve_app.speech.service import SpeechService
from serve_app.speech.streams.text_buffer import DEFAULT_SCHEDULE
from serve_app.speech.streams.text_stream import TextStream, TextStreamSettings, TextStreamSink

# (what happened, the context's id): "cleared" or "ended"
Notify = Callable[[str, str], Awaitable[None]]
# How long a session that ends waits for its cancelled contexts' tasks (each ends at its
# next await; a piece's engine call running in a thread is not waited for)
CANCEL_WAIT_S = 5.0


class Contexts:
    """The contexts of one session, by id, at most ``max_contexts`` at once.
    ``multi``: each context ends on its own (``close_context``), told with an "ended"
    notice; ``notify`` sends a notice, ``send_lock`` is the one audio is sent under."""

    def __init__(
        self,
        sink: TextStreamSink,
        speech: SpeechService,
        max_contexts: int,
        notify: Notify,
        send_lock: asyncio.Lock,
        multi: bool,
    ) -> None:
        self._sink = sink
        self.settings = TextStreamSettings()  # the session's, once its first message is read
        self._speech = speech
        self._max_contexts = max_contexts
        self._notify = notify
        self._send_lock = send_lock
        self._multi = multi
        self._open: dict[str, TextStream] = {}
        # closed (close_context) but still speaking what they held: their ids are free
        # for a new context, as ElevenLabs has it
        self._closing: set[TextStream] = set()
        self._streams = itertools.count()  # each context's own count of characters
        self.failures: asyncio.Queue[BaseException | None] = asyncio.Queue()

    def get(self, context_id: str) -> TextStream | None:
        return self._open.get(context_id)

    def open(self, context_id: str, schedule: tuple[int, ...] | None) -> TextStream:
        """The open context ``context_id``, or a new one (cut by ``schedule``, None: the
        default; none in the settings' ``auto_mode``) (429
        ``rate_limited`` past the session's limit; 503 past the replica's capacity). A
        context closed with ``close_context`` keeps speaking what it held, its id free
        for a new context (they count towards the limit until the old one ends)."""
        context = self._open.get(context_id)
        if context is not None and not context.ended:
            return context
        limit = self._max_contexts
        if len(self._open) + len(self._closing) - (context is not None) >= limit:
            raise RateLimited(
                "rate_limited",
                f"A session may have {limit} contexts open at once; close one "
                "(close_context) before opening another.",
            )
        # the session's admission place covers one context; each other one takes a
        # place of its own, as a request would (503 past the replica's capacity)
        ticket = self._speech.admission.enter() if self._open or self._closing else None
        if context is not None:
            self._closing.add(context)
        context = TextStream(
            self._speech,
            self.settings,
            self._sink,
            context_id,
            None if self.settings.auto_mode else DEFAULT_SCHEDULE if schedule is None else schedule,
            next(self._streams),
        )
        context.ticket = ticket
        self._open[context_id] = context
        context.task = asyncio.create_task(self._run(context))
        return context

    async def _run(self, context: TextStream) -> None:
        try:
            await context.run()
            if self._multi:
                # done: a later message with this id opens a new context
                if self._open.get(context.id) is context:
                    del self._open[context.id]
                self._closing.discard(context)
                await self._notify("ended", context.id)
        except asyncio.CancelledError:
            raise
        except BaseException as e:
            await self.failures.put(e)
        finally:
            if context.ticket is not None:
                context.ticket.release()

    async def clear(self, context_id: str) -> None:
        """Barge-in: drop the context's buffered text, its queued pieces and the audio
        not yet sent, stop its synthesis, release the hold of what it dropped, and
        acknowledge. What was sent stays billed; the context's next text starts afresh
        (a new stream of the bill)."""
        cleared = [c for c in self._closing if c.id == context_id]
        if (context := self._open.pop(context_id, None)) is not None:
            cleared.append(context)
        for context in cleared:
            self._closing.discard(context)
            context.ended = True
            if context.task is not None:
                async with self._send_lock:  # not while one of its chunks is being sent
                    context.task.cancel()
                await asyncio.gather(context.task, return_exceptions=True)
            await self._sink.release_unsent(context)  # its next turn may use the balance
        await self._notify("cleared", context_id)

    async def end_all(self) -> None:
        """No more input: each open context speaks what it holds, then ends."""
        ending = list(self._open.values())
        for context in ending:
            await context.end()
        ending += self._closing
        await asyncio.gather(*(c.task for c in ending if c.task is not None))
        await self.failures.put(None)

    async def cancel_all(self) -> None:
        """The session is over: stop every context now, give back their places, and
        wait for their tasks to end, so that what they spent (a piece cut off before
        its audio: the key's unproductive time) is on the bill before it settles."""
        tasks = []
        for context in [*self._open.values(), *self._closing]:
            if context.task is not None:
                context.task.cancel()
                tasks.append(context.task)
            if context.ticket is not None:  # a task cancelled unstarted never frees it
                context.ticket.release()
        if tasks:  # a cancelled task ends at its next await
            await asyncio.wait(tasks, timeout=CANCEL_WAIT_S)
