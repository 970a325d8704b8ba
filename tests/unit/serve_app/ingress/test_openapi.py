"""Schemathesis against the service's own OpenAPI document: generated requests, valid
and not, to every HTTP operation. No 5xx, every response as documented (status,
content type, body schema), and the key required wherever the API requires it.

The app runs in this process with eSpeak voices only (one of them ``default``) and
short inputs, so that hundreds of requests that do reach synthesis stay fast.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis
import yaml
from fastapi import FastAPI
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance
from starlette.testclient import TestClient

from deployments.synthesis.runner import SynthesisRunner
from serve_app.ingress.api import create_app
from serve_app.ingress.state import IngressState
from serve_app.settings import CONFIGS, IngressConfig
from serve_app.speech.pipeline import Pipeline
from tests.unit.serve_app.conftest import DEV_KEY

PUBLIC = {("get", "/health"), ("get", "/v1/voices"), ("get", "/v1/voices/{voice_id}")}


# The app is made when the module is collected (schemathesis reads its schema then):
# its folder lives as long as the process and goes with it.
_FOLDER = tempfile.TemporaryDirectory(prefix="openapi-")


def espeak_app() -> FastAPI:
    root = Path(tempfile.mkdtemp(dir=_FOLDER.name))
    voices = yaml.safe_load((CONFIGS / "voices.yaml").read_text())["voices"]
    espeak = [v for v in voices if v["engine"] == "espeak"]
    espeak[0] = {**espeak[0], "id": "default"}
    (root / "voices.yaml").write_text(yaml.safe_dump({"voices": espeak}, allow_unicode=True))
    runner = SynthesisRunner({"voices_path": str(root / "voices.yaml")})
    config = IngressConfig(
        dev_api_key=DEV_KEY,
        database_url=str(root / "ledger.sqlite3"),
        max_input_chars=200,
        rate_limit_per_minute=0,
    )
    return create_app(IngressState(config, Pipeline.in_process(runner)))


schema = schemathesis.openapi.from_asgi("/openapi.json", espeak_app())


@schema.parametrize()
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_every_operation_answers_as_documented(case: schemathesis.Case) -> None:
    case.call_and_validate(
        headers={"Authorization": f"Bearer {DEV_KEY}"},
        # A body can fit the schema and still be refused for what it means: a voice
        # nobody registered (404), input with nothing to speak (400 empty_input).
        excluded_checks=[positive_data_acceptance],
    )


def test_every_operation_but_the_public_ones_wants_a_key() -> None:
    """Straight from the document: each operation without a key is 401, and the
    document says so (bearer security) for exactly those."""
    app = espeak_app()
    client = TestClient(app)
    document = client.get("/openapi.json").json()
    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            secured = bool(operation.get("security"))
            assert secured == ((method, path) not in PUBLIC), (method, path)
            if not secured:
                continue
            response = client.request(method, path, json={"input": "hi"})
            assert response.status_code == 401, (method, path, response.text)
            assert response.json()["error"]["code"] == "missing_api_key"


def test_the_document_names_each_body_once_and_promises_no_422() -> None:
    """Request bodies are named schemas (the reference shows SpeechRequest once, not
    a nested copy per operation), and no operation documents FastAPI's 422: a bad
    request is a 400 here."""
    document = TestClient(espeak_app()).get("/openapi.json").json()
    schemas = document["components"]["schemas"]
    speech = document["paths"]["/v1/audio/speech"]["post"]["requestBody"]
    refs = speech["content"]["application/json"]["schema"]["anyOf"]
    assert refs == [
        {"$ref": "#/components/schemas/SpeechRequest"},
        {"$ref": "#/components/schemas/OpenAISpeechRequest"},
    ]
    assert "DictionaryLocator" in schemas and "$defs" not in schemas["SpeechRequest"]
    assert "#/$defs/" not in str(document)
    for operations in document["paths"].values():
        for operation in operations.values():
            assert "422" not in operation["responses"]
    assert "HTTPValidationError" not in schemas
