"""PostgresBackend against a real, throwaway PostgreSQL server (the `postgres` fixture in conftest.py): what only
PostgreSQL has. The nine tools answer as on SQLite, NUL characters, a server that goes away and comes back, passwords,
roles, its own table and nothing else, the pool. What every store must do (threads and processes at once, a crash,
a newer layout, model text as text) is in tests/test_toolset_persistence.py, run on SQLite and PostgreSQL alike."""
import itertools, os, secrets, subprocess, sys, textwrap, threading, time, uuid

import pytest

from throwaway_postgres import PASSWORD, PASSWORD_USER
from toolcall_lib.dispatch import call_func
from toolcall_lib.toolset import (MemoryLayoutError, MemoryToolset, MemoryUnavailableError, PostgresBackend, SQLiteBackend,
                                  ToolInputError)


def new_table() -> str:
    return f'memory_{uuid.uuid4().hex[:12]}'


@pytest.fixture
def backend(postgres):
    "A PostgresBackend on a table of its own."
    with PostgresBackend(postgres.dsn(), table=new_table(), max_connections=4, timeout=5) as backend: yield backend


def ticking_clock():
    ticks = itertools.count(1_700_000_000, 60)
    return lambda: float(next(ticks))


def outcome(call):
    "What a tool call gives the model: its result, or the type and message of the error it raised."
    try: return call()
    except Exception as error: return f'{type(error).__name__}: {error}'


NINE_TOOLS_SCRIPT = [
    ('store', ('user_name', 'Ada'), {}), ('store', ('user_name', 'Ada Lovelace'), {}),
    ('store', ('user_preference', 'dark mode'), dict(tags=['ui', 'preferences'])),
    ('store', ('favourite_colour', 'Blue, like the user name field'), dict(tags=['preferences'])),
    ('store', ('ключ', 'значение'), dict(tags=['ui'])), ('store', ('B-upper', 'sorts before lower case'), {}),
    ('store', ('percent', '100% of _all_ \\ backslashes [a-z]*'), {}),
    ('retrieve', ('user_preference',), {}), ('retrieve', ('user_preference',), {}), ('retrieve', ('nope',), {}),
    ('search', ('user*',), {}), ('search', ('user',), dict(in_values=False)), ('search', ('user',), dict(in_keys=False)),
    ('search', ('LOVELACE',), {}), ('search', ('mode',), dict(tag='ui')), ('search', ('user',), dict(limit=1)),
    ('search', ('%',), {}), ('search', ('_all_',), {}), ('search', ('[a-z]',), {}), ('search', ('\\',), {}), ('search', ('a?l',), {}),
    ('search', ('ЗНАЧ',), {}), ('search', ('zebra',), {}), ('search', ('x',), dict(in_keys=False, in_values=False)),
    ('list_', (), {}), ('list_', (), dict(tag='ui')), ('count', (), {}), ('count', (), dict(tag='preferences')),
    ('get_metadata', ('user_preference',), {}), ('get_metadata', ('nope',), {}),
    ('update', ('user_preference', 'light mode'), {}), ('update', ('missing', 'x'), {}),
    ('update', ('user_name', 'Ada'), dict(tags=['person'])), ('get_metadata', ('user_name',), {}),
    ('store', ('user_preference', 'light mode'), dict(tags=['theme'])), ('get_metadata', ('user_preference',), {}),
    ('store', ('', 'x'), {}), ('store', ('k', 'a\x00b'), {}), ('store', ('k\x00', 'v'), {}), ('store', ('k', 'v'), dict(tags=['\x00'])),
    ('update', ('user_name', 'nul \x00 here'), {}), ('retrieve', ('k\x00',), {}), ('store', ('k', '\ud800'), {}),
    ('delete', ('user_name',), {}), ('delete', ('user_name',), {}), ('list_', (), {}),
    ('clear', (), {}), ('count', (), {}), ('list_', (), {}), ('search', ('*a*',), {}),
]

def test_the_nine_tools_answer_exactly_as_on_sqlite(backend, tmp_path):
    on_sqlite = MemoryToolset(backend=SQLiteBackend(tmp_path / 'same.db'), clock=ticking_clock())
    on_postgres = MemoryToolset(backend=backend, clock=ticking_clock())
    assert on_postgres.tool_names == on_sqlite.tool_names and len(on_postgres.tool_names) == 9
    used = set()
    for method, args, kwargs in NINE_TOOLS_SCRIPT:
        expected = outcome(lambda: getattr(on_sqlite, method)(*args, **kwargs))
        assert outcome(lambda: getattr(on_postgres, method)(*args, **kwargs)) == expected, (method, args, kwargs)
        used.add(method)
    assert len(used) == 9
    on_sqlite.close()


