"""Shared test fixtures. Real transcripts live in ../shared/fixtures (beside the repo, not in a user's clone)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_TRANSCRIPTS = ROOT.parent / "shared" / "fixtures" / "transcripts"


@pytest.fixture
def transcripts_dir() -> Path:
    """../shared/fixtures/transcripts, or skip with the reason when it is absent (a user's clone)."""
    if not SHARED_TRANSCRIPTS.is_dir():
        pytest.skip(f"real transcripts not found at {SHARED_TRANSCRIPTS} (../shared sits beside the repo only on dev/CI machines)")
    return SHARED_TRANSCRIPTS
