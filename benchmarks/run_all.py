"""Run every benchmark in this folder and print one table of their figures, each beside its peer.

    python benchmarks/run_all.py            # all of them
    python benchmarks/run_all.py parse dispatch

Each `bench_X.py` stays runnable on its own and exposes `run()`, returning its rows as dicts; this script
turns each benchmark's rows into one common shape: what was measured, our figure, the peer or baseline
figure measured in the same run, their ratio, and the goal with whether it was met.
"""
import importlib, sys, time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

def _goal(met): return '' if met is None else ('met' if met else 'MISSED')

def schema_rows(rows):
    peer = next(r for r in rows if r['case'].startswith('pydantic'))
    for r in rows:
        if r is peer: continue
        goal = f"< {r['goal_us']} µs {_goal(r['goal_met'])}" if r.get('goal_us') else ''
        yield r['case'], f"{r['us_per_call']:.2f} µs", f"{peer['us_per_call']:.2f} µs (pydantic TypeAdapter)", r['ratio_vs_pydantic'], goal

def dispatch_rows(rows):
    pydantic = next(r for r in rows if 'validate_call' in r['case'])
    for r in rows:
        if r['overhead_us'] == 0 or r is pydantic: continue
        goal = f"< 10 µs {_goal(r['overhead_us'] < 10)}" if r['case'].startswith('call_func') else ''
        yield (r['case'] + ' (overhead)', f"{r['overhead_us']:.2f} µs", f"{pydantic['overhead_us']:.2f} µs (validate_call)",
               r['overhead_vs_validate_call'], goal)

def toolset_rows(rows):
    for r in rows:
        yield (f"{r['benchmark']}: {r['ours']}", f"{r['ours_value']:.4g} {r['unit']}",
               f"{r['baseline_value']:.4g} {r['unit']} ({r['baseline']})", round(r['ratio'], 2), '')

def interp_rows(rows):
    for r in rows:
        peers = [(r['in_process_ms'], 'in-process'), (r['python_c_ms'], 'python -c'), (r['jupyter_ms'], 'Jupyter')]
        peer = ', '.join(f'{ms:.3f} ms {name}' for ms, name in peers if ms is not None)
        ratio = r['sandbox_vs_jupyter'] if r['sandbox_vs_jupyter'] is not None else r['sandbox_vs_python_c']
        goal = f"{r['goal']} {_goal(r['meets_goal'])}" if r['goal'] is not None else ''
        yield r['task'], f"{r['sandbox_ms']:.3f} ms", peer, ratio, goal

def parse_rows(rows):
    for r in rows:
        yield (f"{r['case']} ({r['chars']:,} chars)", f"{r['parse_ms']:.3f} ms, {r['mb_per_s']:.1f} MB/s",
               f"{r['json_loads_ms']:.3f} ms (json.loads)", round(r['ratio'], 2), f"{r['goal']} {_goal(r['met'])}")

def loop_rows(rows):
    for r in rows:
        if r.get('kind') == 'stream':
            yield r['case'], f"{r['ours_us']:.2f} µs/event", f"{r['sdk_us']:.2f} µs/event ({r['sdk']})", r['ratio'], f"<= 2x {_goal(r['ratio'] <= 2)}"
            continue
        yield (f"collect_stream, {r['case']} ({r['events']} events, dicts)", f"{r['ours_dicts_us']:.2f} µs/event",
               f"{r['sdk_us']:.2f} µs/event ({r['sdk']})", r['ratio_dicts'], '')
        yield (f"collect_stream, {r['case']} (SDK objects)", f"{r['ours_objects_us']:.2f} µs/event",
               f"{r['sdk_us']:.2f} µs/event ({r['sdk']})", r['ratio_objects'], '')

def mcp_rows(rows):
    for r in rows:
        goal = f"{r['goal']} {_goal(r['goal_met'])}" if r['goal'] else ''
        yield r['case'], f"{r['ours_ms']:.3f} ms", f"{r['peer_ms']:.3f} ms ({r['peer']})", r['ratio'], goal

def tool_search_rows(rows):
    for r in rows:
        peer = f"{r['peer']:.4g} {r['unit']} ({r['peer_name']})" if r.get('peer') else ''
        yield r['case'], f"{r['value']:.4g} {r['unit']}", peer, round(r['value'] / r['peer'], 4) if r.get('peer') else None, ''

ADAPTERS = {'schema': schema_rows, 'dispatch': dispatch_rows, 'toolset': toolset_rows, 'interp': interp_rows, 'parse': parse_rows,
            'loop': loop_rows, 'mcp': mcp_rows, 'tool_search': tool_search_rows}

def collect(names) -> list:
    "Run the named benchmarks; return (benchmark, case, ours, peer, ratio, goal) rows."
    table = []
    for name in names:
        started = time.perf_counter()
        rows = importlib.import_module(f'bench_{name}').run()
        table += [(name, *row) for row in ADAPTERS[name](rows)]
        print(f'# {name}: {time.perf_counter() - started:.1f} s', file=sys.stderr)
    return table

def print_table(table):
    header = ('benchmark', 'case', 'ours', 'peer / baseline (same run)', 'ratio', 'goal')
    cells = [header] + [tuple('' if c is None else str(c) for c in row) for row in table]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    for index, row in enumerate(cells):
        print('  '.join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
        if index == 0: print('  '.join('-' * width for width in widths))

def main(argv=None):
    names = (sys.argv[1:] if argv is None else argv) or list(ADAPTERS)
    unknown = [n for n in names if n not in ADAPTERS]
    if unknown: sys.exit(f'unknown benchmark(s) {unknown}: choose from {list(ADAPTERS)}')
    table = collect(names)
    print_table(table)
    return table

if __name__ == '__main__': main()
