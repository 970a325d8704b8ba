"""What the surfaces use of the ingress, as one typed interface: the speech service
and the collaborators around it (settings, client names, keys, admission, metrics,
the catalog, voices and usage). The ingress's state fulfils it; a surface receives it
and never imports the ingress, so dependencies point one way (tests/unit/test_layout.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from serve_app.accounts import Usage
from serve_app.http.auth import Authenticator
from serve_app.settings import IngressConfig
from serve_app.speech.admission import Admission, PerAddress
from serve_app.speech.catalog import Catalog
from serve_app.speech.dictionaries import Dictionaries
from serve_app.speech.metrics import Metrics
from serve_app.speech.service import SpeechService
from serve_app.speech.vocabulary import VoiceRecord
from serve_app.surfaces.compat import CompatConfig
from serve_app.surfaces.native.protocol import ReplicaStatus, VoiceList


class Services(Protocol):
    config: IngressConfig
    compat: CompatConfig
    auth: Authenticator
    speech: SpeechService
    metrics: Metrics
    admission: Admission
    unauthenticated: PerAddress  # sockets still waiting for their key, by address
    dictionaries: Dictionaries

    async def catalog(self) -> Catalog:
        """What the service offers now (cached)."""
        ...

    async def refresh_catalog(self) -> Catalog:
        """What the service offers, asked of the pipeline again."""
        ...

    def replica_status(self) -> ReplicaStatus:
        """What the answering replica holds open."""
        ...

    async def optional_project(self, headers: Mapping[str, str]) -> str | None:
        """The project of the key ``headers`` carry, None if they carry none."""
        ...

    async def voice_list(self, project_id: str | None) -> VoiceList:
        """The public voices, and ``project_id``'s own after them."""
        ...

    async def voice_record(self, voice_id: str, project_id: str | None) -> VoiceRecord:
        """One voice, public or ``project_id``'s own (404 ``voice_not_found``)."""
        ...

    async def delete_voice(self, voice_id: str, project_id: str) -> None:
        """Remove a voice of ``project_id``'s own (404 if it has none of that id)."""
        ...

    async def usage(self, project_id: str) -> Usage:
        """``project_id``'s ledger totals."""
        ...
