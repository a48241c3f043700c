"""Benchmark `RaySandboxPool` on a two-node Ray cluster on this machine beside the local `SandboxPool`, in one run.

The cluster is Ray's own test cluster (`ray.cluster_utils.Cluster`): a head node and a second node, each its own raylet,
object store and worker processes, as `ray start --head` plus `ray start --address` would make; both run here, so
the cluster column pays Ray's hops without the network's. For each pool, over `--sessions` sessions (200 by default):

- start: the time of each session's first cell (`x = 0`), which starts its sandbox; median and 95th percentile,
  with the sessions started `--threads` at a time;
- cells per second: every session runs `--cells` more cells (`x += 1`), `--threads` driver threads at once;
- memory per session: the proportional set size (PSS, shared pages split among their sharers) of every process this
  benchmark started, after the sessions' first cells minus before, divided by the sessions;
- a warm round trip: one session's `x += 1`, median of 50, with nothing else running.

The cluster pool runs twice: as it runs by default (a snapshot after every cell, so that a session survives its
node) and with `snapshot_every=None` (what Ray's hop costs alone). Both pools run with `isolation='partial'`'s
default layers, as a `Sandbox()` would here.

Run: python benchmarks/bench_ray_pool.py [--sessions 200] [--cells 5] [--threads 8]"""
import argparse, os, statistics, threading, time
from concurrent.futures import ThreadPoolExecutor


def descendants_pss_kib() -> int:
    "PSS in KiB of every process descended from this one (Ray's raylets, its workers, the sandboxes they started)."
    children, total = {}, 0
    for pid in os.listdir('/proc'):
        if not pid.isdigit(): continue
        try:
            with open(f'/proc/{pid}/stat') as f: parent = int(f.read().rsplit(')', 1)[1].split()[1])
        except OSError: continue
        children.setdefault(parent, []).append(int(pid))
    todo = list(children.get(os.getpid(), []))
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            with open(f'/proc/{pid}/smaps_rollup') as f:
                total += next(int(line.split()[1]) for line in f if line.startswith('Pss:'))
        except (OSError, StopIteration): pass
    return total


def measure(run, keys:list, cells:int, threads:int) -> dict:
    "Start each session in `keys` with `run(key, code)`, then run `cells` cells in each; the figures of the docstring."
    before = descendants_pss_kib()
    def first(key):
        started = time.perf_counter()
        result = run(key, 'x = 0')
        assert result.ok, result
        return (time.perf_counter() - started) * 1000
    with ThreadPoolExecutor(threads) as ex: starts = sorted(ex.map(first, keys))
    time.sleep(0.5)   # let the sessions settle before reading memory
    per_session = (descendants_pss_kib() - before) / 1024 / len(keys)
    def more(key):
        for _ in range(cells): assert run(key, 'x += 1').ok
    started = time.perf_counter()
    with ThreadPoolExecutor(threads) as ex: list(ex.map(more, keys))
    rate = len(keys) * cells / (time.perf_counter() - started)
    assert run(keys[0], 'x').value == str(cells)
    warm = []
    for _ in range(50):
        started = time.perf_counter(); run(keys[0], 'x += 1'); warm.append((time.perf_counter() - started) * 1000)
    return {'start median (ms)': statistics.median(starts), 'start p95 (ms)': starts[int(len(starts) * 0.95) - 1],
            'cells per second': rate, 'memory per session (MiB)': per_session, 'warm round trip (ms)': statistics.median(warm)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sessions', type=int, default=200)
    parser.add_argument('--cells', type=int, default=5)
    parser.add_argument('--threads', type=int, default=8)
    args = parser.parse_args()
    import ray
    from ray.cluster_utils import Cluster
    from toolcall_lib.interp import SandboxPool
    from toolcall_lib.ray_pool import RaySandboxPool
    keys = [f'session-{i}' for i in range(args.sessions)]
    columns = {}

    with SandboxPool(max_sessions=args.sessions, idle_timeout=None) as pool:
        columns['local SandboxPool'] = measure(lambda key, code: pool.get(key).run(code), keys, args.cells, args.threads)

    cluster = Cluster(initialize_head=True, head_node_args={'num_cpus': 1})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, namespace='toolcall_bench', log_to_driver=False)
    try:
        while sum(node['Alive'] for node in ray.nodes()) < 2: time.sleep(0.1)
        per_node = args.sessions   # room for every session on either node: Ray's placement decides the spread
        for label, every in (('Ray, 2 nodes, snapshot each cell', 1), ('Ray, 2 nodes, no snapshots', None)):
            with RaySandboxPool(name=f'bench-{every}', max_sessions=per_node, snapshot_every=every) as pool:
                columns[label] = measure(pool.run, keys, args.cells, args.threads)
                homes = [pool.node_of(key) for key in keys]
                columns[label]['sessions per node'] = '/'.join(str(homes.count(n)) for n in sorted(set(homes)))
    finally:
        ray.shutdown()
        cluster.shutdown()

    rows = list(next(iter(columns.values())))
    width = max(map(len, rows)) + 2
    print(f'{args.sessions} sessions, {args.cells} cells each after the first, {args.threads} driver threads, '
          f'{os.cpu_count()} cores')
    print(''.ljust(width) + ''.join(label.rjust(36) for label in columns))
    for row in rows:
        cells = [columns[label].get(row, '') for label in columns]
        print(row.ljust(width) + ''.join((f'{v:.1f}' if isinstance(v, float) else str(v)).rjust(36) for v in cells))


if __name__ == '__main__': main()
