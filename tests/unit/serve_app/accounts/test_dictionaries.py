"""Pronunciation dictionaries in the account store, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import json

import pytest

from serve_app.accounts import AccountStore
from serve_app.accounts.dictionaries import MAX_DICTIONARIES_PER_PROJECT, DictionaryLimit

SBI = {"type": "alias", "string_to_replace": "SBI", "alias": "स्टेट बैंक ऑफ़ इंडिया"}
IYER = {"type": "phoneme", "string_to_replace": "Iyer", "phoneme": "əjjər", "alphabet": "ipa"}


def added(rule: dict[str, str]) -> object:
    return lambda rules: json.dumps([*json.loads(rules), rule])


def test_every_change_is_a_new_version_and_old_versions_stay(store: AccountStore) -> None:
    project = store.create_project("bank")
    made = store.create_dictionary(project, "brands", "our names", json.dumps([SBI]))
    assert (made.name, made.description, made.version_number) == ("brands", "our names", 1)
    changed = store.change_dictionary(project, made.id, added(IYER))  # type: ignore[arg-type]
    assert changed is not None and changed.version_number == 2
    assert changed.version_id != made.version_id
    assert json.loads(changed.rules) == [SBI, IYER]
    first = store.dictionary_version(project, made.id, made.version_id)
    assert first is not None and json.loads(first.rules) == [SBI] and first.number == 1
    latest = store.dictionary_version(project, made.id, None)
    assert latest is not None and latest.id == changed.version_id


def test_a_dictionary_is_invisible_to_other_projects(store: AccountStore) -> None:
    bank, clinic = store.create_project("bank"), store.create_project("clinic")
    made = store.create_dictionary(bank, "brands", None, json.dumps([SBI]))
    assert store.project_dictionary(clinic, made.id) is None
    assert store.project_dictionaries(clinic) == []
    assert store.dictionary_version(clinic, made.id, made.version_id) is None
    assert store.change_dictionary(clinic, made.id, added(IYER)) is None  # type: ignore[arg-type]
    assert store.describe_dictionary(clinic, made.id, name="mine") is None
    assert store.project_dictionary(bank, made.id) == made


def test_naming_and_marking_for_default_use_keep_the_version(store: AccountStore) -> None:
    project = store.create_project("bank")
    made = store.create_dictionary(project, "brands", None, json.dumps([SBI]))
    described = store.describe_dictionary(project, made.id, name="names", by_default=True)
    assert described is not None
    assert (described.name, described.by_default, described.version_id) == (
        "names", True, made.version_id,
    )  # fmt: skip
    newer = store.create_dictionary(project, "more", None, "[]")
    assert [d.id for d in store.project_dictionaries(project)] == [newer.id, made.id]


def test_a_project_has_a_limit_of_dictionaries(store: AccountStore) -> None:
    project = store.create_project("bank")
    for n in range(MAX_DICTIONARIES_PER_PROJECT):
        store.create_dictionary(project, f"d{n}", None, "[]")
    with pytest.raises(DictionaryLimit):
        store.create_dictionary(project, "one more", None, "[]")


def test_the_defaults_are_the_dictionaries_marked_for_them(store: AccountStore) -> None:
    bank = store.create_project("bank")
    marked = store.create_dictionary(bank, "brands", None, json.dumps([SBI]))
    store.create_dictionary(bank, "names", None, json.dumps([IYER]))
    assert store.project_dictionaries(bank, by_default=True) == []
    store.describe_dictionary(bank, marked.id, by_default=True)
    defaults = store.project_dictionaries(bank, by_default=True)
    assert [d.id for d in defaults] == [marked.id] and defaults[0].by_default
    assert len(store.project_dictionaries(bank)) == 2
