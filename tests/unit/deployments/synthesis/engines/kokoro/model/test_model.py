"""The torch model against the int8 export it was converted from, and a batch against
its items spoken alone (spectral distance: deployments.synthesis.engines.kokoro.model.spectral)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from deployments.synthesis.engines.kokoro.backends import ONNX_GAIN, OnnxKokoro
from deployments.synthesis.engines.kokoro.model.model import KokoroModel
from deployments.synthesis.engines.kokoro.model.spectral import mel_distance

from .conftest import HINDI_VOICES

# 20 sentences, Hindi and English. Here (two CPU cores, float32 torch at ~1x real time)
# one of each language is spoken, by two Hindi voices; tests/gpu speaks all of them with
# every Hindi voice.
SENTENCES = [
    ("hi", "नमस्ते, आप कैसे हैं?"),
    ("hi", "मेरा नाम राहुल है।"),
    ("hi", "आज मौसम बहुत अच्छा है।"),
    ("hi", "कृपया अपना खाता संख्या बताइए।"),
    ("hi", "आपका ऑर्डर कल तक पहुँच जाएगा।"),
    ("hi", "क्या मैं आपकी कुछ और मदद कर सकती हूँ?"),
    ("hi", "ट्रेन सुबह सात बजे निकलेगी।"),
    ("hi", "धन्यवाद, आपका दिन शुभ हो।"),
    ("hi", "बैंक की शाखा दस बजे खुलती है।"),
    ("hi", "मुझे हिंदी में किताबें पढ़ना पसंद है।"),
    ("hi", "डॉक्टर से मिलने का समय तय हो गया है।"),
    ("hi", "बिजली का बिल जमा करने की आखिरी तारीख कल है।"),
    ("en-us", "Hello, how can I help you today?"),
    ("en-us", "Your balance is four hundred rupees."),
    ("en-us", "Please hold while I connect your call."),
    ("en-us", "The quick brown fox jumps over the lazy dog."),
    ("en-us", "Thank you for calling."),
    ("en-us", "The train leaves at seven in the morning."),
    ("en-us", "Press one for English."),
    ("en-us", "We will send the details by message."),
]
# The int8 export and the float model differ by its quantisation noise: ~1.5 dB here,
# where one voice against another is ~7 dB.
MAX_DISTANCE_DB = 2.5
# A batched item against itself alone: ~0.01 dB (float rounding, which the inverse
# STFT's phases amplify).
MAX_BATCH_DISTANCE_DB = 0.05
MAX_BATCH_RELATIVE_ERROR = 0.01


def test_the_torch_model_speaks_as_the_export_does(
    model: KokoroModel,
    export: OnnxKokoro,
    tokens: Callable[[str, str], list[int]],
    style_row: Callable[[str, list[int]], np.ndarray],
) -> None:
    for i, (phonemes, text) in enumerate(SENTENCES[10:11] + SENTENCES[13:14]):
        voice = HINDI_VOICES[i % len(HINDI_VOICES)]
        ids = tokens(text, phonemes)
        row = style_row(voice, ids)
        (voiced,) = export.run([(ids, row, 1.0)])
        assert voiced.durations is not None
        audio, exported = voiced.audio, [int(f) for f in voiced.durations]
        spoken = model([ids], torch.from_numpy(row[None]), torch.ones(1), durations=[exported])[0]
        # durations: within one frame (25 ms) of the export's, token by token
        predicted = spoken.predicted.tolist()
        assert len(predicted) == len(exported)
        assert max(abs(a - b) for a, b in zip(predicted, exported, strict=True)) <= 1, text
        # audio, spoken with the export's durations so that frames line up
        reference = audio.reshape(-1) / ONNX_GAIN
        assert spoken.audio.numel() == reference.size
        distance = mel_distance(reference, spoken.audio.numpy())
        assert distance <= MAX_DISTANCE_DB, (voice, text, distance)


def test_a_batch_speaks_each_item_as_it_is_spoken_alone(
    model: KokoroModel,
    tokens: Callable[[str, str], list[int]],
    style_row: Callable[[str, list[int]], np.ndarray],
) -> None:
    texts = [
        ("hi", "मेरा नाम राहुल है, नमस्ते।", "hf_alpha", 1.0),
        ("en-us", "Press one.", "af_heart", 1.2),
    ]
    ids = [tokens(text, phonemes) for phonemes, text, _, _ in texts]
    styles = torch.from_numpy(
        np.stack([style_row(v, t) for (_, _, v, _), t in zip(texts, ids, strict=True)])
    )
    speeds = torch.tensor([speed for *_, speed in texts])
    batch = model(ids, styles, speeds)
    for i, item in enumerate(batch):
        alone = model([ids[i]], styles[i : i + 1], speeds[i : i + 1])[0]
        assert torch.equal(item.durations, alone.durations)
        a, b = alone.audio.numpy(), item.audio.numpy()
        assert a.size == b.size == int(alone.durations.sum()) * 600
        assert np.linalg.norm(a - b) / np.linalg.norm(a) <= MAX_BATCH_RELATIVE_ERROR
        assert mel_distance(a, b) <= MAX_BATCH_DISTANCE_DB


def test_speed_shortens_the_durations(
    model: KokoroModel,
    tokens: Callable[[str, str], list[int]],
    style_row: Callable[[str, list[int]], np.ndarray],
) -> None:
    ids = tokens("आज मौसम बहुत अच्छा है।", "hi")
    row = torch.from_numpy(style_row("hf_alpha", ids)[None])
    normal, fast = model([ids, ids], row.repeat(2, 1), torch.tensor([1.0, 2.0]))
    assert fast.audio.numel() < 0.7 * normal.audio.numel()
