"""Unit tests of ``claims.session._cache``: a result computed once per session directory, and the
non-waiting form a process uses to compute other results while another process computes this one."""

from __future__ import annotations

from claims.session import _cache
from claims.session._cache import file_lock, session_cached


def test_without_waiting_a_result_another_process_is_computing_is_none(tmp_path, monkeypatch):
    monkeypatch.setattr(_cache, "_SESSION_MEMORY", {})
    calls = []

    def compute():
        calls.append(1)
        return "value"

    # another open file description holds the key's lock: flock treats it as another process
    with file_lock(tmp_path / "key.lock") as held:
        assert held
        assert session_cached(tmp_path, "key", compute, wait=False) is None
        with file_lock(tmp_path / "key.lock", wait=False) as second:
            assert not second
    assert calls == []
    assert session_cached(tmp_path, "key", compute, wait=False) == "value" and calls == [1]
    monkeypatch.setattr(_cache, "_SESSION_MEMORY", {})  # a third process: it loads the stored result
    assert session_cached(tmp_path, "key", compute, wait=False) == "value" and calls == [1]
