from pathlib import Path

import pytest

from deployments.normaliser.policy import LanguagePolicy

ROOT = Path(__file__).resolve().parents[4]


@pytest.fixture(scope="module")
def policy() -> LanguagePolicy:
    return LanguagePolicy.from_file(ROOT / "configs" / "language_policy.yaml")


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        (None, "hi"),
        ("hi", "hi"),
        ("HI", "hi"),
        ("hi-IN", "hi"),
        ("hi_IN", "hi"),
        ("hin", "hi"),
        ("Hindi", "hi"),
        ("हिन्दी", "hi"),
        ("हिंदी", "hi"),
        ("en-IN", "en"),
        ("English", "en"),
        ("od", "or"),
        ("od-IN", "or"),
        ("Odia", "or"),
        ("ory", "or"),
        ("বাংলা", "bn"),
        ("tam", "ta"),
        ("mr-IN", "mr"),
    ],
)
def test_aliases(policy: LanguagePolicy, given: str | None, canonical: str) -> None:
    assert policy.canonical(given) == canonical


@pytest.mark.parametrize("given", ["xx", "fr", "", "klingon", "h"])
def test_unknown_languages(policy: LanguagePolicy, given: str) -> None:
    assert policy.canonical(given) is None


def test_policy_is_versioned_and_covers_api_languages(policy: LanguagePolicy) -> None:
    assert policy.version and policy.default == "hi"
    codes = {
        "hi",
        "en",
        "bn",
        "ta",
        "te",
        "kn",
        "ml",
        "mr",
        "gu",
        "pa",
        "or",
        "as",
        "ur",
        "ne",
        "sa",
    }
    assert codes <= set(policy.languages)
