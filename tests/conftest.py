"""Shared fixtures. `postgres` starts one throwaway PostgreSQL server for the whole session, only if a test asks for it."""
import pytest

from throwaway_postgres import ThrowawayPostgres


@pytest.fixture(scope='session')
def postgres():
    "A running throwaway PostgreSQL server (see tests/throwaway_postgres.py), stopped and deleted after the session."
    with ThrowawayPostgres() as server: yield server
