"""MemoryToolset's stores, SQLite and PostgreSQL, under the same tests: persistence across processes, threads and
processes writing at once, no acknowledged write lost in a crash, a newer layout refused, model text searched as text.
Each test runs once per store (`store` below); PostgreSQL is the throwaway server of the `postgres` fixture
(conftest.py). What only one store has (SQLite's file, PostgreSQL's pool, roles, NULs) is tested in
tests/test_toolset_postgres.py and the toolset notebook."""
import json, os, signal, sqlite3, subprocess, sys, textwrap, time, uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from toolcall_lib.toolset import (InMemoryBackend, MemoryLayoutError, MemoryToolset, PostgresBackend, SQLiteBackend,
                                  check_memory_backend)


@dataclass
class Store:
    "One memory store, which a test opens here and a child process opens by `child_args`."
    kind: str              # 'sqlite' or 'postgres'
    target: str            # the SQLite file, or the PostgreSQL URL
    table: str = ''        # PostgreSQL: the table of this test
    server: object = None  # PostgreSQL: the throwaway server, to stop and start

    def backend(self, **options):
        if self.kind == 'sqlite': return SQLiteBackend(self.target, **options)
        return PostgresBackend(self.target, table=self.table, **options)

    def open(self, **options) -> MemoryToolset: return MemoryToolset(backend=self.backend(**options))

    def child_args(self) -> list: return [self.kind, self.target, self.table]


@pytest.fixture(params=['sqlite', 'postgres'])
def store(request, tmp_path) -> Store:
    "A new, empty store of each kind."
    if request.param == 'sqlite': return Store('sqlite', str(tmp_path/'memory.db'))
    postgres = request.getfixturevalue('postgres')
    return Store('postgres', postgres.dsn(), table=f'memory_{uuid.uuid4().hex[:12]}', server=postgres)


OPEN_STORE = '''
import sys
from toolcall_lib.toolset import MemoryToolset, PostgresBackend, SQLiteBackend
kind, target, table = sys.argv[1:4]
def open_store(**options):
    backend = SQLiteBackend(target) if kind == 'sqlite' else PostgresBackend(target, table=table, **options)
    return MemoryToolset(backend=backend)
'''

def run_python(code:str, *args:str, timeout:float=120) -> str:
    "Run `code` after OPEN_STORE in a fresh interpreter and return its stdout (fails the test on a non-zero exit)."
    done = subprocess.run([sys.executable, '-c', OPEN_STORE + textwrap.dedent(code), *args], capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done.stdout

def start_python(code:str, *args:str, **options) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, '-c', OPEN_STORE + textwrap.dedent(code), *args], text=True, **options)


def test_check_memory_backend_passes(store):
    with store.backend() as backend: check_memory_backend(backend)


def test_memories_survive_a_process_restart(store):
    run_python('''
        memory = open_store()
        memory.store('user_name', 'Ada', tags=['person'])
        memory.store('theme', 'dark mode', tags=['ui', 'preferences'])
        memory.store('doomed', 'x')
        memory.delete('doomed')
        memory.update('theme', 'light mode')
        memory.retrieve('theme'); memory.retrieve('theme')
        ''', *store.child_args())
    output = run_python('''
        import json
        memory = open_store()
        print(json.dumps(dict(keys=memory.list_(), theme=memory.retrieve('theme'), meta=memory.get_metadata('theme'),
                              doomed=memory.retrieve('doomed'), ui=memory.list_(tag='ui'))))
        ''', *store.child_args())
    seen = json.loads(output)
    assert seen['keys'] == ['theme', 'user_name']
    assert seen['theme'] == 'light mode'
    # two retrieves by the writer, plus the reader's own, which runs before get_metadata
    assert seen['meta']['tags'] == ['ui', 'preferences'] and seen['meta']['access_count'] == 3
    assert seen['doomed'].startswith('No memory with key')
    assert seen['ui'] == ['theme']


@pytest.fixture(params=['sqlite', 'postgres', 'in-memory'])
def shared_backend(request, tmp_path):
    "A backend many threads share: SQLite, PostgreSQL on a pool of at most 3 connections (operations wait for one), in memory."
    if request.param == 'in-memory': return InMemoryBackend()
    if request.param == 'sqlite': return SQLiteBackend(tmp_path/'hammer.db', synchronous='NORMAL')
    return PostgresBackend(request.getfixturevalue('postgres').dsn(), table=f'memory_{uuid.uuid4().hex[:12]}',
                           max_connections=3, timeout=30)

def test_threads_hammering_one_memory_lose_nothing(shared_backend):
    memory = MemoryToolset(backend=shared_backend)
    memory.store('shared', 'start')
    threads, writes_per_thread, errors = 8, 40, []

    def worker(thread: int):
        try:
            for i in range(writes_per_thread):
                memory.store(f't{thread}-{i}', f'value {thread} {i}', tags=[f'thread{thread}'])
                assert memory.retrieve('shared') is not None           # each retrieve bumps one shared counter
                memory.update('shared', f'last written by {thread}')   # concurrent updates of one key
                memory.store('same key', f'from {thread}')             # concurrent stores of one key
                if i % 10 == 0:
                    memory.search('value*', in_keys=False, limit=5)   # readers interleaved with writers
                    memory.count()
            memory.delete(f't{thread}-0')
        except Exception as error:  # collected, so a failure in a thread fails the test
            errors.append(error)

    with ThreadPoolExecutor(threads) as pool: list(pool.map(worker, range(threads)))
    assert errors == []
    assert memory.count() == threads * (writes_per_thread - 1) + 2
    for thread in range(threads):
        assert memory.list_(tag=f'thread{thread}') == sorted(f't{thread}-{i}' for i in range(1, writes_per_thread))
        assert memory.retrieve(f't{thread}-{writes_per_thread - 1}') == f'value {thread} {writes_per_thread - 1}'
    assert memory.get_metadata('shared')['access_count'] == threads * writes_per_thread  # no lost increments
    assert memory.retrieve('shared').startswith('last written by ') and memory.retrieve('same key').startswith('from ')
    memory.close()


