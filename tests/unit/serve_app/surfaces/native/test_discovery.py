"""What the service says of itself: /v1/capabilities, and the discovery routes'
bodies as documented models."""

import httpx


async def test_capabilities_describe_formats_and_gaps(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    caps = (await client.get("/v1/capabilities", headers=auth)).json()
    formats = {f["format"]: f for f in caps["audio_formats"]}
    assert formats["pcm"]["byte_order"] == "little_endian" and not formats["wav"]["streamed"]
    assert caps["streaming"]["stream_formats"] == ["audio", "sse"]
    # both voice-modelling modes, by the engines that do them (Piper and VITS do not)
    modelling = caps["modelling"]
    assert modelling["engines"] == {
        "description": ["espeak", "kokoro"],
        "reference": ["espeak", "kokoro"],
    }
    assert modelling["reference_audio"]["max_seconds"] == 20.0
    assert not {u["feature"] for u in caps["unavailable"]} & {"description", "reference"}
    assert caps["limits"]["max_input_characters"] == 4096
    assert set(caps["generation_controls"]) >= {
        "speed",
        "pitch",
        "volume",
        "quality",
        "sample_rate",
    }
    assert "bitrates_kbps" not in formats["pcm"] and formats["mp3"]["bitrates_kbps"]
    assert formats["ulaw"]["sample_rate"] == 8000 and formats["opus"]["sample_rate"] == 48000
    assert formats["alaw"]["encoding"] == "g711_a_law" and formats["aac"]["streamed"]
    assert "engines" not in caps["generation_controls"]["speed"]
    assert "espeak" in caps["generation_controls"]["pitch"]["engines"]


async def test_discovery_bodies_are_documented_models(client: httpx.AsyncClient) -> None:
    """/ready, /v1/capabilities and /v1/voices answer with the models in protocol.py,
    and the OpenAPI document says so."""
    paths = (await client.get("/openapi.json")).json()["paths"]
    for path, model in (
        ("/ready", "Readiness"),
        ("/v1/capabilities", "Capabilities"),
        ("/v1/voices", "VoiceList"),
    ):
        schema = paths[path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        assert schema["$ref"].endswith("/" + model), path
