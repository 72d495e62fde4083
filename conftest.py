"""Root conftest: the claims plugin itself is loaded from its ``pytest11`` entry point
(``claims.plugin``), so the same plugin runs here, under xdist workers and in pytester runs."""
