"""Root conftest: loads the claims plugin for this suite only.

The plugin is not a global ``pytest11`` entry point, so installing lowrank-claims changes nothing in
other projects of the same environment (no report, Hypothesis settings untouched). A pytester run
that needs the plugin writes the same line into its own conftest.py.
"""

pytest_plugins = ["claims.plugin"]
