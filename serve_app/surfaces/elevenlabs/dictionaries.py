"""ElevenLabs' pronunciation-dictionary endpoints, answered as ElevenLabs answers, so
that its SDK (``client.pronunciation_dictionaries``) works by changing the base URL.

Routes parse and delegate to :class:`serve_app.speech.dictionaries.Dictionaries`;
the dictionaries belong to the key's project. ``workspace_access`` is accepted and
not applied (a project has no workspace members); ``archived`` is not supported.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from fastapi import Depends, FastAPI, Request
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.responses import Response

from deployments.normaliser import pls
from serve_app.accounts import ApiKey
from serve_app.accounts.dictionaries import DictionaryRow
from serve_app.http.body import read_json
from serve_app.http.errors import InvalidRequest
from serve_app.speech.dictionaries import (
    check_name,
    parse_rules,
    read_lexicon,
    rules_of,
)
from serve_app.surfaces.services import Services

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


def attach_dictionaries(app: FastAPI, state: Services) -> None:
    speech_key = Depends(state.auth.require("speech"))
    dictionaries = state.dictionaries

    @app.post(f"{PREFIX}/add-from-file", tags=TAGS, summary="A dictionary from a PLS file")
    async def add_from_file(request: Request, key: ApiKey = speech_key) -> dict[str, Any]:
        name, description, data = await _lexicon_form(request)
        row = await dictionaries.create(key.project_id, name, description, read_lexicon(data))
        return created(row, key.project_id)

    @app.post(f"{PREFIX}/add-from-rules", tags=TAGS, summary="A dictionary from rules")
    async def add_from_rules(request: Request, key: ApiKey = speech_key) -> dict[str, Any]:
        body = _object(read_json(await request.body()))
        rules = parse_rules(body.get("rules"))
        name, description = check_name(body.get("name")), _description(body.get("description"))
        row = await dictionaries.create(key.project_id, name, description, rules)
        return created(row, key.project_id)

    @app.get(PREFIX, tags=TAGS, summary="The project's dictionaries, a page at a time")
    async def list_dictionaries(
        cursor: str | None = None,
        page_size: int = 30,
        sort: str = "creation_time_unix",
        sort_direction: str = "DESCENDING",
        key: ApiKey = speech_key,
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

    @app.get(f"{PREFIX}/{{pronunciation_dictionary_id}}", tags=TAGS, summary="One, with rules")
    async def get_dictionary(
        pronunciation_dictionary_id: str, key: ApiKey = speech_key
    ) -> dict[str, Any]:
        row = await dictionaries.get(key.project_id, pronunciation_dictionary_id)
        rules = [rule.as_dict() for rule in rules_of(row.rules)]
        return metadata(row, key.project_id) | {"rules": rules}

    @app.patch(
        f"{PREFIX}/{{pronunciation_dictionary_id}}",
        tags=TAGS,
        summary="Rename; by_default (ours) applies it to requests that name no dictionary",
    )
    async def update_dictionary(
        request: Request, pronunciation_dictionary_id: str, key: ApiKey = speech_key
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

    def rules_route(suffix: str, summary: str) -> None:
        async def endpoint(
            request: Request, pronunciation_dictionary_id: str, key: ApiKey = speech_key
        ) -> dict[str, Any]:
            body = _object(read_json(await request.body()))
            project, dictionary_id = key.project_id, pronunciation_dictionary_id
            if suffix == "remove-rules":
                strings = body.get("rule_strings")
                if not isinstance(strings, list) or not all(isinstance(s, str) for s in strings):
                    raise InvalidRequest(
                        "invalid_value", "'rule_strings' is a list of strings.", "rule_strings"
                    )
                row = await dictionaries.remove(project, dictionary_id, strings)
            elif suffix == "add-rules":
                row = await dictionaries.add(project, dictionary_id, parse_rules(body.get("rules")))
            else:
                rules = parse_rules(body.get("rules"))
                row = await dictionaries.replace(project, dictionary_id, rules)
            return changed(row)

        app.add_api_route(
            f"{PREFIX}/{{pronunciation_dictionary_id}}/{suffix}",
            endpoint,
            methods=["POST"],
            name=f"pronunciation_{suffix.replace('-', '_')}",
            summary=summary,
            tags=TAGS,
        )

    rules_route("add-rules", "Rules added (a new version)")
    rules_route("remove-rules", "Rules removed by their strings (a new version)")
    rules_route("set-rules", "All rules replaced (a new version)")

    @app.get(
        f"{PREFIX}/{{dictionary_id}}/{{version_id}}/download",
        tags=TAGS,
        summary="A version as a PLS file",
        response_class=Response,
    )
    async def download(dictionary_id: str, version_id: str, key: ApiKey = speech_key) -> Response:
        version = await dictionaries.version(key.project_id, dictionary_id, version_id)
        return Response(
            pls.write(rules_of(version.rules)),
            media_type="application/pls+xml",
            headers={"Content-Disposition": f'attachment; filename="{version.id}.pls"'},
        )
