"""One Messages API call with this plugin's retry policy and one hard deadline.

The SDK's own retries are off (``max_retries=0``): it would also retry 408, 409 and
connection errors, and would not know the narration deadline. Here only 429, 5xx and 529
answers are retried, at most ``max_retries`` times, waiting what ``retry-after`` (or
``retry-after-ms``) asks, else ``backoff_s`` doubling per attempt, never more than
``max_backoff_s`` and never past the deadline: a wait that would end after it is not
started. Each retry is one WARNING line on ``monologue.anthropic`` (the status, and the
retry to come); the final failure is raised as :class:`NarrationError`, a
:class:`~monologue.errors.NarratorFailure`, which the core logs as one WARNING line saying
what happens next (so it is logged here only at DEBUG).

The deadline is enforced by the transport, not only by the client's timeouts: httpx's read
timeout is per read, so a server that trickles one byte every half second would hold the
request (and its thread and socket) forever. A timer ends the request when the deadline
passes: it shuts down the socket of the answer being read (httpx's ``network_stream``
response extension, taken by a response hook once the headers are in), so the blocked read
returns at once and only that request ends; the client's other connections stay pooled for
every thread's next narration. Before the headers are in there is no socket to name: the
client's read timeout (the time left) bounds a silent server, and a server trickling its
headers gets the whole client closed and replaced.
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import logging
import socket
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from monologue.errors import NarratorFailure

if TYPE_CHECKING:
    import anthropic

    from .settings import AnthropicSettings

log = logging.getLogger("monologue.anthropic")

_local = threading.local()

_clients: dict[tuple[str | None, str], anthropic.Anthropic] = {}
_clients_lock = threading.Lock()

_CLOSE_GRACE_S = 0.05


class NarrationError(NarratorFailure, RuntimeError):
    """A narration request failed for good; the message says what the server did."""


def get_client(api_key: str, base_url: str | None) -> anthropic.Anthropic:
    """The shared client for ``(base_url, api_key)``: creating one per call is slow, and its
    connection pool is what lets narrations reuse a connection."""
    key = (base_url, api_key)
    with _clients_lock:
        client = _clients.get(key)
    if client is not None:
        return client
    import anthropic  # outside the lock: the first import takes seconds

    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = anthropic.Anthropic(
                api_key=api_key,
                base_url=base_url,
                max_retries=0,
                http_client=anthropic.DefaultHttpxClient(event_hooks={"response": [_watch_answer]}),
            )
        return client


def _discard_client(client: anthropic.Anthropic) -> None:
    """Close ``client`` and forget it: the next request makes a new one."""
    with _clients_lock:
        for key, known in list(_clients.items()):
            if known is client:
                del _clients[key]
    client.close()


def warm_up() -> None:
    """Import the SDK on a daemon thread, so that the first narration does not pay for it
    (importing ``anthropic`` takes seconds)."""
    threading.Thread(target=_import_sdk, name="monologue-anthropic-warm-up", daemon=True).start()


def _import_sdk() -> None:
    import anthropic  # noqa: F401


class _Deadline:
    """Ends the request when ``seconds`` pass, unless cancelled first: shuts down the socket
    of the answer being read, or, before the headers are in, closes and replaces ``client``.
    The calling thread's current deadline until cancelled."""

    def __init__(self, seconds: float, client: anthropic.Anthropic) -> None:
        self.fired = False
        self._client = client
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        _local.deadline = self
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._socket = sock
            fired = self.fired
        if fired:
            _shut_down(sock)

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            sock = self._socket
        if sock is not None:
            _shut_down(sock)
        else:
            _discard_client(self._client)

    def cancel(self) -> None:
        self._timer.cancel()
        _local.deadline = None


def _watch_answer(response: Any) -> None:
    """httpx response hook (headers received, body not yet read): the answer's socket is
    handed to this thread's deadline."""
    deadline: _Deadline | None = getattr(_local, "deadline", None)
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if deadline is not None and isinstance(sock, socket.socket):
        deadline.watch(sock)


def _shut_down(sock: socket.socket) -> None:
    # OSError: already closed by the other side, so nothing is blocked on it.
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def is_retryable(status: int) -> bool:
    """429 (rate limited), 5xx and 529 (overloaded) are worth another try; nothing else."""
    return status == 429 or 500 <= status <= 599


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds the server asks to wait: ``retry-after-ms``, or ``retry-after`` (seconds or
    an HTTP date); ``None`` when it asks nothing understandable."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(float(value) * scale, 0.0)
        except ValueError:
            pass
        parsed = email.utils.parsedate_tz(value)
        if parsed is not None:
            return max(email.utils.mktime_tz(parsed) - time.time(), 0.0)
    return None


