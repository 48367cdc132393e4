"""The lean front's cap on hand-overs not yet taken by its worker is never silent (issue 15, the
review of 2026-11-25): hitting it and leaving it are said on stderr, with how many requests found
it over meanwhile, and counted. :class:`Backlog` on its own (pure: bytes and times in)."""

from __future__ import annotations

import logging

import pytest

from contextwindow.proxy.handover import Backlog

MIB = 1 << 20


def test_the_cap_is_said_when_hit_and_when_left(caplog: pytest.LogCaptureFixture) -> None:
    backlog = Backlog(64 * MIB, 30.0)
    with caplog.at_level(logging.WARNING, logger="contextwindow.proxy"):
        assert [backlog.over(b, t) for b, t in ((10 * MIB, 0.0), (64 * MIB, 1.0))] == [False, False]  # at the cap: not over
        assert not caplog.records
        assert [backlog.over(b, t) for b, t in ((70 * MIB, 2.0), (90 * MIB, 3.0), (65 * MIB, 4.5))] == [True, True, True]
        assert len(caplog.records) == 1  # once per spell, not per request
        assert "70 MiB of hand-overs not yet taken" in caplog.records[0].getMessage()
        assert "wait up to 30 s for it to take some, then go to it" in caplog.records[0].getMessage()
        assert "delayed, not dropped" in caplog.records[0].getMessage()
        assert backlog.over(MIB, 7.0) is False
        assert len(caplog.records) == 2
        assert "after 5.0 s; 3 requests found them over the cap meanwhile" in caplog.records[1].getMessage()
        assert backlog.over(MIB, 8.0) is False and len(caplog.records) == 2  # caught up: nothing more to say
        assert backlog.over(100 * MIB, 9.0) and backlog.over(0, 9.5) is False  # a second spell: said again, counted on
        assert len(caplog.records) == 4 and "1 requests found them over the cap" in caplog.records[3].getMessage()
    assert backlog.capped == 4
