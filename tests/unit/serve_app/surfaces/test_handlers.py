"""Route handlers called on their own, as plain functions: each is a module-level
function given its services and key (``surfaces/dependencies.py``), not a closure
inside an app."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request

from deployments.reading import PronunciationRule
from serve_app.accounts import ApiKey
from serve_app.ingress.api import create_app
from serve_app.ingress.state import IngressState
from serve_app.surfaces.dependencies import services
from serve_app.surfaces.elevenlabs.dictionaries import get_dictionary, list_dictionaries
from serve_app.surfaces.native.router import account_usage, health, models
from serve_app.surfaces.native.webhooks import webhook_secret
from tests.unit.serve_app.conftest import DEV_KEY, make_state


async def key_of(state: IngressState) -> ApiKey:
    return await state.auth.authorise(f"Bearer {DEV_KEY}", None)


async def test_discovery_handlers_answer_from_the_services_they_are_given(
    tmp_path: Path,
) -> None:
    state = make_state(tmp_path)
    assert (await health()).status == "ok"
    listed = await models(state)
    assert state.config.model_id in [model.id for model in listed.data]


async def test_account_handlers_answer_for_the_key_s_project(tmp_path: Path) -> None:
    state = make_state(tmp_path)
    key = await key_of(state)
    usage = await account_usage(key, state)
    assert usage.usage.requests == 0 and usage.balance_deci_micros > 0
    secret = await webhook_secret(key, state)
    assert secret.secret.startswith("whsec_") and (await webhook_secret(key, state)) == secret


async def test_dictionary_handlers_answer_as_elevenlabs_does(tmp_path: Path) -> None:
    state = make_state(tmp_path)
    key = await key_of(state)
    rule = PronunciationRule("SBI", "alias", alias="एस बी आई")
    made = await state.dictionaries.create(key.project_id, "banks", None, [rule])
    one = await get_dictionary(made.id, key, state.dictionaries)
    assert (one["name"], one["rules"]) == ("banks", [rule.as_dict()])
    page = await list_dictionaries(key, state.dictionaries, page_size=1)
    assert [d["id"] for d in page["pronunciation_dictionaries"]] == [made.id]
    assert page["has_more"] is False


def test_a_route_finds_the_services_of_the_app_it_reached(tmp_path: Path) -> None:
    state = make_state(tmp_path)
    app = create_app(state)
    request = Request({"type": "http", "app": app, "headers": []})
    assert services(request) is state