def describe(exc: BaseException, url: str) -> str:
    """What went wrong, in one line a user can act on."""
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        # The API's error body: {"type": "error", "error": {"type": ..., "message": ...}}.
        error = exc.body.get("error") if isinstance(exc.body, dict) else None
        error = error if isinstance(error, dict) else {}
        kind = error.get("type") or "error"
        detail = error.get("message") or exc.message
        return f"HTTP {exc.status_code} {kind} from {url}: {detail}"
    if isinstance(exc, anthropic.APIConnectionError):
        return _connection_problem(exc, url)
    return f"malformed response from {url}: {type(exc).__name__}: {exc}"


def _connection_problem(exc: BaseException, url: str) -> str:
    """Tells a refused connection from one the server dropped, which ``APIConnectionError``
    does not: the first is "cannot connect", the second a server that went away mid-answer.
    Matched by name: the SDK's HTTP library is ``httpx`` or its fork ``httpx2`` by version."""
    cause = exc.__cause__
    kind = type(cause).__name__
    if kind == "ConnectError":
        return f"cannot connect to {url}: {cause}"
    if kind == "RemoteProtocolError":
        if "disconnected" in str(cause).lower():
            return f"the server at {url} closed the connection without a complete answer"
        return f"the server at {url} answered with something that is not HTTP: {cause}"
    if kind in ("ReadError", "WriteError"):
        return f"the connection to {url} broke during the request: {cause}"
    return f"connection to {url} failed: {cause or exc}"


def create_message(
    settings: AnthropicSettings,
    api_key: str,
    request: dict[str, Any],
    deadline: float,
) -> anthropic.types.Message:
    """``messages.create(**request)`` with the retry policy, finished by ``deadline``
    (a ``time.monotonic()`` value); raises :class:`NarrationError` when it gives up."""
    import anthropic

    base_url = settings.resolved_base_url()
    client = get_client(api_key, base_url)
    url = f"{str(client.base_url).rstrip('/')}/v1/messages"
    attempt = 0
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _give_up(f"no time left for a request to {url} (narrate_timeout_s)", attempt)
        # A little after the client's own timeout, so that a silent server still gets the
        # precise timeout error; the timer is for servers that keep the reads alive.
        deadline_watch = _Deadline(remaining + _CLOSE_GRACE_S, client)
        try:
            message: anthropic.types.Message = client.messages.create(**request, timeout=remaining)
        except anthropic.APIStatusError as exc:
            problem = describe(exc, url)
            delay, asked = _retry_delay(exc, problem, settings, attempt, deadline)
        except anthropic.APIConnectionError as exc:
            if deadline_watch.fired:
                problem = (
                    f"no complete answer from {url} in {remaining:.2g} s, the time left before "
                    "narrate_timeout_s; the connection was closed"
                )
            elif isinstance(exc, anthropic.APITimeoutError):
                problem = (
                    f"no answer from {url} in {remaining:.2g} s, the time left before "
                    "narrate_timeout_s"
                )
            else:
                problem = f"{describe(exc, url)} (not retried)"
            raise _give_up(problem, attempt) from exc
        except (anthropic.APIResponseValidationError, json.JSONDecodeError) as exc:
            raise _give_up(f"{describe(exc, url)} (not retried)", attempt) from exc
        else:
            if not isinstance(getattr(message, "content", None), list):
                problem = f"malformed response from {url}: the JSON body is not a Message"
                raise _give_up(f"{problem} (not retried)", attempt)
            return message
        finally:
            # Before any retry wait: a timer left running would close the next attempt's client.
            deadline_watch.cancel()
        attempt += 1
        log.warning(
            "anthropic narrator: %s; retry %d/%d in %.3g s%s",
            problem,
            attempt,
            settings.max_retries,
            delay,
            " (as retry-after asks)" if asked else "",
        )
        time.sleep(delay)


def _retry_delay(
    exc: anthropic.APIStatusError,
    problem: str,
    settings: AnthropicSettings,
    attempt: int,
    deadline: float,
) -> tuple[float, bool]:
    """Seconds to wait before retrying after ``exc``, and whether the server asked for that
    wait; raises :class:`NarrationError` when the policy says not to retry."""
    if not is_retryable(exc.status_code):
        raise _give_up(f"{problem} (not retried)", attempt) from exc
    if attempt >= settings.max_retries:
        raise _give_up(problem, attempt) from exc
    asked = retry_after(exc.response.headers)
    if asked is None:
        delay = min(settings.backoff_s * 2**attempt, settings.max_backoff_s)
    elif asked > settings.max_backoff_s:
        raise _give_up(
            f"{problem}; retry-after {asked:g} s is longer than "
            f"anthropic_max_backoff_s ({settings.max_backoff_s:g} s)",
            attempt,
        ) from exc
    else:
        delay = asked
    if time.monotonic() + delay >= deadline:
        raise _give_up(
            f"{problem}; waiting {delay:.3g} s to retry would pass the narration deadline "
            "(narrate_timeout_s)",
            attempt,
        ) from exc
    return delay, asked is not None


def _give_up(problem: str, retries: int) -> NarrationError:
    attempts = f"{retries + 1} attempt{'s' if retries else ''}"
    log.debug("anthropic narrator: giving up after %s: %s", attempts, problem)
    return NarrationError(f"{problem} (after {attempts})")
