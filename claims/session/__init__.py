"""The session layer: what one pytest session needs beyond the report: which claims a run selected
(full or partial), a cache shared by the session's xdist workers, and the run's provenance.

The plugin wires it into pytest's hooks.
"""

from __future__ import annotations

from claims._lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "._cache": ("session_cached", "session_key"),
})
