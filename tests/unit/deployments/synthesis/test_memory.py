"""What a long soak found (loadtest/soak.py: the Synthesiser plateaus), guarded in CI
time: requests that are done leave nothing behind in the runner's Python objects."""

from __future__ import annotations

import gc
import itertools
import tracemalloc

from deployments.messages import Segment, SynthesisParams, SynthesisWork
from deployments.synthesis.runner import SynthesisRunner

SENTENCES = ("नमस्ते दुनिया।", "आज मौसम अच्छा है।")

ROUNDS = 120


def work_of(sentences: tuple[str, ...]) -> SynthesisWork:
    segments, start = [], 0
    for i, text in enumerate(sentences):
        segments.append(Segment(i, text, start, start + len(text)))
        start += len(text) + 1
    return SynthesisWork(tuple(segments), SynthesisParams("hi-espeak-aditi", "hi"))


KEPT_BYTES = 64 * 1024  # ~0.5 KB a request would be tens of megabytes a day


async def test_finished_and_abandoned_requests_leave_nothing_behind() -> None:
    runner = SynthesisRunner({"voice_engines": ["espeak"], "warm_up": False})
    numbers = itertools.count(1000, 7)

    async def requests(count: int) -> None:
        for i in range(count):  # each text its own, as a service's are: audio of new lengths
            work = work_of((*SENTENCES[:2], f"आपका नंबर {next(numbers)} है।"))
            audio = runner.synthesise(work)
            if i % 3 == 0:  # a reader that goes away after the first segment
                await anext(audio)
                await audio.aclose()
            else:
                async for _ in audio:
                    pass

    await requests(20)  # caches, thread pools and the engine's first buffers
    tracemalloc.start()
    try:
        await requests(ROUNDS)  # what a worker thread holds of its last call, once
        gc.collect()
        before = tracemalloc.take_snapshot()
        await requests(ROUNDS)
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    grown = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    top = after.compare_to(before, "lineno")[:5]
    assert grown < KEPT_BYTES, "\n".join(map(str, top))