def test_a_postgresql_url_chooses_the_postgres_backend(postgres):
    with MemoryToolset(postgres.dsn()) as memory:
        assert isinstance(memory.backend, PostgresBackend) and memory.backend.table.as_string() == '"toolcall_memory"'
        memory.clear()
        assert memory.store('from_url', 'yes') == "Stored memory 'from_url'."
    with MemoryToolset(postgres.dsn().replace('postgresql://', 'postgres://', 1)) as again:
        assert again.retrieve('from_url') == 'yes'
        assert call_func('memory_count', {}, ns=again) == 1
        again.clear()


@pytest.mark.parametrize('mode', ['fast', 'immediate'])
def test_a_server_that_goes_away_mid_session_and_comes_back(postgres, mode):
    memory = MemoryToolset(backend=PostgresBackend(postgres.dsn(), table=new_table(), max_connections=2, timeout=2))
    memory.store('before', 'kept')
    postgres.stop(mode)
    try:
        with pytest.raises(MemoryUnavailableError) as raised: memory.store('during', 'lost')
        message = str(raised.value)
        assert f"host '{postgres.directory}'" in message and "database 'postgres'" in message and 'Traceback' not in message
        answer = call_func('memory_retrieve', {'key': 'before'}, ns=memory, raise_on_err=False)   # what a model is told
        assert answer.startswith('the memory store (PostgreSQL at host') and 'unavailable' in answer
    finally: postgres.start()
    deadline = time.monotonic() + 60   # the pool reconnects with a backoff of 1, 2, 4... s
    while True:
        try: result = memory.store('after', 'works'); break
        except MemoryUnavailableError:
            if time.monotonic() > deadline: raise
            time.sleep(0.2)
    assert result == "Stored memory 'after'."
    assert memory.list_() == ['after', 'before'] and memory.retrieve('before') == 'kept'
    memory.close()


def test_nul_characters_get_a_clear_error_and_store_nothing(backend):
    memory = MemoryToolset(backend=backend)
    for arguments in [dict(key='k', value='a\x00b'), dict(key='k\x00', value='v'), dict(key='k', value='v', tags=['ui', 'x\x00'])]:
        with pytest.raises(ToolInputError, match=r'contains a NUL character \(\\u0000\), which cannot be stored'):
            memory.store(**arguments)
        answer = call_func('memory_store', arguments, ns=memory, raise_on_err=False)
        assert 'NUL character' in answer and 'Traceback' not in answer
    for direct in [lambda: backend.put('k', 'a\x00', (), 1.0), lambda: backend.update('k', 'v', ('\x00',), 1.0)]:
        with pytest.raises(ToolInputError, match='NUL character'): direct()
    assert backend.get('k\x00') is None and backend.delete('k\x00') is False
    assert backend.count() == 0


def test_unreachable_or_refused_servers_are_named_without_the_password(postgres, tmp_path):
    with pytest.raises(MemoryUnavailableError) as raised:
        PostgresBackend(postgres.dsn(user=PASSWORD_USER, password='wrong-horse-' + PASSWORD))
    message = str(raised.value)
    assert 'password authentication failed' in message and PASSWORD not in message and "database 'postgres'" in message
    with PostgresBackend(postgres.dsn(user=PASSWORD_USER, password=PASSWORD), table=new_table()) as backend:   # the right one works
        assert backend.put('k', 'v', (), 1.0)[1] is True
        assert PASSWORD not in repr(backend)
    with pytest.raises(MemoryUnavailableError, match=f"host '{tmp_path}', port 5432, database 'memories'"):
        PostgresBackend(f'postgresql://someone:{PASSWORD}@/memories?host={tmp_path}')   # no server on that socket


def test_its_own_table_and_no_other(postgres):
    foreign, ours = new_table(), new_table()
    postgres.execute(f'CREATE TABLE {foreign} (key text PRIMARY KEY, value text)', f"INSERT INTO {foreign} VALUES ('a', 'theirs')")
    with pytest.raises(MemoryLayoutError, match='not created by toolcall_lib'): PostgresBackend(postgres.dsn(), table=foreign)
    with PostgresBackend(postgres.dsn(), table=ours) as backend:
        backend.put('a', 'ours', (), 1.0)
        assert backend.clear() == 1
    assert postgres.execute(f'SELECT key, value FROM {foreign}') == [('a', 'theirs')]
    assert postgres.execute(f"SELECT obj_description('{ours}'::regclass, 'pg_class')") == [('toolcall_lib memory, layout 1',)]
    postgres.execute('CREATE SCHEMA IF NOT EXISTS assistant')
    with PostgresBackend(postgres.dsn(), table='assistant.Memory Table') as backend:   # any name is quoted, never spliced
        backend.put('k', 'v', (), 1.0)
    assert postgres.execute('SELECT key FROM assistant."Memory Table"') == [('k',)]


def test_commits_are_durable_even_where_the_server_defaults_to_asynchronous_commit(postgres):
    database = f'async_{uuid.uuid4().hex[:8]}'
    postgres.execute(f'CREATE DATABASE {database}', f'ALTER DATABASE {database} SET synchronous_commit = off')
    assert postgres.execute('SHOW synchronous_commit', database=database) == [('off',)]
    with PostgresBackend(postgres.dsn(database), table=new_table()) as backend:
        with backend._connection() as conn: assert conn.execute('SHOW synchronous_commit').fetchone() == ('on',)


