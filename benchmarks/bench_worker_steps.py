"""The sandbox worker's own per-cell cost, step by step, in this process (no sandbox, no host, no pipes).

Each row times one step of what the worker does for a cell, on a warm `_Kernel` of `toolcall_lib.interp.worker`
(the same shell a session gets): the whole `_Kernel.run` of `1+1` and of `pass`, the parts of IPython's `run_cell`
that it runs for them, and the checks of the worker's request loop (`_serve`) around each cell. The peer, in the same
run, is IPython's plain `InteractiveShell.run_cell` of the same cells (store_history=True, in-memory history, its
prompt written to a throwaway stream). Each figure is the mean time of one call in the fastest of several batches of
calls (the batch least disturbed by other work on the machine, as `timeit` advises), in microseconds; but one row,
`_Kernel.run('1+1')` with the CPU's caches cold, as a sandbox's worker meets it between two cells, is the median of
calls each made after 8 MiB of memory were written (`cold_us`); figures vary with
the machine and its load, so only the same run's figures compare. `--slow` also times the worker with its fast paths
switched off (`worker._FAST_PATHS = False`: IPython's own path for every step), for the same cells.

Goals (issue 26, measured on a 2-core machine): `_Kernel.run('1+1')` <= 300 µs, `_Kernel.run('pass')` <= 200 µs.

Run: python benchmarks/bench_worker_steps.py [--calls N] [--slow]"""
import argparse, ast, io, sys, time
from toolcall_lib.interp import worker

GOALS_US = {"_Kernel.run('1+1')": 300.0, "_Kernel.run('pass')": 200.0}


def fastest_us(action, calls:int, batches:int=15) -> float:
    "The mean time of one `action()` in the fastest of `batches` batches of `calls` calls, in µs (after one untimed call)."
    action()
    means = []
    for _ in range(batches):
        started = time.perf_counter()
        for _ in range(calls): action()
        means.append((time.perf_counter() - started) / calls * 1e6)
    return min(means)


