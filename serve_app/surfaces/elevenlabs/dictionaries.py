"""ElevenLabs' pronunciation-dictionary endpoints, answered as ElevenLabs answers, so
that its SDK (``client.pronunciation_dictionaries``) works by changing the base URL.

Routes at module level (``router``) parse and delegate to
:class:`serve_app.speech.dictionaries.Dictionaries`;
the dictionaries belong to the key's project. ``workspace_access`` is accepted and
not applied (a project has no workspace members); ``archived`` is not supported.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection
from starlette.responses import Response

from deployments.normaliser import pls
from serve_app.accounts.dictionaries import DictionaryRow
from serve_app.http.body import read_json
from serve_app.http.errors import InvalidRequest
from serve_app.speech.dictionaries import (
    Dictionaries,
    check_name,
    parse_rules,
    read_lexicon,
    rules_of,
)
from serve_app.surfaces.dependencies import SpeechKey, services

PREFIX = "/v1/pronunciation-dictionaries"
TAGS: list[str | Enum] = ["ElevenLabs-compatible"]
MAX_PAGE = 100


def metadata(row: DictionaryRow, project_id: str) -> dict[str, Any]:
    """A dictionary as ElevenLabs describes one (GetPronunciationDictionaryMetadataResponse)."""
    return {
        "id": row.id,
        "latest_version_id": row.version_id,
        "latest_version_rules_num": len(rules_of(row.rules)),
        "name": row.name,
        "permission_on_resource": "admin",
        "created_by": project_id,
        "creation_time_unix": int(row.created_at),
        "archived_time_unix": None,
        "description": row.description,
        "by_default": row.by_default,  # ours: applied when a request names no dictionary
    }


def created(row: DictionaryRow, project_id: str) -> dict[str, Any]:
    """AddPronunciationDictionaryResponseModel."""
    return {
        "id": row.id,
        "name": row.name,
        "created_by": project_id,
        "creation_time_unix": int(row.created_at),
        "version_id": row.version_id,
        "version_rules_num": len(rules_of(row.rules)),
        "description": row.description,
        "permission_on_resource": "admin",
    }


def changed(row: DictionaryRow) -> dict[str, Any]:
    """PronunciationDictionaryRulesResponseModel."""
    return {
        "id": row.id,
        "version_id": row.version_id,
        "version_rules_num": len(rules_of(row.rules)),
    }


def _object(body: object) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise InvalidRequest("invalid_value", "The request body is a JSON object.")
    return body


def _description(value: object) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > 1000:
        raise InvalidRequest(
            "invalid_value", "'description' is text of up to 1000 characters.", "description"
        )
    return value


async def _lexicon_form(request: Request) -> tuple[str, str | None, bytes]:
    """``name``, ``description`` and the PLS ``file`` of a multipart form."""
    try:
        async with request.form(max_files=1, max_fields=8) as form:
            upload = form.get("file")
            data = await upload.read() if isinstance(upload, UploadFile) else b""
            name, description = form.get("name"), form.get("description")
    except HTTPException as error:  # Starlette's answer to a form it cannot parse
        raise InvalidRequest(
            "invalid_value", f"The form could not be read: {error.detail}", "file"
        ) from None
    if not data:
        raise InvalidRequest("invalid_value", "Send the lexicon as the form's 'file'.", "file")
    return check_name(name), _description(description), data


def _dictionaries(connection: HTTPConnection) -> Dictionaries:
    return services(connection).dictionaries


Dicts = Annotated[Dictionaries, Depends(_dictionaries)]
router = APIRouter(prefix=PREFIX, tags=TAGS)


@router.post("/add-from-file", summary="A dictionary from a PLS file")
async def add_from_file(request: Request, key: SpeechKey, dictionaries: Dicts) -> dict[str, Any]:
    name, description, data = await _lexicon_form(request)
    row = await dictionaries.create(key.project_id, name, description, read_lexicon(data))
    return created(row, key.project_id)


@router.post("/add-from-rules", summary="A dictionary from rules")
async def add_from_rules(request: Request, key: SpeechKey, dictionaries: Dicts) -> dict[str, Any]:
    body = _object(read_json(await request.body()))
    rules = parse_rules(body.get("rules"))
    name, description = check_name(body.get("name")), _description(body.get("description"))
    row = await dictionaries.create(key.project_id, name, description, rules)
    return created(row, key.project_id)


@router.get("", summary="The project's dictionaries, a page at a time")
async def list_dictionaries(
    key: SpeechKey,
    dictionaries: Dicts,
    cursor: str | None = None,
    page_size: int = 30,
    sort: str = "creation_time_unix",
    sort_direction: str = "DESCENDING",
) -> dict[str, Any]:
    if not 1 <= page_size <= MAX_PAGE:
        raise InvalidRequest("invalid_value", f"'page_size' is 1 to {MAX_PAGE}.", "page_size")
    rows = await dictionaries.all(key.project_id)
    field = {"name": lambda r: r.name.casefold()}.get(sort, lambda r: r.created_at)
    rows.sort(key=field, reverse=sort_direction.lower().startswith("desc"))
    start = int(cursor) if cursor and cursor.isdigit() else 0
    page = rows[start : start + page_size]
    more = start + page_size < len(rows)
    return {
        "pronunciation_dictionaries": [metadata(r, key.project_id) for r in page],
        "next_cursor": str(start + page_size) if more else None,
        "has_more": more,
    }


@router.get("/{pronunciation_dictionary_id}", summary="One, with rules")
async def get_dictionary(
    pronunciation_dictionary_id: str, key: SpeechKey, dictionaries: Dicts
) -> dict[str, Any]:
    row = await dictionaries.get(key.project_id, pronunciation_dictionary_id)
    rules = [rule.as_dict() for rule in rules_of(row.rules)]
    return metadata(row, key.project_id) | {"rules": rules}


@router.patch(
    "/{pronunciation_dictionary_id}",
    summary="Rename; by_default (ours) applies it to requests that name no dictionary",
)
async def update_dictionary(
    request: Request, pronunciation_dictionary_id: str, key: SpeechKey, dictionaries: Dicts
) -> dict[str, Any]:
    body = _object(read_json(await request.body()))
    if body.get("archived"):
        raise InvalidRequest(
            "unsupported_feature", "Archiving dictionaries is not supported.", "archived"
        )
    name = check_name(body["name"]) if body.get("name") is not None else None
    by_default = body.get("by_default")
    if by_default is not None and not isinstance(by_default, bool):
        raise InvalidRequest("invalid_value", "'by_default' is true or false.", "by_default")
    row = await dictionaries.describe(
        key.project_id, pronunciation_dictionary_id, name=name, by_default=by_default
    )
    return metadata(row, key.project_id)


@router.post("/{pronunciation_dictionary_id}/add-rules", summary="Rules added (a new version)")
async def pronunciation_add_rules(
    request: Request, pronunciation_dictionary_id: str, key: SpeechKey, dictionaries: Dicts
) -> dict[str, Any]:
    rules = parse_rules(_object(read_json(await request.body())).get("rules"))
    return changed(await dictionaries.add(key.project_id, pronunciation_dictionary_id, rules))


@router.post(
    "/{pronunciation_dictionary_id}/remove-rules",
    summary="Rules removed by their strings (a new version)",
)
async def pronunciation_remove_rules(
    request: Request, pronunciation_dictionary_id: str, key: SpeechKey, dictionaries: Dicts
) -> dict[str, Any]:
    strings = _object(read_json(await request.body())).get("rule_strings")
    if not isinstance(strings, list) or not all(isinstance(s, str) for s in strings):
        raise InvalidRequest(
            "invalid_value", "'rule_strings' is a list of strings.", "rule_strings"
        )
    return changed(await dictionaries.remove(key.project_id, pronunciation_dictionary_id, strings))


@router.post(
    "/{pronunciation_dictionary_id}/set-rules", summary="All rules replaced (a new version)"
)
async def pronunciation_set_rules(
    request: Request, pronunciation_dictionary_id: str, key: SpeechKey, dictionaries: Dicts
) -> dict[str, Any]:
    rules = parse_rules(_object(read_json(await request.body())).get("rules"))
    return changed(await dictionaries.replace(key.project_id, pronunciation_dictionary_id, rules))


@router.get(
    "/{dictionary_id}/{version_id}/download",
    summary="A version as a PLS file",
    response_class=Response,
)
async def download(
    dictionary_id: str, version_id: str, key: SpeechKey, dictionaries: Dicts
) -> Response:
    version = await dictionaries.version(key.project_id, dictionary_id, version_id)
    return Response(
        pls.write(rules_of(version.rules)),
        media_type="application/pls+xml",
        headers={"Content-Disposition": f'attachment; filename="{version.id}.pls"'},
    )
