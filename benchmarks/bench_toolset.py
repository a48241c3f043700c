"""Benchmarks for toolcall_lib.toolset, each figure beside a baseline measured in the same run.

Run with `python benchmarks/bench_toolset.py`; `run()` returns the rows as a list of dicts. The PostgreSQL rows use the
server at $TOOLCALL_BENCH_POSTGRES (a connection URL) if set, or else start a throwaway one on a unix socket
(tests/throwaway_postgres.py; `tools/ensure_postgres` installs the server programs)."""
import os, re, shutil, sqlite3, sys, tempfile, threading, time, uuid
from contextlib import contextmanager
from pathlib import Path

from toolcall_lib.dispatch import call_func
from toolcall_lib.toolset import FileToolset, GlobPattern, InMemoryBackend, MemoryToolset, PostgresBackend, SQLiteBackend

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'tests'))
from throwaway_postgres import ThrowawayPostgres, find_postgres_bindir


def per_second(func, repeat: int) -> float:
    "Operations per second of `func(i)` over `repeat` calls."
    start = time.perf_counter()
    for i in range(repeat): func(i)
    return repeat / (time.perf_counter() - start)


def paired(ours, baseline, repeat: int, rounds: int = 3) -> tuple[float, float]:
    "Best-of-`rounds` rates of `ours` and `baseline`, measured alternately so machine load hits both alike."
    best_ours = best_baseline = 0.0
    for _ in range(rounds):
        best_baseline = max(best_baseline, per_second(baseline, repeat))
        best_ours = max(best_ours, per_second(ours, repeat))
    return best_ours, best_baseline


def seconds(func) -> float:
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def row(what: str, ours: str, ours_value: float, baseline: str, baseline_value: float, unit: str, higher_is_better=True) -> dict:
    ratio = ours_value / baseline_value if baseline_value else float('inf')
    return dict(benchmark=what, ours=ours, ours_value=ours_value, baseline=baseline, baseline_value=baseline_value,
                unit=unit, ratio=ratio, higher_is_better=higher_is_better)


def compare(what: str, ours: str, ours_call, baseline: str, baseline_call, repeat: int) -> dict:
    "A row of ops/s for `ours_call(i)` against `baseline_call(i)`, measured alternately."
    ours_rate, baseline_rate = paired(ours_call, baseline_call, repeat)
    return row(what, ours, ours_rate, baseline, baseline_rate, 'ops/s')


def bench_memory(scratch: Path) -> list[dict]:
    plain, memory = {}, MemoryToolset()
    rows = [compare('memory_store, in memory', 'MemoryToolset()', lambda i: memory.store(f'k{i}', f'value {i}'),
                    'dict assignment', lambda i: plain.__setitem__(f'k{i}', f'value {i}'), 2000)]
    for synchronous in ('FULL', 'NORMAL'):
        raw = sqlite3.connect(scratch / f'raw_{synchronous}.db', isolation_level=None, check_same_thread=False)
        raw.execute('PRAGMA journal_mode=WAL'); raw.execute(f'PRAGMA synchronous={synchronous}')
        raw.execute('CREATE TABLE t (key TEXT PRIMARY KEY, value TEXT)')
        sqlite_memory = MemoryToolset(backend=SQLiteBackend(scratch / f'memory_{synchronous}.db', synchronous=synchronous))
        rows.append(compare(f'memory_store, SQLite synchronous={synchronous}', 'MemoryToolset(path)',
                            lambda i: sqlite_memory.store(f'k{i % 500}', f'value {i}', tags=['bench']),
                            f'raw sqlite3 INSERT (WAL, {synchronous})',
                            lambda i: raw.execute('INSERT OR REPLACE INTO t VALUES (?, ?)', (f'k{i % 500}', f'value {i}')),
                            200 if synchronous == 'FULL' else 500))
        if synchronous == 'NORMAL':
            rows.append(compare('memory_retrieve (also bumps access count)', 'MemoryToolset(path), NORMAL',
                                lambda i: sqlite_memory.retrieve(f'k{i % 500}'), 'raw sqlite3 SELECT by key',
                                lambda i: raw.execute('SELECT value FROM t WHERE key=?', (f'k{i % 500}',)).fetchone(), 2000))
            small = MemoryToolset()
            for i in range(500): small.store(f'k{i}', f'value {i}', tags=['bench'])
            rows.append(compare('memory_search, 500 memories', 'MemoryToolset(path), NORMAL', lambda i: sqlite_memory.search('value 4?9'),
                                'same search, in-memory backend', lambda i: small.search('value 4?9'), 50))
        raw.close()
        sqlite_memory.close()
    tools = memory.ns
    rows.append(compare('memory_retrieve through call_func', 'call_func(name, json args, ns)',
                        lambda i: call_func('memory_retrieve', {'key': f'k{i % 500}'}, ns=tools),
                        'direct method call', lambda i: memory.retrieve(f'k{i % 500}'), 5000))
    return rows


