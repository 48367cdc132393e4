"""From options (what ``ctxw run`` and ``ctxw chat`` take) to a model, a Session and an Agent.

- ``provider`` ``openai`` (any ``/chat/completions`` server) or ``anthropic`` (Messages API);
- the API key is read from ``api_key_env`` (default ``OPENAI_API_KEY`` / ``ANTHROPIC_API_KEY``);
  a hosted API without one is a ConfigError naming the variable, a local or custom base URL
  works without a key (nothing is sent);
- the window comes from the model registry by name, or ``window`` for a model it does not know;
- ``resume`` is a conversation id or ``last`` (the newest conversation of the store).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

from ..admission import Admission, admit
from ..admission.sections import Section
from ..errors import ConfigError, NotFoundError, UnknownModelError
from ..events import EventBus
from ..store import ConversationStore, open_store
from .loop import Agent
from .tools import Toolbox

Provider = Literal["openai", "anthropic"]
DEFAULT_BASE_URLS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
HOSTED = frozenset({"api.openai.com", "api.anthropic.com"})

AGENT_PROMPT = """You are a coding agent working in the directory {cwd}.
Use the tools to look before you change anything: list_dir, read_file and grep to read; edit_file and
write_file to change files; bash to run commands (tests, builds, git). Paths are relative to the working
directory and cannot leave it. Independent tool calls can be made together in one response.
When a tool result was clipped, its marker names a ref: call retrieve with it to read the rest.
When the task is done, answer with a short account of what you did and what is left."""


@dataclass(frozen=True, slots=True)
class AgentOptions:
    model: str
    provider: Provider = "openai"
    base_url: str | None = None
    api_key_env: str | None = None
    store_url: str | None = None
    cwd: str = "."
    resume: str | None = None
    window: int | None = None
    max_output: int | None = None
    max_steps: int | None = None
    timeout_s: float = 120.0
    home: str | None = None  # where user-wide instruction files are looked for (None: $HOME)


def api_key(opts: AgentOptions, env: Any = os.environ) -> str:
    """The key to send ("" = none). A hosted API without a key is a ConfigError naming the variable."""
    var = opts.api_key_env or DEFAULT_KEY_ENV[opts.provider]
    key = env.get(var) or ""
    host = urlparse(opts.base_url or DEFAULT_BASE_URLS[opts.provider]).hostname or ""
    if not key and host in HOSTED:
        raise ConfigError(
            f"no API key for {host}: set {var} (or name another variable with --api-key-env, or point --base-url at a local server)"
        )
    return key


def make_model(opts: AgentOptions, window: int | None = None) -> Any:
    """The HTTP chat model the options describe."""
    from ..llm import AnthropicModel, OpenAICompatibleModel

    if opts.provider not in DEFAULT_BASE_URLS:
        raise ConfigError(f"unknown provider {opts.provider!r} (expected openai or anthropic)")
    key = api_key(opts)
    base = opts.base_url or DEFAULT_BASE_URLS[opts.provider]
    if opts.provider == "anthropic":
        return AnthropicModel(opts.model, base_url=base, api_key=key, timeout=opts.timeout_s, window=window)
    return OpenAICompatibleModel(opts.model, base_url=base, api_key=key, timeout=opts.timeout_s, window=window)


def model_limits(opts: AgentOptions) -> tuple[int, int]:
    """(window, max output) of the model: the registry's, or ``--window`` for one it does not know."""
    from ..models import get_model

    if opts.window is not None and opts.window < 1:
        raise ConfigError(f"--window must be a positive number of tokens, got {opts.window}")
    try:
        spec = get_model(opts.model)
    except UnknownModelError:
        if opts.window is None:
            raise ConfigError(
                f"unknown model {opts.model!r}: its context window is not known; give it with --window TOKENS (e.g. --window 32768)"
            ) from None
        spec = get_model(opts.model, default=True)
    window = opts.window or spec.context_window
    return window, min(opts.max_output or spec.max_output, window // 2)


def resolve_resume(store: ConversationStore, resume: str | None) -> str | None:
    if resume is None:
        return None
    if resume == "last":
        convs = store.list_conversations(limit=1)
        if not convs:
            raise NotFoundError("--resume last: the store has no conversation yet")
        return convs[0].id
    store.get_conversation(resume)  # NotFoundError names the id
    return resume


def admission_for(cwd: Path, home: str | None, model: str) -> Admission:
    base = Section("agent", AGENT_PROMPT.format(cwd=cwd), "task", priority=100, sticky=True)
    return admit(cwd, home if home is not None else os.environ.get("HOME"), base_sections=[base])


def open_agent(opts: AgentOptions, *, store: ConversationStore | None = None, events: EventBus | None = None) -> Agent:
    """Model, store, Session and Agent from ``opts`` (the store is opened unless given)."""
    from ..folding.llm_summarizer import LLMSummarizer
    from ..session import Session

    cwd = Path(os.path.realpath(os.path.expanduser(opts.cwd)))
    if not cwd.is_dir():
        raise ConfigError(f"--cwd {opts.cwd!r} is not a directory")
    window, max_output = model_limits(opts)
    model = make_model(opts, window)
    store = store if store is not None else open_store(opts.store_url)
    conv = resolve_resume(store, opts.resume)
    adm = admission_for(cwd, opts.home, opts.model)
    toolbox = Toolbox(cwd, adm)
    session = Session(
        store, conv, model=opts.model, window=window, max_output=max_output, system=adm, tools=toolbox.specs,
        runtime_block=True, format="anthropic" if opts.provider == "anthropic" else "openai",
        summarizer=LLMSummarizer(model, window=window), events=events,
    )
    if conv is None:
        store.set_state(session.id, "agent", {"cwd": str(cwd), "provider": opts.provider, "base_url": opts.base_url})
    return Agent(session, model, toolbox, max_steps=opts.max_steps)


def with_resume(opts: AgentOptions, conversation_id: str) -> AgentOptions:
    return replace(opts, resume=conversation_id)
