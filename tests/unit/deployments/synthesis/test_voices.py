from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from deployments.synthesis import voice_files
from deployments.synthesis.registry import load_engine
from deployments.synthesis.synthesiser import Synthesiser, SynthesiserConfig
from deployments.synthesis.voices import VoiceConfig, VoiceRegistry

ROOT = Path(__file__).resolve().parents[4]


def voice(**overrides: object) -> dict[str, object]:
    record: dict[str, object] = {
        "id": "default",
        "name": "D",
        "engine": "espeak",
        "languages": ["hi"],
        "gender": "female",
        "sample_rate": 22050,
    }
    record.update(overrides)
    return record


def test_shipped_registry_has_default_named_voices_and_a_private_one() -> None:
    registry = VoiceRegistry.from_file(ROOT / "configs" / "voices.yaml")
    ids = {v.id for v in registry.all()}
    public = {v.id for v in registry.public()}
    assert "default" in public and len(public) >= 5
    assert ids - public, "at least one voice is not public"
    assert registry.get("default").languages[0] == "hi"
    genders = {(v.languages[0], v.gender) for v in registry.public()}
    assert {("hi", "female"), ("hi", "male"), ("en", "female"), ("en", "male")} <= genders


def test_registry_refuses_duplicates_missing_default_and_bad_ids() -> None:
    with pytest.raises(ValueError):
        VoiceRegistry([VoiceConfig(**voice()), VoiceConfig(**voice())])
    with pytest.raises(ValueError):
        VoiceRegistry([VoiceConfig(**voice(id="other"))])
    with pytest.raises(ValidationError):
        VoiceConfig(**voice(id="Bad Id"))


def test_synthesiser_checks_sample_rate_against_engine(tmp_path: Path) -> None:
    path = tmp_path / "voices.yaml"
    path.write_text(yaml.safe_dump({"voices": [voice(sample_rate=16000)]}))
    with pytest.raises(ValueError, match="22050"):
        Synthesiser.from_config(SynthesiserConfig(voices_path=str(path)))
    registry = VoiceRegistry([VoiceConfig(**voice())])
    assert (
        Synthesiser(registry, {"espeak": load_engine("espeak")}).info().engines[0].name == "espeak"
    )


def test_an_engine_whose_optional_voices_lack_their_files_is_not_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """An optional VITS voice whose checkpoint is not on disk is left out before its
    engine loads: a replica imports no torch and transformers for no voice."""
    from deployments.synthesis import registry

    def never(options: dict[str, object]) -> object:
        raise AssertionError("the vits engine was loaded for a voice it cannot speak")

    monkeypatch.setitem(registry.ENGINE_LOADERS, "vits", never)
    missing = tmp_path / "no-checkpoint"
    vits = voice(id="hi-vits", engine="vits", sample_rate=16000, optional=True)
    path = tmp_path / "voices.yaml"
    path.write_text(
        yaml.safe_dump({"voices": [voice(), {**vits, "params": {"model": str(missing)}}]})
    )
    synthesiser = Synthesiser.from_config(SynthesiserConfig(voices_path=str(path)))
    assert [e.name for e in synthesiser.info().engines] == ["espeak"]
    assert not synthesiser.speaks("hi-vits") and synthesiser.speaks("default")
    assert f"no VITS checkpoint at {missing}" in caplog.text
    assert voice_files.files_missing(VoiceConfig(**{**vits, "params": {"model": str(missing)}}))
    # a voice of the engine that is not optional still fails the start where it lacks them
    path.write_text(
        yaml.safe_dump(
            {"voices": [voice(), {**vits, "optional": False, "params": {"model": str(missing)}}]}
        )
    )
    with pytest.raises(AssertionError, match="was loaded"):
        Synthesiser.from_config(SynthesiserConfig(voices_path=str(path)))
