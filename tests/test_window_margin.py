"""The margin under the window with the default config (max_trigger 1.0: compaction may let the
history fill its whole budget, so the safety buffer is what stands between an estimate that runs
low and a prompt the provider refuses). A provider that counts 15% more than our estimate must
still see prompt + output reserve within the window on every call, once its usage is recorded."""

from __future__ import annotations

import math
import random

import pytest

from contextwindow import Session
from contextwindow.messages import Message, TextPart
from contextwindow.store.memory import MemoryStore
from contextwindow.usage import Usage
from test_session import step


@pytest.mark.parametrize("seed", [13, 14])
def test_prompt_and_output_reserve_fit_the_window_when_the_provider_counts_15pct_more(seed: int) -> None:
    window, max_output = 20_000, 2_000
    rng = random.Random(seed)
    s = Session(MemoryStore(), window=window, max_output=max_output, system="You are a careful coding agent.")
    s.add(Message("user", (TextPart("Go."),)))
    fullest = 0
    for i in range(60):
        s.add(*step(i, rng.randint(10, 400)))
        b = s.build()
        provider_counted = math.ceil(1.15 * b.tokens)  # what the provider bills: 15% over our estimate
        assert provider_counted + b.budget.output_reserve <= window, (i, provider_counted, b.budget)
        fullest = max(fullest, provider_counted + b.budget.output_reserve)
        s.record(Message("assistant", (TextPart(f"noted {i}"),)), Usage(input_tokens=provider_counted, output_tokens=20))
        s.add(Message("user", (TextPart(f"continue {i}"),)))
    # the session did run up against the window (else the bound above says nothing)
    assert s.store.list_checkpoints(s.id) and fullest >= 0.9 * window, fullest
