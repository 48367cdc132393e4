"""Start and stop a throwaway PostgreSQL server (for tests and benchmarks).

Uses Debian's binaries (``/usr/lib/postgresql/<version>/bin``) or ``initdb`` on PATH:
``initdb`` + ``pg_ctl start`` on a fresh temporary directory, listening on a free TCP port of
127.0.0.1 and on a unix socket inside that directory, with fsync off (throwaway data). When
run as root the server runs as the ``postgres`` user (PostgreSQL refuses root).

>>> server = start_server()          # raises PgUnavailable with the reason
>>> server.url                       # postgresql://postgres@127.0.0.1:PORT/postgres
>>> server.stop()
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


class PgUnavailable(RuntimeError):
    """No throwaway PostgreSQL server could be started here; the message says why."""


def find_bindir() -> Path | None:
    """The newest Debian PostgreSQL bin dir, else the dir of ``initdb`` on PATH, else None."""
    cands = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: [int(x) if x.isdigit() else 0 for x in Path(p).parent.parent.name.split(".")],
    )
    if cands:
        return Path(cands[-1]).parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_user_prefix() -> list[str]:
    if os.geteuid() != 0:
        return []
    runuser = shutil.which("runuser")
    if runuser:
        return [runuser, "-u", "postgres", "--"]
    raise PgUnavailable("running as root and runuser is missing: cannot start PostgreSQL as the postgres user")


@dataclass(slots=True)
class PgServer:
    bindir: Path
    root: Path
    port: int
    prefix: list[str]

    @property
    def datadir(self) -> Path:
        return self.root / "data"

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def stop(self) -> None:
        """Stop the server (fast) and delete its directory."""
        subprocess.run(
            [*self.prefix, str(self.bindir / "pg_ctl"), "-D", str(self.datadir), "-m", "immediate", "-w", "stop"],
            capture_output=True,
            timeout=60,
            check=False,
        )
        shutil.rmtree(self.root, ignore_errors=True)


def start_server(attempts: int = 3) -> PgServer:
    """Start a throwaway server; raise :class:`PgUnavailable` saying why when none can start."""
    bindir = find_bindir()
    if bindir is None:
        raise PgUnavailable("no PostgreSQL binaries: /usr/lib/postgresql/*/bin/initdb not found and initdb not on PATH")
    prefix = _as_user_prefix()
    if prefix:
        try:
            import pwd

            pw = pwd.getpwnam("postgres")
        except KeyError:
            raise PgUnavailable("running as root and there is no postgres user to run the server as") from None
    root = Path(tempfile.mkdtemp(prefix="cw-pg-"))
    try:
        if prefix:
            os.chown(root, pw.pw_uid, pw.pw_gid)
        init = subprocess.run(
            [*prefix, str(bindir / "initdb"), "-D", str(root / "data"), "-U", "postgres", "-A", "trust",
             "--no-sync", "-E", "UTF8", "--locale=C"],
            capture_output=True, text=True, timeout=120, check=False,
        )
        if init.returncode != 0:
            raise PgUnavailable(f"initdb failed: {(init.stderr or init.stdout).strip()[-500:]}")
        last = ""
        for _ in range(attempts):
            port = _free_port()
            opts = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
            start = subprocess.run(
                [*prefix, str(bindir / "pg_ctl"), "-D", str(root / "data"), "-o", opts, "-l",
                 str(root / "server.log"), "-w", "-t", "60", "start"],
                capture_output=True, text=True, timeout=120, check=False,
            )
            if start.returncode == 0:
                server = PgServer(bindir, root, port, prefix)
                _wait_ready(server)
                return server
            log = (root / "server.log").read_text(errors="replace") if (root / "server.log").exists() else ""
            last = (start.stderr + start.stdout + log).strip()[-500:]
        raise PgUnavailable(f"pg_ctl start failed: {last}")
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise


def _wait_ready(server: PgServer, timeout: float = 30.0) -> None:
    import psycopg

    deadline = time.monotonic() + timeout
    while True:
        try:
            with psycopg.connect(server.url, connect_timeout=2):
                return
        except psycopg.OperationalError as exc:
            if time.monotonic() > deadline:
                server.stop()
                raise PgUnavailable(f"server started but refuses connections: {exc}") from exc
            time.sleep(0.1)
