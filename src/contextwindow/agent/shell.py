"""The ``bash`` tool: a command run in the working directory, killed at its timeout.

The command runs in its own process group so that the timeout kills it and everything it
started. Its output (stdout and stderr interleaved) is returned whole: like every tool result
it is clipped at the door by the Session, with the original kept in the offload store.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from .files import ToolError

DEFAULT_TIMEOUT_S = 120.0
MAX_TIMEOUT_S = 1_800.0


def run_bash(root: Path, command: object, timeout_s: object = None) -> tuple[str, bool]:
    """Run ``command`` with bash in ``root``; returns (output with its exit status, is_error)."""
    if not isinstance(command, str) or not command.strip():
        raise ToolError(f"command must be a non-empty string, got {command!r}")
    if timeout_s is None:
        timeout = DEFAULT_TIMEOUT_S
    elif isinstance(timeout_s, int | float) and not isinstance(timeout_s, bool) and 0 < timeout_s <= MAX_TIMEOUT_S:
        timeout = float(timeout_s)
    else:
        raise ToolError(f"timeout_s must be a number of seconds in (0, {MAX_TIMEOUT_S:g}], got {timeout_s!r}")
    proc = subprocess.Popen(
        ["bash", "-c", command],
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(proc)
        out, _ = proc.communicate()
        text = out.decode("utf-8", errors="replace")
        return text + f"\n[killed after {timeout:g} s: the command did not finish; give a larger timeout_s or run it in the background]", True
    except BaseException:  # Ctrl+C while waiting: the command must not outlive the call
        _kill(proc)
        proc.communicate()
        raise
    text = out.decode("utf-8", errors="replace")
    status = proc.returncode
    return text + (f"\n[exit code {status}]" if status else ("" if text else "[no output, exit code 0]")), status != 0


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