def bench_search() -> list[dict]:
    text = ('the quick brown fox jumps over the lazy dog ' * 2000) + 'user_display_name'
    glob, regex = GlobPattern('user*name'), re.compile('user.*name', re.IGNORECASE)
    rows = [compare('search 88 KB text, ordinary pattern', "GlobPattern('user*name')", lambda i: glob.search(text),
                    "re.search('user.*name', re.I)", lambda i: regex.search(text), 200)]
    evil = 'a' * 22 + 'b'
    regex_time = seconds(lambda: re.search(r'(a+)+$', evil))
    glob_time = seconds(lambda: GlobPattern('(a+)+$').search(evil * 4000))
    rows.append(row('pathological pattern (a+)+$', f'GlobPattern on {len(evil) * 4000} chars', glob_time,
                    f're.search on {len(evil)} chars', regex_time, 's', higher_is_better=False))
    return rows


def bench_files(scratch: Path) -> list[dict]:
    root = scratch / 'files'
    root.mkdir()
    files = FileToolset(root)
    payload = 'x' * 4096
    files.write('deep/er/file.txt', payload)
    plain = root / 'deep' / 'er' / 'plain.txt'
    plain.write_text(payload)

    def fsynced_replace(i):
        temporary = plain.with_suffix('.tmp')
        with open(temporary, 'w') as handle:
            handle.write(payload); handle.flush(); os.fsync(handle.fileno())
        os.replace(temporary, plain)
    return [compare('read 4 KB file, 3 levels deep', 'file_read', lambda i: files.read('deep/er/file.txt'),
                    'Path.read_text', lambda i: plain.read_text(), 2000),
            compare('write 4 KB file (atomic, fsync)', 'file_write', lambda i: files.write('deep/er/file.txt', payload),
                    'open+write+fsync+os.replace', fsynced_replace, 200)]


@contextmanager
def postgres_dsn():
    "A PostgreSQL URL to benchmark against: $TOOLCALL_BENCH_POSTGRES, or a throwaway server (None when neither is available)."
    if os.environ.get('TOOLCALL_BENCH_POSTGRES'): yield os.environ['TOOLCALL_BENCH_POSTGRES']
    elif find_postgres_bindir() is None: yield None
    else:
        with ThrowawayPostgres() as server: yield server.dsn()


def threaded_per_second(func, threads: int, per_thread: int) -> float:
    "Operations per second of `func(thread, i)` run by `threads` threads at once, `per_thread` calls each."
    barrier = threading.Barrier(threads + 1)
    def worker(thread):
        barrier.wait()
        for i in range(per_thread): func(thread, i)
    workers = [threading.Thread(target=worker, args=(n,)) for n in range(threads)]
    for w in workers: w.start()
    barrier.wait()
    start = time.perf_counter()
    for w in workers: w.join()
    return threads * per_thread / (time.perf_counter() - start)


