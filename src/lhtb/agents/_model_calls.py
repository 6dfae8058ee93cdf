"""Calling a chat-completions endpoint: retries, timeouts, typed errors, usage and prices.

Policy (see :class:`RetryPolicy`): rate limits (429) and server errors (5xx),
connection failures and calls that exceed the per-call timeout are retried
with exponential backoff and jitter; a ``Retry-After`` header is honoured
when present. Authentication and permission errors fail at once with
:class:`ModelAuthError`. A context-length error is raised as
:class:`ContextLengthError` so the caller can shrink the conversation. Any
other client error (400, 404, 422, an exhausted quota) is a
:class:`ModelCallError` without retries.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import anyio
import attrs

from lhtb.errors import ContextLengthError, ModelAuthError, ModelCallError

if TYPE_CHECKING:  # openai is imported where a model is called: `import lhtb` stays fast
    import openai
    from openai.types.chat import ChatCompletion

__all__ = [
    "ModelPrice",
    "RetryPolicy",
    "call_usage",
    "complete",
    "price_of",
]

_CONTEXT_MARKERS = (
    "context_length_exceeded",
    "context length",
    "context window",
    "maximum context",
    "too many tokens",
    "prompt is too long",
    "reduce the length",
)


@attrs.frozen
class RetryPolicy:
    """How model calls are retried and bounded (seconds)."""

    max_attempts: int = attrs.field(default=6, validator=attrs.validators.ge(1))
    initial_backoff_sec: float = 1.0
    max_backoff_sec: float = 60.0
    max_retry_after_sec: float = 300.0
    """A longer ``Retry-After`` is cut to this."""
    call_timeout_sec: float = 600.0
    """Overall bound on one HTTP call, however slowly the server streams."""


@attrs.frozen
class ModelPrice:
    """USD per million tokens. ``cached_input`` defaults to the ``input`` price."""

    input: float = attrs.field(validator=attrs.validators.ge(0.0))
    output: float = attrs.field(validator=attrs.validators.ge(0.0))
    cached_input: float | None = None


def price_of(
    prices: Mapping[str, ModelPrice] | ModelPrice | None, *models: str | None
) -> ModelPrice | None:
    """The first price found for any of ``models`` (a single price applies to all)."""
    if prices is None or isinstance(prices, ModelPrice):
        return prices
    for model in models:
        if model and model in prices:
            return prices[model]
    return None


@attrs.frozen
class CallUsage:
    """Tokens of one call and its cost (``None`` when the price or the usage is unknown)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = None
    reported: bool = False


def call_usage(completion: ChatCompletion, price: ModelPrice | None) -> CallUsage:
    """Read the usage block of a response and price it."""
    usage = completion.usage
    if usage is None:
        return CallUsage()
    prompt = max(0, int(usage.prompt_tokens or 0))
    output = max(0, int(usage.completion_tokens or 0))
    details = usage.prompt_tokens_details
    cached = min(prompt, max(0, int((details.cached_tokens if details else 0) or 0)))
    cost = None
    if price is not None:
        cached_price = price.input if price.cached_input is None else price.cached_input
        cost = (
            (prompt - cached) * price.input + cached * cached_price + output * price.output
        ) / 1e6
    return CallUsage(prompt, output, cached, cost, reported=True)


def _is_context_error(error: openai.APIStatusError) -> bool:
    body = error.body if isinstance(error.body, dict) else {}
    code = str(body.get("code") or getattr(error, "code", "") or "")
    text = f"{code} {error.message}".lower()
    return any(marker in text for marker in _CONTEXT_MARKERS)


def _retry_after(error: openai.APIStatusError) -> float | None:
    headers = error.response.headers
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / scale
        except ValueError:
            continue  # an HTTP date: fall back to backoff
        if math.isfinite(seconds) and seconds >= 0:
            return seconds
    return None


def _backoff(policy: RetryPolicy, attempt: int) -> float:
    base = min(policy.max_backoff_sec, policy.initial_backoff_sec * 2.0 ** (attempt - 1))
    jitter: float = random.random()
    return base * (0.5 + jitter / 2)


async def complete(
    client: openai.AsyncOpenAI,
    request: Mapping[str, Any],
    *,
    policy: RetryPolicy,
    log: Any,
) -> ChatCompletion:
    """One chat completion, retried by ``policy``.

    Raises:
        ModelAuthError: 401/403; retrying cannot help.
        ContextLengthError: the prompt is longer than the model accepts.
        ModelCallError: any other failure, or retries exhausted.
    """
    import openai  # noqa: PLC0415 - heavy; only when a model is called

    where = f"model {request.get('model')!r}"
    attempt = 0
    while True:
        attempt += 1
        delay: float | None = None
        try:
            with anyio.fail_after(policy.call_timeout_sec):
                completion: ChatCompletion = await client.chat.completions.create(**request)
                return completion
        except (openai.AuthenticationError, openai.PermissionDeniedError) as error:
            raise ModelAuthError(
                f"the endpoint refused the credentials ({error.status_code}: {error.message})",
                where=where,
                fix="Check OPENAI_API_KEY (or api_key=) and the base URL",
            ) from error
        except openai.RateLimitError as error:
            body = error.body if isinstance(error.body, dict) else {}
            if body.get("code") == "insufficient_quota" or "insufficient_quota" in error.message:
                raise ModelCallError(
                    f"quota exhausted: {error.message}", where=where, fix="Add credit or quota"
                ) from error
            delay = _retry_after(error)
            reason = "rate_limited"
        except openai.APIStatusError as error:
            if error.status_code >= 500:
                delay = _retry_after(error)
                reason = f"server_error_{error.status_code}"
            elif _is_context_error(error):
                raise ContextLengthError(error.message, where=where) from error
            else:
                raise ModelCallError(
                    f"the endpoint rejected the request ({error.status_code}: {error.message})",
                    where=where,
                    fix="Check the model name and the request options",
                ) from error
        except (openai.APIConnectionError, TimeoutError) as error:
            reason = "timeout" if isinstance(error, TimeoutError) else "connection_error"
        if attempt >= policy.max_attempts:
            raise ModelCallError(
                f"gave up after {attempt} attempts (last: {reason})",
                where=where,
                fix="Check that the endpoint is up; raise RetryPolicy.max_attempts",
            )
        if delay is None:
            delay = _backoff(policy, attempt)
        delay = min(delay, policy.max_retry_after_sec)
        log.warning("model_call_retry", reason=reason, attempt=attempt, sleep_sec=round(delay, 3))
        await anyio.sleep(delay)