def cold_us(action, calls:int, sweep_mb:int=8) -> float:
    """The median time of one `action()` right after `sweep_mb` MiB of memory were written, which pushes the interpreter's
    code and data out of the CPU's caches (L2 and L3 here: 1 MiB and 8 MiB), in µs. A sandbox's worker meets them so:
    between two of its cells, the host (and, through MCP, a server and a client) ran on the same cores."""
    memory = bytearray(sweep_mb << 20)
    times = []
    for _ in range(calls):
        memory[::64] = bytes(len(memory) // 64)  # a byte in every 64-byte cache line
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1e6)
    return sorted(times)[len(times) // 2]


def kernel_rows(kernel, calls:int) -> list:
    "(step, µs) of the worker's kernel and the IPython steps it runs, on the warm `kernel`."
    shell = kernel.shell
    shell.outputs = worker._CellOutputs(20000)
    tree = shell.compile.ast_parse('1+1\n', filename='<cell-1>.py')
    def compile_last():
        with shell.compile.extra_flags(ast.PyCF_ALLOW_TOP_LEVEL_AWAIT):
            return shell.compile(ast.Interactive([tree.body[0]]), '<cell-1>.py', 'single')
    def builtin_and_display_traps():
        with shell.builtin_trap, shell.display_trap: pass
    def standard_stream_tees():
        with shell._tee(channel='stdout'), shell._tee(channel='stderr'): pass
    rows = [("_Kernel.run('1+1')", lambda: kernel.run('1+1', 20000)), ("_Kernel.run('pass')", lambda: kernel.run('pass', 20000)),
            ("  shell.run_cell('1+1')", lambda: shell.run_cell('1+1', store_history=True)),
            ('    stdout/stderr tees (history of streams)', standard_stream_tees),
            ("    transform_cell('1+1'), all of it", lambda: shell.transform_cell('1+1')),
            ('      static transforms', lambda: shell.input_transformer_manager.transform_cell('1+1')),
            ('      prefilter (automagic, autocall)', lambda: shell.prefilter_manager.prefilter_lines('1+1\n')),
            ('    should_run_async (top-level await?)', lambda: shell.should_run_async('1+1', transformed_cell='1+1\n')),
            ('    history: store_inputs', lambda: shell.history_manager.store_inputs(1, '1+1\n', '1+1')),
            ('    builtin and display traps', builtin_and_display_traps),
            ('    ast_parse', lambda: shell.compile.ast_parse('1+1\n', filename='<cell-1>.py')),
            ('    compile the last expression', compile_last),
            ("    displayhook: ends in ';'?", shell.displayhook.quiet),
            ('    displayhook: format the value', lambda: shell.display_formatter.format(2)),
            ('      text/plain formatter alone', lambda: shell.display_formatter.formatters['text/plain'](2)),
            ('    displayhook: _, __, _N, Out', lambda: shell.displayhook.update_user_ns(2)),
            ('  end of cell: figures, script loop, executors',
             lambda: (worker._collect_figures(), kernel._stop_script_loop(), kernel._stop_default_executors()))]
    try:
        timed = [(name, fastest_us(action, calls)) for name, action in rows]
        cold = [("_Kernel.run('1+1'), caches cold", cold_us(rows[0][1], max(calls // 5, 20)))]
        return timed[:2] + cold + timed[2:]
    finally: shell.outputs = None


def serve_rows(calls:int) -> list:
    "(step, µs) of the checks `_serve` makes around each cell."
    steps = [('_serve: shut and open the window', lambda: worker._open_window(worker._shut_window()[0])),
             ('_serve: threads left running', worker._leftover_threads),
             ('_serve: end child processes', worker._end_child_processes),
             ('_serve: count threads', worker._thread_count)]
    return [(name, fastest_us(action, calls)) for name, action in steps]


def peer_rows(calls:int) -> list:
    "(step, µs) of IPython's plain `InteractiveShell.run_cell` of the same cells, its prompt written to a throwaway stream."
    from traitlets.config import Config
    from IPython.core.interactiveshell import InteractiveShell
    config = Config()
    config.HistoryManager.hist_file = ':memory:'
    peer = InteractiveShell(config=config)
    saved, sys.stdout = sys.stdout, io.StringIO()
    try:
        rows = []
        for cell in ('1+1', 'pass'):
            sys.stdout = io.StringIO()
            rows.append((f"IPython InteractiveShell.run_cell({cell!r})", fastest_us(lambda: peer.run_cell(cell, store_history=True), calls)))
        return rows
    finally: sys.stdout = saved


def run(calls:int=500, slow:bool=False) -> list:
    """The rows: (step, µs, µs with the fast paths off or None) of the worker, then of the peer (the third figure only
    with `slow`)."""
    worker._warm_up_shell()
    kernel = worker._Kernel()
    rows = kernel_rows(kernel, calls)
    off = [None] * len(rows)
    if slow:
        worker._FAST_PATHS = False
        try: off = [value for _, value in kernel_rows(kernel, calls)]
        finally: worker._FAST_PATHS = True
    rows = [(name, value, value_off) for (name, value), value_off in zip(rows, off)]
    return rows + [(name, value, None) for name, value in serve_rows(calls) + peer_rows(calls)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--calls', type=int, default=500, help="calls per timed batch")
    parser.add_argument('--slow', action='store_true', help='also time the worker with its fast paths off')
    arguments = parser.parse_args()
    rows = run(arguments.calls, arguments.slow)
    width = max(len(name) for name, _, _ in rows)
    print(f"{'step'.ljust(width)}  {'µs':>8}  {'fast paths off' if arguments.slow else ''}  goal")
    for name, value, value_off in rows:
        goal = GOALS_US.get(name)
        verdict = '' if goal is None else f"<= {goal:.0f} {'met' if value <= goal else 'MISSED'}"
        off = f'{value_off:14.1f}' if value_off is not None else ' ' * 14 if arguments.slow else ''
        print(f'{name.ljust(width)}  {value:8.1f}  {off}  {verdict}')


if __name__ == '__main__': main()