def test_without_psycopg_the_module_imports_and_the_backend_says_what_to_install():
    code = '''
        import sys
        sys.modules['psycopg'] = sys.modules['psycopg_pool'] = None   # as if not installed
        from toolcall_lib.toolset import MemoryToolset, PostgresBackend
        assert MemoryToolset().store('k', 'v') == "Stored memory 'k'."
        try: MemoryToolset('postgresql://localhost/db')
        except ImportError as error: print(error)
        '''
    done = subprocess.run([sys.executable, '-c', textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "pip install 'toolcall_lib[postgres]'" in done.stdout


def test_connections_the_server_closed_are_replaced_without_an_error(postgres):
    mine = "application_name = 'replaced_connections'"
    with PostgresBackend(postgres.dsn() + '&application_name=replaced_connections', table=new_table(),
                         min_connections=3, max_connections=3, timeout=5) as backend:
        backend._pool.wait(timeout=30)   # all three pooled connections are open and idle
        assert postgres.execute(f'SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE {mine}') == [(3,)]
        deadline = time.monotonic() + 30
        while postgres.execute(f'SELECT count(*) FROM pg_stat_activity WHERE {mine}') != [(0,)] and time.monotonic() < deadline:
            time.sleep(0.1)   # until the three server processes have exited
        for i in range(10): backend.put(f'k{i}', 'v', (), 1.0)   # no MemoryUnavailableError: each dead connection is dropped at checkout
        assert backend.count() == 10


def test_a_role_that_may_not_create_the_table_is_told_what_to_grant(postgres):
    postgres.execute('CREATE SCHEMA IF NOT EXISTS locked')   # owned by the superuser: memory_login has no CREATE there
    with pytest.raises(MemoryUnavailableError) as raised:
        PostgresBackend(postgres.dsn(user=PASSWORD_USER, password=PASSWORD), table='locked.memory')
    message = str(raised.value)
    assert 'permission denied for schema locked' in message and f"role '{PASSWORD_USER}' may not create" in message
    assert 'CREATE TABLE' not in message and PASSWORD not in message
    assert postgres.execute("SELECT to_regclass('locked.memory') IS NULL") == [(True,)]


def test_database_errors_reach_the_model_as_one_clear_line(postgres):
    table = new_table()
    memory = MemoryToolset(backend=PostgresBackend(postgres.dsn(), table=table), max_key_chars=10_000)
    long_key = secrets.token_hex(2000)   # 4000 bytes that do not compress: over the btree limit of ~2.7 KB
    answer = call_func('memory_store', {'key': long_key, 'value': 'v'}, ns=memory, raise_on_err=False)
    assert answer.startswith('PostgreSQL cannot store this memory (index row size') and answer.endswith('use a shorter key')
    assert memory.count() == 0
    postgres.execute(f'DROP TABLE {table}')   # pulled out from under it
    answer = call_func('memory_store', {'key': 'k', 'value': 'v'}, ns=memory, raise_on_err=False)
    assert answer == (f"the memory store (PostgreSQL at host '{postgres.directory}', port 5432, database 'postgres') is unavailable: "
                      f'relation "{table}" does not exist. It was not applied.')
    memory.close()


def test_a_process_with_many_open_files_still_checks_its_connections(postgres):
    # select() cannot watch descriptors above 1023; the pool's check must work when the connection's socket is one of them
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 2048: resource.setrlimit(resource.RLIMIT_NOFILE, (min(2048, hard), hard))
    filler = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        with PostgresBackend(postgres.dsn(), table=new_table(), timeout=3) as backend:
            with backend._connection() as conn: assert conn.fileno() > 1023
            for i in range(5): backend.put(f'k{i}', 'v', (), 1.0)
            assert backend.count() == 5
    finally:
        for fd in filler: os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_lock_held_elsewhere_is_a_clear_error_after_the_timeout_not_a_hang(postgres):
    "Another session holding the table (a migration, a stuck transaction): an operation gives up after `timeout`, and says so."
    import psycopg
    table = new_table()
    with PostgresBackend(postgres.dsn(), table=table, timeout=1) as backend:
        memory = MemoryToolset(backend=backend)
        memory.store('k', 'before')
        answers = []
        with psycopg.connect(postgres.dsn()) as holder:   # a transaction left open, holding the table
            holder.execute(f'LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE')
            caller = threading.Thread(target=lambda: answers.append(call_func('memory_retrieve', {'key': 'k'}, ns=memory, raise_on_err=False)))
            caller.start(); caller.join(10)
            hung = caller.is_alive()
        caller.join()   # the lock is released now, so a hung call ends
        assert not hung, 'the call waited for the lock instead of giving up after its 1 s timeout'
        assert answers[0].startswith('the memory store (PostgreSQL at') and 'unavailable' in answers[0], answers
        assert 'before' in call_func('memory_retrieve', {'key': 'k'}, ns=memory)
