"""Shared fixtures and marks. `postgres` starts one throwaway PostgreSQL server for the whole session, only if a test
asks for it. The slow suites are marked here, by file, so `pytest -m "not slow"` is the quick loop (pytest.ini)."""
import pytest

from throwaway_postgres import ThrowawayPostgres


@pytest.fixture(scope='session')
def postgres():
    "A running throwaway PostgreSQL server (see tests/throwaway_postgres.py), stopped and deleted after the session."
    with ThrowawayPostgres() as server: yield server


SLOW_SUITES = {'test_docs_site.py': 1800,         # builds and renders the whole docs site in headless Chromium
               'test_sandbox_escape.py': None,    # the sandbox attack suite, a sandbox per attack
               'test_sandbox_nonroot.py': None,   # the same attacks from an unprivileged user
               'test_mcp_conformance.py': 1200}   # the official MCP conformance suite (Node.js) against toolcall mcp serve
# seconds per test where pytest.ini's timeout is too short (None: pytest.ini's)

def pytest_collection_modifyitems(config, items):
    "Mark the tests of the slow suites `slow`, and give them their own timeout where they need one."
    for item in items:
        if item.path.name not in SLOW_SUITES: continue
        item.add_marker(pytest.mark.slow)
        if SLOW_SUITES[item.path.name]: item.add_marker(pytest.mark.timeout(SLOW_SUITES[item.path.name]))
