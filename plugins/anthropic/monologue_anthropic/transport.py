"""One Messages API call with this plugin's retry policy, on pooled SDK clients.

The SDK's own retries are off (``max_retries=0``): it would also retry 408, 409 and
connection errors, and would not know the narration deadline. Here only 429, 5xx and 529
answers are retried, at most ``max_retries`` times, waiting what ``retry-after`` (or
``retry-after-ms``) asks, else ``backoff_s`` doubling per attempt, never more than
``max_backoff_s`` and never past the deadline: a wait that would end after it is not
started. Each retry and the final failure are logged on ``monologue.anthropic``; the final
failure is raised as :class:`NarrationError` for the core to record.
"""

from __future__ import annotations

import email.utils
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import anthropic

    from .settings import AnthropicSettings

log = logging.getLogger("monologue.anthropic")

MAX_CLIENTS = 8
"""Clients kept for reuse (one per base URL and key); connection pools live in them."""

_clients: OrderedDict[tuple[str | None, str], anthropic.Anthropic] = OrderedDict()
_clients_lock = threading.Lock()


class NarrationError(RuntimeError):
    """A narration request failed for good; the message says what the server did."""


def get_client(api_key: str, base_url: str | None) -> anthropic.Anthropic:
    """A shared client for ``(base_url, api_key)``: creating one per call is slow."""
    key = (base_url, api_key)
    with _clients_lock:
        client = _clients.get(key)
        if client is not None:
            _clients.move_to_end(key)
            return client
    import anthropic  # outside the lock: the first import takes seconds

    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = anthropic.Anthropic(
                api_key=api_key, base_url=base_url, max_retries=0
            )
            while len(_clients) > MAX_CLIENTS:
                # Not closed: a session may still be using it; its pool goes with it.
                _clients.popitem(last=False)
        return client


def warm_up(api_key: str, base_url: str | None) -> None:
    """Import the SDK and create the client on a daemon thread, so that the first
    narration does not pay for it (importing ``anthropic`` takes seconds)."""
    with _clients_lock:
        if (base_url, api_key) in _clients:
            return
    threading.Thread(
        target=get_client, args=(api_key, base_url), name="monologue-anthropic-warm-up", daemon=True
    ).start()


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
        cause = exc.__cause__
        return f"cannot connect to {url}: {cause or exc.message}"
    return f"malformed response from {url}: {type(exc).__name__}: {exc}"


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
        try:
            message: anthropic.types.Message = client.messages.create(**request, timeout=remaining)
            if not isinstance(getattr(message, "content", None), list):
                problem = f"malformed response from {url}: the JSON body is not a Message"
                raise _give_up(f"{problem} (not retried)", attempt)
            return message
        except anthropic.APIStatusError as exc:
            problem = describe(exc, url)
            delay, asked = _retry_delay(exc, problem, settings, attempt, deadline)
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
        except anthropic.APITimeoutError as exc:
            problem = (
                f"no answer from {url} in {remaining:.2g} s, the time left before narrate_timeout_s"
            )
            raise _give_up(problem, attempt) from exc
        except anthropic.APIConnectionError as exc:
            raise _give_up(f"{describe(exc, url)} (not retried)", attempt) from exc
        except (anthropic.APIResponseValidationError, json.JSONDecodeError) as exc:
            raise _give_up(f"{describe(exc, url)} (not retried)", attempt) from exc


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
    log.warning("anthropic narrator: giving up after %s: %s", attempts, problem)
    return NarrationError(f"{problem} (after {attempts})")
