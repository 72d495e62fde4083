"""One computation per test session, shared by its xdist workers: the first worker to need a result
computes it under a file lock in a directory of the session's base temp (fresh each session, so
nothing computed by an earlier run is ever reused) and the others read it. Used by the GP22 SGD
designs (``claims.gp22._experiments``) and the BSJ25 training sweeps (``claims.bsj25._small_init``,
``claims.bsj25._width_sweep``); the ``session_store`` fixture of tests/conftest.py gives the directory."""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
_SESSION_MEMORY: dict[tuple[str, str], Any] = {}


@contextlib.contextmanager
def file_lock(path: Path, wait: bool = True) -> Iterator[bool]:
    """An exclusive advisory lock on ``path`` (none where fcntl is missing: every process computes
    for itself, which is slower, never wrong); yields whether it holds the lock. ``wait`` False: if
    another process holds it, yields False at once instead of waiting."""
    try:
        import fcntl
    except ImportError:
        yield True
        return
    with open(path, "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def session_key(*parts: Any) -> str:
    """A file-name-safe key for a computation's arguments (their reprs)."""
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:24]


def session_cached(directory: Path | None, key: str, compute: Callable[[], T], wait: bool = True) -> T | None:
    """``compute()`` once per ``directory``: the first process (e.g. xdist worker of one session,
    sharing the session's base temp directory) to ask computes it under a file lock and pickles
    it there; the others load it. Kept in memory per process as well; ``directory`` None: memory
    only. The directory must be fresh per session (nothing from an earlier run is reused).
    ``wait`` False: None, at once, while another process holds the key's lock (computing it), so a
    process that needs several results can compute the others first and wait for that one last."""
    memory_key = (str(directory), key)
    if memory_key in _SESSION_MEMORY:
        return _SESSION_MEMORY[memory_key]
    if directory is None:
        value = compute()
    else:
        directory.mkdir(parents=True, exist_ok=True)
        stored = directory / f"{key}.pickle"
        with file_lock(directory / f"{key}.lock", wait) as held:
            if not held:
                return None
            if stored.exists():
                value = pickle.loads(stored.read_bytes())
            else:
                value = compute()
                temporary = stored.with_suffix(f".{os.getpid()}.tmp")
                temporary.write_bytes(pickle.dumps(value))
                temporary.replace(stored)
    _SESSION_MEMORY[memory_key] = value
    return value
