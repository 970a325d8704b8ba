"""Webhooks of long-form jobs: when a job ends (done, failed or cancelled) its final
state is POSTed to the job's ``webhook_url``, signed as Standard Webhooks sign
(https://www.standardwebhooks.com: the headers ``webhook-id``, ``webhook-timestamp``
and ``webhook-signature``, an HMAC-SHA256 with the project's ``whsec_`` secret), so
that the receiver checks it with any of that spec's libraries or with the OpenAI
SDK's ``client.webhooks.verify_signature``.

Every ingress replica runs a :class:`WebhookSender`; the accounts database hands each
due webhook to one of them at a time (``serve_app.accounts.longform.webhooks``), the project
with the fewest on their way first. A receiver that does not answer 2xx is tried
again, later each time, for about five hours.

What a receiver can do to the service is bounded: a try ends after
:data:`SEND_TIMEOUT_S` however slowly the answer comes, the answer's body is never
read (its status is all that counts), and a replica has :data:`SENDS_AT_ONCE` tries
on their way at once, so that slow receivers of one project do not hold another's.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import ipaddress
import json
import logging
import ssl
import time
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from urllib.parse import urlsplit

import httpx

from serve_app.accounts import AccountStore
from serve_app.accounts.longform.webhooks import SECRET_PREFIX, DueWebhook
from serve_app.http.errors import InvalidRequest, NotFound
from serve_app.speech.longform import idle_waits
from serve_app.speech.longform.idle_waits import IdleWait, Wakeup
from serve_app.speech.longform.vocabulary import SpeechJob

logger = logging.getLogger(__name__)
# Seconds before each try after a failed one: 7 tries over about five hours.
RETRY_AFTER_S = (5.0, 30.0, 120.0, 600.0, 3600.0, 14_400.0)
# A receiver has this long to answer, in all (connecting, sending, its status and
# headers); a try claimed this long ago is anyone's again.
SEND_TIMEOUT_S = 10.0
LEASE_S = 60.0
# Tries a replica has on their way at once.
SENDS_AT_ONCE = 8
# Addresses that carry an IPv4 address in an IPv6 one: judged by the IPv4 address.
NAT64 = ipaddress.ip_network("64:ff9b::/96")
# Never public, whatever ``is_global`` says: IPv4-compatible IPv6 (deprecated, the
# IPv4 address in its last 32 bits), local-use NAT64, site-local (deprecated).
NOT_PUBLIC = (
    ipaddress.ip_network("::/96"),
    ipaddress.ip_network("64:ff9b:1::/48"),
    ipaddress.ip_network("fec0::/10"),
)
IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
USER_AGENT = "speech-service-webhooks/1"


def signed_headers(secret: str, event_id: str, body: bytes, at: int) -> dict[str, str]:
    """The Standard Webhooks headers of ``body`` sent at Unix time ``at``."""
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    signed = f"{event_id}.{at}.".encode() + body
    digest = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return {
        "webhook-id": event_id,
        "webhook-timestamp": str(at),
        "webhook-signature": f"v1,{digest}",
    }


async def check_webhook_url(url: str, private_allowed: bool) -> None:
    """400 ``invalid_value`` (field ``webhook_url``) for a URL the service will not
    call: not http(s), no host, or (unless ``private_allowed``) a host that is or
    resolves to a loopback, private, link-local or otherwise non-public address."""
    if problem := await _refusal(url, private_allowed):
        raise InvalidRequest("invalid_value", f"webhook_url {problem}.", "webhook_url")


async def _refusal(url: str, private_allowed: bool) -> str | None:
    problem, _ = await _checked(url, private_allowed)
    return problem


async def _checked(url: str, private_allowed: bool) -> tuple[str | None, str | None]:
    """Why the service will not call ``url`` (None if it will), and the address it
    calls it at: the first of the public addresses its host resolves to, where only
    public ones are allowed (the connection goes there, not to what the name resolves
    to a moment later: a name that answers a public address to the check and a
    private one to the connection reaches nothing), else None (called by its name)."""
    if any(c.isspace() or unicodedata.category(c) == "Cc" for c in url):
        return "holds a space or a control character", None
    try:
        parts = urlsplit(url)
        port = parts.port
        httpx.URL(url)  # what the sender will parse it with
    except (ValueError, httpx.InvalidURL) as e:
        return f"is not a URL ({e})", None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an http:// or https:// URL with a host", None
    if private_allowed:
        return None, None
    try:
        found = await asyncio.get_running_loop().getaddrinfo(
            parts.hostname, port or (443 if parts.scheme == "https" else 80)
        )
    except OSError:
        return f"names a host that does not resolve ({parts.hostname})", None
    addresses = [str(address[0]).partition("%")[0] for *_, address in found]
    for address in addresses:
        if not public(ipaddress.ip_address(address)):
            return (
                f"resolves to {address}, not a public address (the service's "
                "webhook_private_addresses setting allows it)"
            ), None
    return (None, addresses[0]) if addresses else (f"names no address ({parts.hostname})", None)


def public(address: IpAddress) -> bool:
    """Whether ``address`` is a public unicast one: global, not multicast, and where
    it carries an IPv4 address (mapped, 6to4, NAT64), that one public too."""
    if address.is_multicast or not address.is_global:
        return False
    if isinstance(address, ipaddress.IPv4Address):
        return True
    if any(address in network for network in NOT_PUBLIC):
        return False
    carried = address.ipv4_mapped or address.sixtofour
    if carried is None and address in NAT64:
        carried = ipaddress.IPv4Address(int(address) & 0xFFFF_FFFF)
    return carried is None or public(carried)


class WebhookSender:
    """Sends due webhooks, several at once, until cancelled."""

    def __init__(
        self,
        store: AccountStore,
        job: Callable[[str, str], Awaitable[SpeechJob]],
        private_allowed: bool,
        retry_after_s: Sequence[float] = RETRY_AFTER_S,
        wakeup: Wakeup | None = None,
        idle_s: float = idle_waits.FIRST_S,
        most_idle_s: float = idle_waits.MOST_S,
        timeout_s: float = SEND_TIMEOUT_S,
        at_once: int = SENDS_AT_ONCE,
        verify: ssl.SSLContext | bool = True,
    ) -> None:
        """``wakeup``: woken when a job ends in this process (its webhook is sent at
        once); one that ends in another, or a try due again, is found within
        ``most_idle_s`` (the first retry waits longer than that). ``timeout_s``: a
        try's whole time; ``at_once``: tries on their way at once; ``verify``: how
        receivers' certificates are checked (the public CAs', by default)."""
        self._store = store
        self._job = job  # (job id, project id) -> the job as its owner sees it
        self._private_allowed = private_allowed
        self._retry_after_s = retry_after_s
        self._timeout_s = timeout_s
        self._at_once = at_once
        self._verify = verify
        self._idle = IdleWait(wakeup or Wakeup(), idle_s, most_idle_s)

    async def run(self) -> None:
        """Claim due webhooks and send each on its own task, :data:`SENDS_AT_ONCE` at
        most on their way; never ends but by being cancelled."""
        slots = asyncio.Semaphore(self._at_once)
        sending: set[asyncio.Task[None]] = set()  # the loop holds tasks weakly
        async with httpx.AsyncClient(
            timeout=self._timeout_s, follow_redirects=False, trust_env=False, verify=self._verify
        ) as client:
            try:
                while True:
                    await slots.acquire()
                    due = await self._claim()
                    if due is None:
                        slots.release()
                        await self._idle.rest()
                        continue
                    self._idle.found()
                    task = asyncio.create_task(self.send(client, due))
                    sending.add(task)
                    task.add_done_callback(sending.discard)
                    task.add_done_callback(lambda _: slots.release())
            finally:
                for task in sending:  # their claims run out; another replica sends them
                    task.cancel()

    async def _claim(self) -> DueWebhook | None:
        store = self._store
        try:
            return await store.call(store.claim_webhook, LEASE_S)
        except Exception:  # the database away a moment: wait, not end
            logger.exception("claiming a webhook failed; retrying")
            return None

    async def send(self, client: httpx.AsyncClient, due: DueWebhook) -> None:
        """One try of ``due``, its outcome recorded: delivered, tried again later, or
        failed (its tries spent, its URL now refused, its job deleted). Whatever the
        receiver does, the try ends within the timeout and is recorded."""
        status, error, final = None, None, False
        try:
            body = await self._event(due)
            async with asyncio.timeout(self._timeout_s):
                problem, address = await _checked(due.url, self._private_allowed)
                if problem is None:
                    status = await self._post(client, due, body, address)
            if problem is not None:
                error, final = f"webhook_url {problem}", True
            elif status is not None and not 200 <= status < 300:
                error = f"the receiver answered {status}"
        except NotFound:  # deleted while it was due: nothing to tell
            error, final = "the job was deleted", True
        except TimeoutError:
            error = f"the receiver did not answer within {self._timeout_s:g} s"
        except httpx.HTTPError as e:
            error = f"{type(e).__name__}: {e}"[:500]
        except Exception as e:  # not the receiver's doing: recorded, and the sender goes on
            logger.exception("sending the webhook of job %s failed", due.job_id)
            error = f"internal error ({type(e).__name__})"
        tries = due.attempts + 1
        retry_at = None
        if error is not None and not final and tries <= len(self._retry_after_s):
            retry_at = time.time() + self._retry_after_s[tries - 1]
        if error is not None:
            logger.info("webhook of job %s, try %d: %s", due.job_id, tries, error)
        store = self._store
        try:
            await store.call(store.webhook_sent, due.job_id, status, error, retry_at)
        except Exception:  # its claim runs out: it is tried again
            logger.exception("recording the webhook of job %s failed", due.job_id)

    async def _post(
        self, client: httpx.AsyncClient, due: DueWebhook, body: bytes, address: str | None
    ) -> int:
        """POST the event, to ``address`` where given (the URL's host named in its Host
        header and, for https, in TLS's server name, against which the certificate is
        checked); the receiver's status, its answer's body left unread."""
        headers = signed_headers(due.secret, due.event_id, body, int(time.time()))
        headers |= {"content-type": "application/json", "user-agent": USER_AGENT}
        url = httpx.URL(due.url)
        extensions = {}
        if address is not None:
            headers["host"] = url.netloc.decode("ascii")
            if url.scheme == "https":
                extensions["sni_hostname"] = url.raw_host.decode("ascii")  # IDNA: its A-label
            url = url.copy_with(host=address)
        async with client.stream(
            "POST", url, content=body, headers=headers, extensions=extensions
        ) as answer:
            return answer.status_code

    async def _event(self, due: DueWebhook) -> bytes:
        """The event sent: the job as GET /v1/speech/jobs/{id} answers it."""
        job = await self._job(due.job_id, due.project_id)
        event = {
            "id": due.event_id,
            "object": "event",
            "type": f"speech.job.{job.state}",
            "created_at": int(job.finished_at or time.time()),
            "data": job.model_dump(mode="json"),
        }
        return json.dumps(event, ensure_ascii=False).encode()
