"""``ctxw proxy`` tunes the garbage collector of its own process (proxy/server.py: calm_gc): what
was loaded at start leaves collection, and young collections are rarer. Process-wide, so the test
puts the collector back as it found it."""

from __future__ import annotations

import gc

import pytest

pytest.importorskip("aiohttp")

from contextwindow.proxy.server import GC_YOUNG, calm_gc


def test_calm_gc_freezes_what_is_loaded_and_raises_the_young_threshold() -> None:
    before = gc.get_threshold()
    frozen = gc.get_freeze_count()
    try:
        calm_gc()
        assert gc.get_threshold()[0] == GC_YOUNG > before[0]
        assert gc.get_threshold()[1] >= before[1] and gc.get_threshold()[2] >= before[2]
        assert gc.get_freeze_count() > frozen  # the modules and registries loaded so far
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