def bench_postgres(scratch: Path) -> list[dict]:
    "memory_store, memory_retrieve and memory_search on PostgreSQL beside the same tools on SQLite, both durable (commit on disk)."
    with postgres_dsn() as dsn:
        if dsn is None:
            print('# PostgreSQL rows skipped: no server programs (run tools/ensure_postgres) and no $TOOLCALL_BENCH_POSTGRES', file=sys.stderr)
            return []
        import psycopg
        table = f'bench_{uuid.uuid4().hex[:8]}'
        on_postgres = MemoryToolset(backend=PostgresBackend(dsn, table=table, max_connections=8))
        on_sqlite = MemoryToolset(backend=SQLiteBackend(scratch / 'versus_postgres.db'))   # synchronous=FULL, the default
        raw = psycopg.connect(dsn, autocommit=True)
        raw.execute(f'CREATE TABLE raw_{table} (key text PRIMARY KEY, value text)')
        upsert = f'INSERT INTO raw_{table} VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value=EXCLUDED.value'
        rows = [compare('memory_store, PostgreSQL (durable commit)', 'MemoryToolset(postgresql://)',
                        lambda i: on_postgres.store(f'k{i % 500}', f'value {i}', tags=['bench']),
                        'MemoryToolset(path), SQLite FULL', lambda i: on_sqlite.store(f'k{i % 500}', f'value {i}', tags=['bench']), 300),
                compare('memory_store, PostgreSQL: cost of the layer', 'MemoryToolset(postgresql://)',
                        lambda i: on_postgres.store(f'k{i % 500}', f'value {i}', tags=['bench']),
                        'raw psycopg upsert, autocommit', lambda i: raw.execute(upsert, (f'k{i % 500}', f'value {i}')), 300)]
        for i in range(500): on_postgres.store(f'k{i}', f'value {i}', tags=['bench']); on_sqlite.store(f'k{i}', f'value {i}', tags=['bench'])
        rows.append(compare('memory_retrieve, PostgreSQL (bumps access count)', 'MemoryToolset(postgresql://)',
                            lambda i: on_postgres.retrieve(f'k{i % 500}'), 'MemoryToolset(path), SQLite FULL',
                            lambda i: on_sqlite.retrieve(f'k{i % 500}'), 300))
        rows.append(compare('memory_search, 500 memories, PostgreSQL', 'MemoryToolset(postgresql://)', lambda i: on_postgres.search('value 4?9'),
                            'MemoryToolset(path), SQLite', lambda i: on_sqlite.search('value 4?9'), 30))
        threads, per_thread = 8, 40
        rows.append(row('memory_store from 8 threads at once', 'MemoryToolset(postgresql://), pool of 8',
                        threaded_per_second(lambda t, i: on_postgres.store(f't{t}-{i}', 'v'), threads, per_thread),
                        'MemoryToolset(path), SQLite FULL', threaded_per_second(lambda t, i: on_sqlite.store(f't{t}-{i}', 'v'), threads, per_thread),
                        'ops/s'))
        raw.execute(f'DROP TABLE raw_{table}'); raw.execute(f'DROP TABLE {table}'); raw.close()
        on_postgres.close(); on_sqlite.close()
        return rows


def run() -> list[dict]:
    scratch = Path(tempfile.mkdtemp())
    try: return bench_memory(scratch) + bench_postgres(scratch) + bench_search() + bench_files(scratch)
    finally: shutil.rmtree(scratch, ignore_errors=True)

main = run


def print_table(rows: list[dict]):
    header = f"{'benchmark':44} {'ours':34} {'value':>12}   {'baseline':36} {'value':>12} {'unit':6} {'ratio':>8}"
    print(header); print('-' * len(header))
    for r in rows:
        print(f"{r['benchmark']:44} {r['ours']:34} {r['ours_value']:12.4g}   {r['baseline']:36} {r['baseline_value']:12.4g} "
              f"{r['unit']:6} {r['ratio']:8.3g}")
    print("ratio = ours / baseline; ops/s rows are best of 3 alternating rounds (higher is better), 's' rows lower is better")


if __name__ == '__main__':
    print_table(run())
