"""An engine module as it was at an earlier git revision, for benchmarks that compare with it."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def module_at(revision: str, path: str) -> types.ModuleType | None:
    """The file ``path`` (``engines/...py``) as it was at git ``revision``, imported under a
    name of its own; None without git or that revision."""
    try:
        source = subprocess.run(
            ["git", "show", f"{revision}:{path}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    module = types.ModuleType(f"{Path(path).stem}_at_{revision}")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, f"{revision}:{path}", "exec"), module.__dict__)
    return module
