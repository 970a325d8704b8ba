"""What the surfaces use of the ingress, as one typed interface: the speech service
and the collaborators around it (settings, client names, keys, admission, metrics,
the catalog, the projects' voices, the ledger). The ingress's state fulfils it; a
surface receives it and never imports the ingress, so dependencies point one way
(tests/unit/test_layout.py)."""

from __future__ import annotations

from typing import Protocol

from serve_app.http.auth import Authenticator
from serve_app.settings import IngressConfig
from serve_app.speech.admission import Admission, PerAddress
from serve_app.speech.catalog import Catalog
from serve_app.speech.custom_voices import CustomVoices
from serve_app.speech.dictionaries import Dictionaries
from serve_app.speech.longform.jobs import LongFormJobs
from serve_app.speech.metrics import Metrics
from serve_app.speech.service import SpeechService
from serve_app.surfaces.compat import CompatConfig
from serve_app.surfaces.native.protocol import ReplicaStatus


class Services(Protocol):
    config: IngressConfig
    compat: CompatConfig
    auth: Authenticator
    speech: SpeechService
    metrics: Metrics
    admission: Admission
    unauthenticated: PerAddress  # sockets still waiting for their key, by address
    dictionaries: Dictionaries
    voices: CustomVoices  # the projects' own voices
    jobs: LongFormJobs  # the projects' long-form jobs

    async def catalog(self) -> Catalog:
        """What the service offers now (cached)."""
        ...

    async def refresh_catalog(self) -> Catalog:
        """What the service offers, asked of the pipeline again."""
        ...

    def replica_status(self) -> ReplicaStatus:
        """What the answering replica holds open."""
        ...
