"""A project's speech cache settings in the ledger, SQLite and PostgreSQL alike."""

from __future__ import annotations

from serve_app.accounts import AS_THE_SERVICE, AccountStore, SpeechCacheSetting


def test_a_project_s_settings_are_kept_replaced_and_its_own(store: AccountStore) -> None:
    a, b = store.create_project("a"), store.create_project("b")
    assert store.speech_cache_setting(a) == AS_THE_SERVICE
    store.set_speech_cache_setting(a, SpeechCacheSetting(16, 7 * 86_400.0))
    assert store.speech_cache_setting(a) == SpeechCacheSetting(16, 7 * 86_400.0)
    store.set_speech_cache_setting(a, SpeechCacheSetting(0, None))
    assert store.speech_cache_setting(a) == SpeechCacheSetting(0, None)
    assert store.speech_cache_setting(b) == AS_THE_SERVICE
