"""The service's OpenAPI document, written without starting the service.

``python -m serve_app.openapi PATH`` builds the ingress's FastAPI application in this
process, as a replica builds it (every surface attached, the shipped settings and
voices; no Ray, no model loaded), and writes ``app.openapi()`` to PATH. The docs
build renders that file, so the published API reference is the code's own.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any


def document() -> dict[str, Any]:
    """The OpenAPI document every ingress replica serves at ``/openapi.json``."""
    from deployments.synthesis import SynthesisRunner
    from serve_app.ingress.api import create_app
    from serve_app.ingress.state import IngressState
    from serve_app.settings import IngressConfig
    from serve_app.speech.pipeline import Pipeline

    with tempfile.TemporaryDirectory(prefix="openapi-") as root:
        config = IngressConfig.model_validate({"database_url": str(Path(root) / "ledger.sqlite3")})
        state = IngressState(config, Pipeline.in_process(SynthesisRunner({"warm_up": False})))
        try:
            return create_app(state).openapi()
        finally:
            state.store.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="where to write the JSON document")
    path = parser.parse_args(argv).path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document(), indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
