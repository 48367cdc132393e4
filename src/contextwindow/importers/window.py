"""The context window a session ran with, and where that number comes from (``log`` | ``registry`` |
``assumed``), so every gauge of an imported session (inspect, sessions show, replay, the TUI) agrees.

- Codex rollouts state it: ``token_count.info.model_context_window`` → ``log``.
- Claude Code runs with a 200,000-token window unless the log shows more: a call whose reported
  prompt is above 200k, or a logged compaction whose ``preTokens`` is, means the larger (1M) window
  was in use → the registry's window of the model, source ``log``. Otherwise 200,000 → ``assumed``
  (the registry lists 1,000,000 for some Claude models, which Claude Code only uses when asked).
- A Codex rollout that states no window and names no model (Codex Desktop writes such rollouts, with
  no ``turn_context`` and no ``token_count``) ran on one of Codex's GPT-5 models, whose window every
  Codex rollout that states one gives as 258,400 (272,000 at Codex's 95% effective share) → ``assumed``
  (before: the default 128,000, which such a rollout's own history can exceed).
- Other logs: the registry's window of the model the log names → ``registry``; an unknown model →
  the default window → ``assumed``.
"""

from __future__ import annotations

from ..models import DEFAULT_WINDOW, find_model
from .model import ImportedSession

CLAUDE_CODE_WINDOW = 200_000
#: What Codex states as ``model_context_window`` for its GPT-5 models (272,000 x 95%).
CODEX_WINDOW = 258_400


def session_window(s: ImportedSession) -> tuple[int, str]:
    """``(window, source)`` of an imported session."""
    logged = s.meta.get("model_context_window")
    if isinstance(logged, int) and not isinstance(logged, bool) and logged > 0:
        return logged, "log"
    spec = find_model(s.model)
    reg = spec.context_window if spec is not None else None
    if s.format == "claude-code":
        seen = max(
            [c.reported_input_tokens or 0 for c in s.calls] + [cp.pre_tokens or 0 for cp in s.checkpoints] + [0]
        )
        if seen > CLAUDE_CODE_WINDOW:
            return max(reg or 0, 1_000_000 if seen <= 1_000_000 else seen), "log"
        return CLAUDE_CODE_WINDOW, "assumed"
    if reg is not None:
        return reg, "registry"
    if s.format == "codex" and not s.model:
        return CODEX_WINDOW, "assumed"
    return DEFAULT_WINDOW, "assumed"


def window_text(window: int, source: str) -> str:
    """``window 258,400 (from the log)`` and the like."""
    where = {"log": "from the log", "registry": "from the model registry", "assumed": "assumed", "option": "given",
             "proxy --window": "given to ctxw proxy", "ctxw proxy": "ctxw proxy's"}.get(source, source)
    return f"window {window:,} ({where})"


#: The model whose tokenizer stands in when a Codex rollout names none: Codex runs OpenAI models,
#: whose current vocabulary is o200k_base (a Claude-like estimate would be 20-25% high).
CODEX_TOKENIZER_MODEL = "gpt-5"


def tokenizer_model(s: ImportedSession) -> str | None:
    """The model name to pick a token counter by: the log's, else Codex's (o200k) for a rollout."""
    if s.model:
        return s.model
    if s.format == "codex":
        return CODEX_TOKENIZER_MODEL
    return None
