"""A project's pronunciation dictionaries: rules checked, versions written, PLS in and
out, on the accounts database (:mod:`serve_app.accounts.dictionaries`).

Every change writes a new version; ``add`` replaces a rule with the same
``string_to_replace`` (as ElevenLabs does), ``remove`` drops rules by that string.
Errors are the API's: a rule that cannot be used is 400 ``invalid_value`` naming
``rules[i]``; a dictionary or version of another project, or none, is 404
``not_found`` naming it.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Protocol

from deployments.normaliser import pls
from deployments.reading import MAX_RULES, PronunciationRule, RuleError
from serve_app.accounts import AccountStore
from serve_app.accounts.dictionaries import (
    MAX_DICTIONARIES_PER_PROJECT,
    DictionaryLimit,
    DictionaryRow,
    VersionRow,
)
from serve_app.http.errors import InvalidRequest, NotFound

MAX_NAME = 200


class Locator(Protocol):
    """A dictionary a request names, at a version (None: its latest)."""

    @property
    def id(self) -> str: ...

    @property
    def version_id(self) -> str | None: ...


def parse_rules(body: object, param: str = "rules") -> list[PronunciationRule]:
    """The rules of a request body's list, each checked (400 names the one at fault)."""
    if not isinstance(body, list):
        raise InvalidRequest("invalid_value", f"'{param}' is a list of rules.", param)
    if len(body) > MAX_RULES:
        raise InvalidRequest("invalid_value", f"At most {MAX_RULES} rules.", param)
    rules = []
    for i, item in enumerate(body):
        if not isinstance(item, dict):
            raise InvalidRequest("invalid_value", "A rule is an object.", f"{param}[{i}]")
        try:
            rules.append(PronunciationRule.from_dict(item))
        except RuleError as error:
            message = f"{str(error).capitalize()}."
            raise InvalidRequest("invalid_value", message, f"{param}[{i}]") from None
    return rules


def rules_of(stored: str) -> list[PronunciationRule]:
    return [PronunciationRule.from_dict(item) for item in json.loads(stored)]


_PARSED: OrderedDict[str, tuple[PronunciationRule, ...]] = OrderedDict()
PARSED_VERSIONS = 256


def version_rules(version_id: str, stored: str) -> tuple[PronunciationRule, ...]:
    """A version's rules, read once: a version never changes, so the requests that use
    it share one parse (and, in the normaliser, one compiled pattern). The last
    :data:`PARSED_VERSIONS` used are kept, by version id."""
    rules = _PARSED.get(version_id)
    if rules is None:
        rules = _PARSED[version_id] = tuple(rules_of(stored))
        while len(_PARSED) > PARSED_VERSIONS:
            _PARSED.popitem(last=False)
    _PARSED.move_to_end(version_id)
    return rules


def _stored(rules: list[PronunciationRule]) -> str:
    if len(rules) > MAX_RULES:
        raise InvalidRequest("invalid_value", f"A dictionary holds at most {MAX_RULES} rules.")
    return json.dumps([rule.as_dict() for rule in rules], ensure_ascii=False)


def check_name(name: object, param: str = "name") -> str:
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        raise InvalidRequest(
            "invalid_value", f"'{param}' is a name of 1 to {MAX_NAME} characters.", param
        )
    return name.strip()


def read_lexicon(data: bytes) -> list[PronunciationRule]:
    """A PLS file's rules (400 ``invalid_value`` on ``file`` saying where it is wrong)."""
    try:
        return pls.read(data)
    except pls.LexiconError as error:
        raise InvalidRequest("invalid_value", f"{str(error).capitalize()}.", "file") from None


