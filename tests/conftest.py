"""Shared test fixtures. Real transcripts live in ../shared/fixtures (beside the repo, not in a user's clone)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
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


# --- conversation store fixtures (memory / sqlite / a throwaway PostgreSQL server) -------------

REQUIRE_POSTGRES = bool(os.environ.get("CONTEXTWINDOW_REQUIRE_POSTGRES"))


@pytest.fixture(scope="session")
def pg_server() -> Iterator[object]:
    """A throwaway PostgreSQL server for this test process (each xdist worker starts its own, on
    its own temp dir and free port). Skips with the reason where none can start; fails instead
    when CONTEXTWINDOW_REQUIRE_POSTGRES is set (CI)."""
    from contextwindow.store.pgserver import PgUnavailable, start_server

    try:
        server = start_server()
    except PgUnavailable as exc:
        if REQUIRE_POSTGRES:
            pytest.fail(f"PostgreSQL required (CONTEXTWINDOW_REQUIRE_POSTGRES is set) but: {exc}")
        pytest.skip(f"no PostgreSQL server could be started: {exc}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(pg_server: object) -> str:
    """A URL to the throwaway server whose search_path is a fresh, empty schema (one per test)."""
    import psycopg

    url: str = pg_server.url  # type: ignore[attr-defined]
    schema = f"t_{secrets.token_hex(6)}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    return f"{url}?options=-csearch_path%3D{schema}"


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The same store suite runs against every backend."""
    if request.param == "memory":
        return "memory:"
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def store(store_url: str) -> Iterator[object]:
    from contextwindow.store import open_store

    s = open_store(store_url)
    try:
        yield s
    finally:
        s.close()
