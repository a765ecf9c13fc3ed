"""What narrating a session cost: model requests and tokens (from the ``usage`` that
narratives and other narration events carry) and, where the model's price is known, dollars.

Prices come from pydantic's maintained ``genai-prices`` data (bundled with the package: no
request is made), imported only when an event carries usage, since its data takes about a
second to load and the offline narrator never reports any. A model it does not know is
counted in tokens only, and named."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from monologue.events import Event

__all__ = ["NarrationCost", "dollars_of"]


def dollars_of(model: str | None, tokens: Mapping[str, int]) -> float | None:
    """What one request to ``model`` cost, from its ``usage`` counters (Anthropic's names:
    ``input_tokens`` excludes the cache's reads and writes); ``None`` if the price is unknown."""
    if not model:
        return None
    from genai_prices import Usage, calc_price

    reads = tokens.get("cache_read_input_tokens", 0)
    writes = tokens.get("cache_creation_input_tokens", 0)
    usage = Usage(
        # genai-prices counts cache tokens as part of the input.
        input_tokens=tokens.get("input_tokens", 0) + reads + writes,
        output_tokens=tokens.get("output_tokens", 0),
        cache_read_tokens=reads,
        cache_write_tokens=writes,
    )
    try:
        return float(calc_price(usage, model_ref=model).total_price)
    except LookupError:
        return None


class NarrationCost(BaseModel):
    """Requests, tokens and (where every model is priced) dollars of one session's
    narration."""

    requests: int = 0
    """Narration events that report a model's ``usage``: one model request each."""
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = None
    """Dollars for the priced models; ``None`` when no request was priced."""
    unpriced_models: list[str] = Field(default_factory=list)
    """Models with usage but no price here (``"unknown"`` when the event names none): their
    tokens are counted, their cost is not."""

    def add(self, event: Event) -> None:
        """Count one narration event (one without ``usage`` costs nothing)."""
        usage = event.data.get("usage")
        if not isinstance(usage, dict):
            return
        tokens = {key: value for key, value in usage.items() if isinstance(value, int)}
        self.requests += 1
        self.input_tokens += tokens.get("input_tokens", 0)
        self.output_tokens += tokens.get("output_tokens", 0)
        reads = tokens.get("cache_read_input_tokens", 0)
        writes = tokens.get("cache_creation_input_tokens", 0)
        self.cache_read_tokens += reads
        self.cache_write_tokens += writes
        model = event.data.get("model")
        dollars = dollars_of(model if isinstance(model, str) else None, tokens)
        if dollars is None:
            name = model if isinstance(model, str) and model else "unknown"
            if name not in self.unpriced_models:
                self.unpriced_models.append(name)
            return
        self.cost_usd = round((self.cost_usd or 0.0) + dollars, 6)

    def describe(self) -> str:
        """``3 narration requests, 1,200 tokens in, 90 out, $0.0017``, saying what is not
        priced; ``""`` when no request was made."""
        if not self.requests:
            return ""
        noun = "request" if self.requests == 1 else "requests"
        text = (
            f"{self.requests} narration {noun}, {self.input_tokens:,} tokens in, "
            f"{self.output_tokens:,} out"
        )
        if self.cost_usd is not None:
            text += f", ${self.cost_usd:.4f}"
        if self.unpriced_models:
            names = ", ".join(self.unpriced_models)
            text += f" (no price for {names}: tokens only)"
        return text