class Dictionaries:
    """The projects' pronunciation dictionaries."""

    def __init__(self, store: AccountStore) -> None:
        self._store = store
        # told the project whose dictionaries changed (the speech cache forgets its audio)
        self.on_change: list[Callable[[str], None]] = []

    def _changed(self, project_id: str) -> None:
        for listener in self.on_change:
            listener(project_id)

    async def create(
        self, project_id: str, name: str, description: str | None, rules: list[PronunciationRule]
    ) -> DictionaryRow:
        try:
            created = await self._store.call(
                self._store.create_dictionary, project_id, name, description, _stored(rules)
            )
        except DictionaryLimit:
            raise InvalidRequest(
                "too_many_dictionaries",
                f"A project keeps at most {MAX_DICTIONARIES_PER_PROJECT} pronunciation"
                " dictionaries.",
            ) from None
        self._changed(project_id)
        return created

    async def get(self, project_id: str, dictionary_id: str) -> DictionaryRow:
        found = await self._store.call(self._store.project_dictionary, project_id, dictionary_id)
        return _found(found, dictionary_id)

    async def all(self, project_id: str) -> list[DictionaryRow]:
        return await self._store.call(self._store.project_dictionaries, project_id)

    async def version(
        self, project_id: str, dictionary_id: str, version_id: str | None
    ) -> VersionRow:
        found = await self._store.call(
            self._store.dictionary_version, project_id, dictionary_id, version_id
        )
        if found is None:
            await self.get(project_id, dictionary_id)  # 404 for the dictionary first
            raise NotFound(
                "not_found",
                f"Pronunciation dictionary '{dictionary_id}' has no version '{version_id}'.",
                "version_id",
            )
        return found

    async def rules_for(
        self,
        project_id: str | None,
        located: Sequence[Locator] | None,
        param: str = "pronunciation_dictionaries",
    ) -> tuple[PronunciationRule, ...]:
        """The rules a request speaks with: those of the dictionaries it names (each at
        its version, else its latest; a 404 names the one not found), in that order; if
        it names none (None, not an empty list), those its project marked by_default."""
        if project_id is None:
            return ()
        if located is None:
            rows = await self._store.call(self._store.project_dictionaries, project_id, True)
            return tuple(rule for r in rows for rule in version_rules(r.version_id, r.rules))
        rules: list[PronunciationRule] = []
        for i, locator in enumerate(located):
            try:
                version = await self.version(project_id, locator.id, locator.version_id)
            except NotFound as missing:
                raise NotFound(missing.code, missing.message, f"{param}[{i}]") from None
            rules.extend(version_rules(version.id, version.rules))
        return tuple(rules)

    async def add(
        self, project_id: str, dictionary_id: str, rules: list[PronunciationRule]
    ) -> DictionaryRow:
        """Rules added; one with the string of an existing rule replaces it."""
        strings = {rule.string_to_replace for rule in rules}

        def change(stored: str) -> str:
            kept = [r for r in rules_of(stored) if r.string_to_replace not in strings]
            return _stored([*kept, *rules])

        return await self._change(project_id, dictionary_id, change)

    async def remove(
        self, project_id: str, dictionary_id: str, strings: list[str]
    ) -> DictionaryRow:
        gone = set(strings)

        def change(stored: str) -> str:
            return _stored([r for r in rules_of(stored) if r.string_to_replace not in gone])

        return await self._change(project_id, dictionary_id, change)

    async def replace(
        self, project_id: str, dictionary_id: str, rules: list[PronunciationRule]
    ) -> DictionaryRow:
        return await self._change(project_id, dictionary_id, lambda _: _stored(rules))

    async def describe(
        self,
        project_id: str,
        dictionary_id: str,
        name: str | None = None,
        by_default: bool | None = None,
    ) -> DictionaryRow:
        found = await self._store.call(
            self._store.describe_dictionary,
            project_id,
            dictionary_id,
            name=name,
            by_default=by_default,
        )
        self._changed(project_id)
        return _found(found, dictionary_id)

    async def _change(
        self, project_id: str, dictionary_id: str, change: Callable[[str], str]
    ) -> DictionaryRow:
        found = await self._store.call(
            self._store.change_dictionary, project_id, dictionary_id, change
        )
        self._changed(project_id)
        return _found(found, dictionary_id)


def _found(found: DictionaryRow | None, dictionary_id: str) -> DictionaryRow:
    if found is None:
        raise NotFound(
            "not_found",
            f"No pronunciation dictionary '{dictionary_id}'.",
            "pronunciation_dictionary_id",
        )
    return found
