"""Everything an ingress replica holds: config, stores, the pipeline and the catalog."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable

import psutil

from deployments.normaliser import LanguagePolicy
from serve_app.accounts import AccountStore, ensure_dev_project
from serve_app.http.auth import Authenticator
from serve_app.http.errors import ServiceError
from serve_app.ingress.placement import SYNTHESISER
from serve_app.settings import IngressConfig
from serve_app.speech.admission import Admission, PerAddress
from serve_app.speech.audio_store import open_store
from serve_app.speech.billing import Meter
from serve_app.speech.cache import MemoryCache, ProjectSettings, SharedStore, SpeechCache
from serve_app.speech.catalog import Catalog
from serve_app.speech.custom_voices import CustomVoices
from serve_app.speech.dictionaries import Dictionaries
from serve_app.speech.longform.jobs import PROJECT_ROOT, LongFormJobs
from serve_app.speech.longform.webhooks import WebhookSender
from serve_app.speech.longform.work import ChunkSpeaker, JobWorker
from serve_app.speech.metrics import Metrics, NullMetrics
from serve_app.speech.pipeline import Pipeline
from serve_app.speech.service import SpeechService
from serve_app.speech.warm_up import speak_unbilled
from serve_app.surfaces.compat import CompatConfig
from serve_app.surfaces.native.protocol import ReplicaStatus, SpeechCacheStatus

logger = logging.getLogger("serve_app")

# Where in the long-form jobs' audio store the speech cache keeps its entries.
SHARED_CACHE_FOLDER = "speech-cache"
# A warm-up waits this long for the stages behind the ingress to start.
WARM_UP_TIMEOUT_S = 120.0


def speech_cache(config: IngressConfig, ledger: AccountStore) -> SpeechCache | None:
    """The replica's speech cache as ``config`` sizes it, over the long-form jobs'
    audio store where it is shared, each project's settings read from ``ledger``;
    None where it has no memory."""
    if not config.speech_cache_mb:
        return None
    memory = MemoryCache(config.speech_cache_mb << 20, config.speech_cache_ttl_s)
    shared = None
    if config.speech_cache_shared:
        location = config.longform_audio_path.rstrip("/") + "/" + SHARED_CACHE_FOLDER
        audio = open_store(location, PROJECT_ROOT, config.longform_s3_endpoint_url)
        shared = SharedStore(audio, config.speech_cache_ttl_s)
    return SpeechCache(memory, config.model_id, shared, ProjectSettings(ledger))


class IngressState:
    """Built once per replica from startup config and the pipeline's stages."""

    def __init__(
        self,
        config: IngressConfig,
        pipeline: Pipeline,
        metrics: Metrics | None = None,
        stages: dict[str, str] | None = None,
        replicas: Callable[[], dict[str, int]] | None = None,
    ) -> None:
        self.config = config
        self.policy = LanguagePolicy.from_file(config.language_policy_path)
        self.compat = CompatConfig.from_file(config.compat_path)
        self.store = AccountStore.open(config.database_url)
        if config.dev_api_key:
            ensure_dev_project(
                self.store, config.dev_api_key, config.dev_starting_balance_deci_micros
            )
        self.pipeline = pipeline
        self.stages = stages or {}
        self._replicas = replicas
        self.auth = Authenticator(self.store)
        self.meter = Meter(self.store, config)
        self.metrics: Metrics = metrics or NullMetrics()
        self.admission = Admission(config.max_active_requests)
        self.unauthenticated = PerAddress(config.ws_max_unauthenticated_per_address)
        self.voices = CustomVoices(self.store)
        self.dictionaries = Dictionaries(self.store)
        cache = speech_cache(config, self.store)
        if cache is not None:
            self.voices.on_change.append(cache.forget)
            self.dictionaries.on_change.append(cache.forget)
        self.speech = SpeechService(
            self.pipeline,
            self.catalog,
            self.meter,
            config,
            self.admission,
            self.metrics,
            self.voices,
            self.dictionaries,
            cache,
        )
        self.jobs = LongFormJobs(self.speech, self.store, self.meter, config)
        self._catalog: Catalog | None = None
        self._catalog_lock = asyncio.Lock()
        self.warmed_up_s: float | None = None

    def job_worker(self) -> JobWorker:
        """What speaks long-form jobs' chunks from this replica."""
        jobs = self.jobs
        speaker = ChunkSpeaker(self.speech, self.store, self.meter, jobs.audio_store, jobs.prepare)
        config = self.config
        return JobWorker(
            speaker,
            self.store,
            config.longform_chunks_at_once,
            config.hold_lease_s,
            wakeup=jobs.submitted,
            ended=jobs.ended,
        )

    def webhook_sender(self) -> WebhookSender:
        """What sends ended jobs' webhooks from this replica."""
        jobs = self.jobs
        private = self.config.webhook_private_addresses
        return WebhookSender(self.store, jobs.job, private, wakeup=jobs.ended)

    async def warm_up(self, timeout_s: float = WARM_UP_TIMEOUT_S) -> float | None:
        """Serve one request's path before this replica takes any (``make run`` prints
        its ready line, and Serve routes to a replica, only once every replica's
        ``__init__`` is done): the catalog from the Synthesiser, a key looked up in
        the ledger, and :func:`speak_unbilled`. Returns the seconds it took, or
        None if it failed or ran out of time (logged: the replica still starts, and a
        request that meets the same failure says so)."""
        started = time.perf_counter()
        try:
            async with asyncio.timeout(timeout_s):
                await self.catalog()
                # a key that is not there: the ledger's read path, answered 401
                with contextlib.suppress(ServiceError):
                    await self.auth.authorise(f"Bearer sk-warm-up-{secrets.token_hex(8)}", None)
                await speak_unbilled(self.speech)
        except Exception:
            logger.warning("warming up the ingress failed; starting cold", exc_info=True)
            return None
        self.warmed_up_s = round(time.perf_counter() - started, 3)
        logger.info("ingress warmed up in %.2f s", self.warmed_up_s)
        return self.warmed_up_s

    async def catalog(self) -> Catalog:
        """The catalog, built from the engines on first use and then kept."""
        if self._catalog is None:
            async with self._catalog_lock:
                if self._catalog is None:
                    await self.refresh_catalog()
        assert self._catalog is not None
        return self._catalog

    async def refresh_catalog(self) -> Catalog:
        """Ask the pipeline what is loaded now (raises ``ServiceError`` if it cannot
        answer). A Synthesiser deployment scaled to zero is not asked (that would start
        a replica): what it last said stands, marked as scaled to zero."""
        replicas = await self.replica_counts()
        loaded = await self.pipeline.synthesisers(remote_running=replicas.get(SYNTHESISER) != 0)
        self._catalog = Catalog(self.config, self.policy, loaded, self.stages, replicas)
        return self._catalog

    async def replica_counts(self) -> dict[str, int]:
        """Running replicas per deployment, if Serve can say (empty outside Serve)."""
        if self._replicas is None:
            return {}
        try:
            return await asyncio.to_thread(self._replicas)
        except Exception:
            logger.warning("could not read the replica counts", exc_info=True)
            return {}

    def replica_status(self) -> ReplicaStatus:
        """What this replica holds open now: tasks, descriptors, threads, requests."""
        process = psutil.Process()
        cache = self.speech.cache
        memory = cache.memory.stats if cache is not None else None
        return ReplicaStatus(
            asyncio_tasks=len(asyncio.all_tasks()),
            open_fds=process.num_fds(),
            threads=process.num_threads(),
            active_requests=self.admission.active,
            warm_up_s=self.warmed_up_s,
            speech_cache=SpeechCacheStatus(
                entries=memory.entries, bytes=memory.bytes, evictions=memory.evictions
            )
            if memory is not None
            else None,
        )
