"""The pipeline routes each voice to where its engine runs, with real engines in process."""

from __future__ import annotations

from deployments.messages import EncodeJob, OutputParams, SynthesisJob, SynthesisParams
from deployments.synthesis.runner import SynthesisRunner
from serve_app.speech.pipeline import LocalEncoding, LocalNormalisation, LocalSynthesis, Pipeline


async def test_voices_of_ingress_engines_are_spoken_here_the_rest_there() -> None:
    here = LocalSynthesis(SynthesisRunner({"voice_engines": ["espeak"]}))
    there = LocalSynthesis(SynthesisRunner({"voice_engines": ["kokoro"]}))
    order = ["default", "hi-espeak-aditi"]
    pipeline = Pipeline(LocalNormalisation(), LocalEncoding(there), [here, there], here, order)
    loaded = await pipeline.synthesisers()
    assert [voice.id for voice in loaded.voices][:2] == order  # the registry's order
    engines = {voice.id: voice.engine for voice in loaded.voices}
    assert engines["default"] == "kokoro" and engines["hi-espeak-aditi"] == "espeak"
    assert {info.name for info in loaded.engines} == {"espeak", "kokoro"}

    text = await pipeline.normalise("नमस्ते, आप कैसे हैं?", "hi", "balanced")
    rates = {}
    for voice in ("default", "hi-espeak-aditi"):
        job = EncodeJob(
            SynthesisJob(text.segments, SynthesisParams(voice, "hi")), OutputParams("pcm")
        )
        chunks = [chunk async for chunk in pipeline.encode(job)]
        assert chunks and sum(c.audio_samples for c in chunks) > 0
        rates[voice] = chunks[0].sample_rate
    assert rates == {"default": 24000, "hi-espeak-aditi": 22050}