WRITER = '''
prefix, count = sys.argv[4], int(sys.argv[5])
with open_store(max_connections=2) as memory:
    memory.store('shared', prefix)   # replacing keeps the access count, so every retrieve below is counted
    for i in range(count):
        memory.store(f'{prefix}-{i}', f'value {i}', tags=[prefix])
        memory.store('same key', prefix)
        memory.retrieve('shared')
        memory.update('shared', prefix)
        memory.update(f'missing-{i}', 'never created')
'''

def test_processes_writing_at_once_lose_nothing(store):
    processes, count = 6, 40   # none of the writers finds the store: all of them create it at once
    writers = [start_python(WRITER, *store.child_args(), f'p{n}', str(count), stderr=subprocess.PIPE) for n in range(processes)]
    for writer in writers:
        _, stderr = writer.communicate(timeout=300)
        assert writer.returncode == 0, stderr
    with store.open() as memory:
        for n in range(processes): assert memory.list_(tag=f'p{n}') == sorted(f'p{n}-{i}' for i in range(count))
        assert memory.count() == processes * count + 2
        assert memory.search('missing-*', in_values=False) == []   # memory_update never creates a key
        assert memory.retrieve('same key') in {f'p{n}' for n in range(processes)}
        assert memory.get_metadata('shared')['access_count'] == processes * count   # no lost increment


ACKNOWLEDGING_WRITER = '''
memory = open_store(timeout=2)
i = 0
while True:
    memory.store(f'key-{i}', 'v' * (i % 5000), tags=['acked'])
    print(i, flush=True)   # printed only after store() returned: the write is acknowledged
    i += 1
'''

def crash(store:Store, writer:subprocess.Popen) -> str:
    """The crash each store must survive, in the middle of a write: SQLite's writer is killed (kill -9); PostgreSQL's server
    shuts down at once (no checkpoint, backends killed: the next start replays the WAL). The writer's remaining output."""
    if store.kind == 'sqlite':
        os.kill(writer.pid, signal.SIGKILL)
        return writer.communicate(timeout=60)[0]
    try:
        store.server.stop('immediate')
        rest, stderr = writer.communicate(timeout=60)   # the server stays down until the writer has given up
    finally: store.server.start()
    assert writer.returncode != 0 and 'MemoryUnavailableError' in stderr and "database 'postgres'" in stderr, stderr
    return rest

def test_a_crash_loses_no_acknowledged_write(store):
    store.backend().close()   # the store exists before the writer starts
    writer = start_python(ACKNOWLEDGING_WRITER, *store.child_args(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    acknowledged, deadline = -1, time.monotonic() + 120   # a guard against a writer that hangs, not a speed limit
    while acknowledged < 150 and time.monotonic() < deadline:
        line = writer.stdout.readline()
        if not line: break
        acknowledged = int(line)
    rest = crash(store, writer)   # acknowledgements already in the pipe count too
    acknowledged = max([acknowledged, *map(int, rest.split())])
    assert acknowledged >= 150, 'the writer did not get far enough'
    if store.kind == 'sqlite':
        with sqlite3.connect(store.target) as check: assert check.execute('PRAGMA integrity_check').fetchone()[0] == 'ok'
    with store.open() as memory:
        stored = set(memory.list_(tag='acked'))
        assert [i for i in range(acknowledged + 1) if f'key-{i}' not in stored] == []
        assert memory.retrieve(f'key-{acknowledged}') == 'v' * (acknowledged % 5000)
        assert memory.count() in (acknowledged + 1, acknowledged + 2)  # at most the unacknowledged write in flight


def mark_layout(store:Store, layout:int):
    "Make the store say it was written by a toolcall_lib of this layout number."
    if store.kind == 'sqlite':
        with sqlite3.connect(store.target) as connection: connection.execute(f'PRAGMA user_version={layout}')
    else: store.server.execute(f"COMMENT ON TABLE {store.table} IS 'toolcall_lib memory, layout {layout}'")

def test_a_newer_layout_is_refused_rather_than_misread(store):
    store.backend().close()
    mark_layout(store, 99)
    with pytest.raises(MemoryLayoutError, match='newer toolcall_lib'): store.backend()


def test_search_treats_model_text_as_text(store):
    memory = store.open()
    memory.store('literal', "50% off _this_ [a-z]+ (x|y) \\d ' ; DROP TABLE x; --")
    memory.store('other', 'plain words')
    memory.store('big', 'a' * 100_000)
    for pattern in ['%', '_this_', '[a-z]+', '(x|y)', '\\d', "'", 'drop table']:
        assert [hit['key'] for hit in memory.search(pattern)] == ['literal'], pattern
    assert [hit['key'] for hit in memory.search('_')] == ['literal'] and memory.search('%', in_values=False) == []
    start = time.perf_counter()
    assert memory.search('*a*a*a*a*a*a*a*a*a*a*a*a*b') == [] and memory.search('(a+)+$') == []
    assert time.perf_counter() - start < 10   # a guard against catastrophic backtracking, not a speed goal
    assert memory.count() == 3
    memory.close()


def test_records_page_in_code_point_order(store):
    keys = ['b', 'B', 'a', 'ä', 'Z', '10', '9', 'ключ', '😀', 'a b']
    with store.backend() as backend:
        for key in keys: backend.put(key, 'v', (), 1.0)
        assert [record.key for record in backend.records(page_size=3)] == sorted(keys)
