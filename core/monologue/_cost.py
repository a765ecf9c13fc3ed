"""What narrating a session cost: model requests and tokens (from the ``usage`` that
narratives and other narration events carry) and, where the model is in the small price
table below, dollars. A model not in the table is counted in tokens only, and named."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from .events import Event

__all__ = ["PRICES", "NarrationCost", "price_of"]

PRICES: Final[dict[str, tuple[float, float]]] = {
    # US dollars per million input and output tokens (Anthropic's list prices, 2025).
    "claude-haiku-4-5": (1.0, 5.0),
    "claude-3-5-haiku": (0.8, 4.0),
    "claude-3-haiku": (0.25, 1.25),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-3-7-sonnet": (3.0, 15.0),
    "claude-3-5-sonnet": (3.0, 15.0),
    "claude-opus-4-5": (5.0, 25.0),
    "claude-opus-4": (15.0, 75.0),
}
"""Prices by model name prefix; the longest matching prefix wins (dated ids match)."""
_CACHE_READ: Final = 0.1
_CACHE_WRITE: Final = 1.25
"""Cache reads and writes, as a fraction of the input price."""


def price_of(model: str | None) -> tuple[float, float] | None:
    """The input and output price per million tokens of ``model``; ``None`` if unknown."""
    if not model:
        return None
    matches = [prefix for prefix in PRICES if model.startswith(prefix)]
    return PRICES[max(matches, key=len)] if matches else None


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
        price = price_of(model if isinstance(model, str) else None)
        if price is None:
            name = model if isinstance(model, str) and model else "unknown"
            if name not in self.unpriced_models:
                self.unpriced_models.append(name)
            return
        per_input, per_output = price
        dollars = (
            tokens.get("input_tokens", 0) * per_input
            + reads * per_input * _CACHE_READ
            + writes * per_input * _CACHE_WRITE
            + tokens.get("output_tokens", 0) * per_output
        ) / 1e6
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
