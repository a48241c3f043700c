"""Benchmark the sandboxed python tool against its peers, all measured in one run.

For each task (cold start, a warm `1+1` round trip, a 10,000-iteration loop) it times:
- `Sandbox`: the isolated worker session (toolcall_lib.interp.Sandbox),
- in-process: `run_python_here`, the trusted runner (no isolation at all),
- `python -c`: starting a fresh interpreter for the code, the naive way to isolate each call,
- execnb: `execnb.shell.CaptureShell().run(...)`, IPython in-process (no isolation), the fast.ai tools' shell,
- Jupyter: a real `ipykernel` kernel driven by `jupyter_client` (start, and an execute round trip), the kernel a
  user would otherwise pick.
The Sandbox runs cells in IPython's `InteractiveShell` too, so the execnb and Jupyter columns compare like with like.
Figures are medians in milliseconds; ratios are Sandbox / peer. Goals: warm round trip < 1 ms, first cold start
< 200 ms (the template imports IPython), later cold starts < 30 ms (each session builds its own mount namespace,
root and cgroups).
Cold start is the time `Sandbox()` takes to return a session ready to run code, twice: for the first session of a
program (which also starts the template process every session is forked from) and for any later one. Closing a
session (kill, wait until it is gone, remove its cgroups) is timed on its own row.

Code mode (`Sandbox(tools=...)`) gets a table of its own: a tool call from inside a cell to a trivial host function,
round trip median measured in the cell over 1,000 calls in one cell (goal < 0.5 ms), beside a direct `call_func` of the
same function in the host, in the same run; the whole cell of 1,000 calls, one after another and gathered
(`asyncio.gather` over `call_async`); and 16 gathered calls to a function that takes 0.1 s, beside 16 `call_func`s
one after another (the host runs a cell's calls at once, 16 at most).

Run: python benchmarks/bench_interp.py [--repeat N]"""
import argparse, asyncio, statistics, subprocess, sys, threading, time
from toolcall_lib.interp import Sandbox, run_python_here, _template

LOOP = 'total = 0\nfor i in range(10000): total += i\ntotal'
# issue 26: (what is measured, the limit)
GOALS = {'cold start, first session': ('vs Jupyter', 0.5), 'cold start, next session': ('vs python -c', 1.5),
         'warm 1+1 round trip': ('ms', 1.0), 'warm 1+1, busy host thread': ('ms', 2.0)}


def median_ms(action, repeat:int, setup=None, teardown=None) -> float:
    "Median wall time of `action()` over `repeat` calls (each between an untimed `setup()` and `teardown(result)`), in ms."
    times = []
    for _ in range(repeat):
        made = setup() if setup is not None else None
        started = time.perf_counter()
        result = action() if made is None else action(made)
        times.append((time.perf_counter() - started) * 1000)
        if teardown is not None: teardown(result)
    return statistics.median(times)


def fresh_python(code:str):
    "Run `code` in a brand-new interpreter, printing the value of its last line."
    lines = code.split('\n')
    source = '\n'.join(lines[:-1] + [f'print({lines[-1]})'])
    completed = subprocess.run([sys.executable, '-c', source], capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr


def close_session(session): session.close()


def execnb_shell():
    "execnb's CaptureShell, or None where execnb is not installed."
    try: from execnb.shell import CaptureShell
    except ImportError: return None
    return CaptureShell()


def jupyter_kernel():
    "A started ipykernel and a ready client, or (None, None) where jupyter_client or ipykernel is missing."
    try: from jupyter_client.manager import start_new_kernel
    except ImportError: return None, None
    try: return start_new_kernel(kernel_name='python3')
    except Exception: return None, None


def jupyter_run(client, code:str):
    "Execute `code` in the kernel and wait for its reply (a full round trip)."
    reply = client.execute_interactive(code, timeout=30, output_hook=lambda message: None)
    assert reply['content']['status'] == 'ok', reply


def stop_kernel(started):
    manager, client = started
    client.stop_channels(); manager.shutdown_kernel(now=True)


def busy_thread():
    "Start a CPU-bound thread in this process (pure Python, never sleeps); return the function that stops it."
    stop = threading.Event()
    def spin():
        count = 0
        while not stop.is_set(): count += 1
    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    time.sleep(0.05)
    return lambda: (stop.set(), thread.join())


def jupyter_first_cell():
    "Start a Jupyter kernel and run its first cell (what a user waits for before a first result); return the started kernel."
    started = jupyter_kernel()
    jupyter_run(started[1], '1+1')
    return started


def awaited_ms(sandbox, code:str, repeat:int) -> float:
    "Median ms of `await sandbox.run_async(code)` on an asyncio loop."
    async def measure():
        await sandbox.run_async(code)
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            await sandbox.run_async(code)
            times.append((time.perf_counter() - started) * 1000)
        return statistics.median(times)
    return asyncio.run(measure())


def run(repeat:int=200) -> list:
    "Measure every task; return one dict per row."
    cold_repeat = max(5, repeat // 20)
    python_pass_ms = median_ms(lambda: subprocess.run([sys.executable, '-c', 'pass'], check=True), cold_repeat)
    python_c_ms = median_ms(lambda: fresh_python('1+1'), cold_repeat)
    first_ms = median_ms(lambda _: Sandbox(), cold_repeat, setup=lambda: _template.close() or 'no template', teardown=close_session)
    next_ms = median_ms(Sandbox, cold_repeat * 2, teardown=close_session)
    close_ms = median_ms(close_session, cold_repeat * 2, setup=Sandbox)
    sandbox = Sandbox()
    namespace = {}
    assert sandbox.run('1+1').value == '2' and run_python_here('1+1', namespace) == 2
    assert sandbox.run(LOOP).value == str(sum(range(10000)))
    shell = execnb_shell()
    manager, client = jupyter_kernel()
    jupyter_start_ms = None if manager is None else median_ms(lambda _: jupyter_first_cell(), 3, setup=lambda: 'start', teardown=stop_kernel)
    execnb = lambda code: None if shell is None else median_ms(lambda: shell.run(code), repeat * 5 if code == '1+1' else repeat)
    jupyter = lambda code, times=repeat: None if client is None else median_ms(lambda: jupyter_run(client, code), times)
    rows = [('cold start, first session', first_ms, None, python_pass_ms, None, jupyter_start_ms),
            ('cold start, next session', next_ms, None, python_pass_ms, None, jupyter_start_ms),
            ('close a session', close_ms, None, None, None, None),
            ('warm 1+1 round trip', median_ms(lambda: sandbox.run('1+1'), repeat * 5),
             median_ms(lambda: run_python_here('1+1', namespace), repeat * 5), python_c_ms, execnb('1+1'), jupyter('1+1')),
            ('warm 1+1, awaited', awaited_ms(sandbox, '1+1', repeat * 5), None, None, None, None)]
    stop = busy_thread()
    try:
        rows.append(('warm 1+1, busy host thread', median_ms(lambda: sandbox.run('1+1'), repeat * 2),
                     median_ms(lambda: run_python_here('1+1', namespace), repeat * 2), None,
                     None if shell is None else median_ms(lambda: shell.run('1+1'), repeat * 2), jupyter('1+1', repeat // 2)))
    finally: stop()
    rows.append(('10,000-iteration loop', median_ms(lambda: sandbox.run(LOOP), repeat),
                 median_ms(lambda: run_python_here(LOOP, namespace), repeat), median_ms(lambda: fresh_python(LOOP), cold_repeat),
                 execnb(LOOP), jupyter(LOOP)))
    sandbox.close()
    if manager is not None: stop_kernel((manager, client))
    result = []
    for task, sandbox_ms, in_process_ms, python_c_ms, execnb_ms, jupyter_ms in rows:
        ratio = lambda peer: None if peer is None else round(sandbox_ms / peer, 3)
        row = {'task': task, 'sandbox_ms': round(sandbox_ms, 3),
               'execnb_ms': None if execnb_ms is None else round(execnb_ms, 3),
               'jupyter_ms': None if jupyter_ms is None else round(jupyter_ms, 3), 'sandbox_vs_jupyter': ratio(jupyter_ms),
               'in_process_ms': None if in_process_ms is None else round(in_process_ms, 3),
               'python_c_ms': None if python_c_ms is None else round(python_c_ms, 3),
               'sandbox_vs_in_process': ratio(in_process_ms), 'sandbox_vs_python_c': ratio(python_c_ms)}
        goal = GOALS.get(task)
        if goal is None: row.update(goal=None, meets_goal=None)
        else:
            kind, limit = goal
            measured = {'ms': row['sandbox_ms'], 'vs Jupyter': row['sandbox_vs_jupyter'], 'vs python -c': row['sandbox_vs_python_c']}[kind]
            row.update(goal=f'<{limit:g} ms' if kind == 'ms' else f'<={limit:g}x {kind[3:]}',
                       meets_goal=None if measured is None else (measured < limit if kind == 'ms' else measured <= limit))
        result.append(row)
    return result


def micro_us(action, repeat:int) -> float:
    "Median µs of `action()`, timed in batches of 20 calls."
    times = []
    for _ in range(max(5, repeat // 20)):
        started = time.perf_counter()
        for _ in range(20): action()
        times.append((time.perf_counter() - started) / 20 * 1e6)
    return statistics.median(times)


def worker_steps(repeat:int) -> dict:
    """The worker's own steps for one `1+1` cell, measured in this process (run by `step_rows` in a fresh interpreter,
    as the worker is one): the IPython shell made as the template makes it, and the request loop's work around a cell."""
    from toolcall_lib.interp import worker
    from toolcall_lib.interp.protocol import _FrameReader, _pack_frame
    worker._warm_up_shell()
    kernel = worker._Kernel()
    kernel.run('1+1', 20000)
    request = _pack_frame({'op': 'run', 'id': 1, 'code': '1+1', 'max_output': 20000})
    reply = dict(kernel.run('1+1', 20000), id=1)
    reader = _FrameReader(0)
    def shut_and_open():
        saved, _ = worker._shut_window()
        worker._open_window(saved)
    def loop_checks():
        worker._leftover_threads(); worker._end_child_processes(); worker._thread_count()
    return {'worker: decode the request': micro_us(lambda: reader.decode(request[4:]), repeat),
            'worker: run the cell in IPython': micro_us(lambda: kernel.run('1+1', 20000), repeat),
            'worker: threads and processes left?': micro_us(loop_checks, repeat),
            'worker: shut and open the window': micro_us(shut_and_open, repeat),
            'worker: encode the reply': micro_us(lambda: _pack_frame(reply), repeat)}


def pipe_round_trip_us(repeat:int) -> float:
    "Median µs of a one-byte ping-pong with a child process over two pipes: two wake-ups, the floor of any exchange."
    import os
    to_child, from_parent = os.pipe()
    from_child, to_parent = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(from_parent); os.close(from_child)
        while os.read(to_child, 1): os.write(to_parent, b'.')
        os._exit(0)
    os.close(to_child); os.close(to_parent)
    try: return micro_us(lambda: (os.write(from_parent, b'.'), os.read(from_child, 1)), repeat)
    finally:
        os.close(from_parent); os.waitpid(pid, 0); os.close(from_child)


def step_rows(repeat:int=200) -> list:
    "What one warm `Sandbox.run('1+1')` costs, step by step, each measured on its own; the rest is waking up and scheduling."
    import json, os
    from toolcall_lib.interp.protocol import _pack_frame
    script = f'import json, sys; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); import bench_interp; print(json.dumps(bench_interp.worker_steps({repeat})))'
    steps = json.loads(subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, check=True).stdout)
    with Sandbox() as sandbox:
        sandbox.run('1+1')
        worker = sandbox._worker
        reply = dict(json.loads('{"outputs":[{"output_type":"execute_result","data":{"text/plain":"2"},"metadata":{},'
                                '"execution_count":2}],"output_dropped":0,"value_dropped":0,"outputs_dropped":0,'
                                '"interrupted":false,"error":null}'), id=1)
        reply_frame = _pack_frame(reply)
        host = {'host: check the code, encode the request': micro_us(lambda: (sandbox._timeout_for('1+1', None),
                    _pack_frame({'op': 'run', 'id': 1, 'code': '1+1', 'max_output': 20000})), repeat),
                'host: decode the reply': micro_us(lambda: worker.reader.decode(reply_frame[4:]), repeat),
                'host: worker back in its loop? (/proc)': micro_us(worker.where, repeat),
                'host: threads and processes left? (/proc)': micro_us(worker.leftover_tasks, repeat),
                'host: check every field, make the RunResult': micro_us(lambda: sandbox._result(reply, False, 30, 0.0), repeat)}
        total = median_ms(lambda: sandbox.run('1+1'), repeat * 5) * 1000
    floor = pipe_round_trip_us(repeat)
    rows = [{'step': name, 'us': round(us, 1)} for name, us in {**host, **steps}.items()]
    rows.append({'step': 'two pipe wake-ups (ping-pong floor)', 'us': round(floor, 1)})
    rows.append({'step': 'rest: scheduling, the loops themselves', 'us': round(total - sum(row['us'] for row in rows), 1)})
    rows.append({'step': 'Sandbox.run("1+1"), measured whole', 'us': round(total, 1)})
    return rows


def print_steps(rows:list):
    print(); print(f"{'one warm 1+1 round trip, step by step':<48}{'µs':>9}"); print('-' * 57)
    for row in rows: print(f"{row['step']:<48}{row['us']:>9.1f}")


def echo(x:int) -> int:
    "Return `x`: the trivial host function a cell calls in code mode."
    return x

CODE_MODE_CELL = ('import time, statistics\ntimes = []\nfor i in range(1000):\n'
                  '    started = time.perf_counter(); echo(i); times.append(time.perf_counter() - started)\nstatistics.median(times) * 1000')
CODE_MODE_GOAL_MS = 0.5
GATHERED_CELL = 'import asyncio\nfound = await asyncio.gather(*(echo.call_async(i) for i in range(1000)))\nlen(found)'

def slow_echo(x:int) -> int:
    "Return `x` after 0.1 s: a host function that waits on something (a web service, a database)."
    time.sleep(0.1)
    return x

SLOW_CELL = 'import asyncio\nfound = await asyncio.gather(*(slow_echo.call_async(i) for i in range(16)))\nlen(found)'

def code_mode_rows(repeat:int=5) -> list:
    "Code mode: a tool call's round trip from a cell (median of 1,000 in one cell, best cell of `repeat`), beside `call_func`."
    from toolcall_lib.dispatch import call_func
    with Sandbox(tools=[echo, slow_echo]) as sandbox:
        in_cell, cells = [], []
        for _ in range(repeat):
            started = time.perf_counter()
            result = sandbox.run(CODE_MODE_CELL)
            cells.append((time.perf_counter() - started) * 1000)
            assert result.error is None, result.error
            in_cell.append(float(result.value))
        assert sandbox.run(GATHERED_CELL).value == '1000' and sandbox.run(SLOW_CELL).value == '16'
        gathered = median_ms(lambda: sandbox.run(GATHERED_CELL), repeat)
        slow = median_ms(lambda: sandbox.run(SLOW_CELL), repeat)
    direct = median_ms(lambda: call_func('echo', {'x': 1}, {'echo': echo}), 1000)
    slow_direct = median_ms(lambda: call_func('slow_echo', {'x': 1}, {'slow_echo': slow_echo}), 3)
    median = statistics.median(in_cell)
    return [{'task': 'tool call from a cell', 'sandbox_ms': round(median, 4), 'call_func_ms': round(direct, 4),
             'ratio': round(median / direct, 1), 'goal_ms': CODE_MODE_GOAL_MS, 'meets_goal': median < CODE_MODE_GOAL_MS},
            {'task': 'cell of 1,000 tool calls', 'sandbox_ms': round(statistics.median(cells), 3),
             'call_func_ms': round(direct * 1000, 3), 'ratio': round(statistics.median(cells) / (direct * 1000), 1),
             'goal_ms': None, 'meets_goal': None},
            {'task': '1,000 calls gathered', 'sandbox_ms': round(gathered, 3), 'call_func_ms': round(direct * 1000, 3),
             'ratio': round(gathered / (direct * 1000), 1), 'goal_ms': None, 'meets_goal': None},
            # the host runs 16 calls of a cell at once: 16 calls of 0.1 s take about 0.1 s, against 1.6 s one after another
            {'task': '16 gathered 0.1 s calls', 'sandbox_ms': round(slow, 3), 'call_func_ms': round(slow_direct * 16, 3),
             'ratio': round(slow / (slow_direct * 16), 2), 'goal_ms': None, 'meets_goal': None}]

def print_code_mode(rows:list):
    header = f"{'code mode':<28}{'Sandbox ms':>12}{'call_func ms':>14}{'ratio':>9}{'goal':>10}"
    print(); print(header); print('-' * len(header))
    for row in rows:
        goal = '-' if row['goal_ms'] is None else f"<{row['goal_ms']:g} {'ok' if row['meets_goal'] else 'MISS'}"
        print(f"{row['task']:<28}{row['sandbox_ms']:>12.4f}{row['call_func_ms']:>14.4f}{row['ratio']:>8.1f}x{goal:>10}")


def main(argv=None) -> list:
    "Print the table and return the rows."
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=200, help='samples for the fast measurements')
    parser.add_argument('--code-mode-only', action='store_true', help='measure only the code mode table')
    arguments = parser.parse_args(argv)
    if arguments.code_mode_only:
        rows = code_mode_rows()
        print_code_mode(rows)
        return rows
    rows = run(arguments.repeat)
    header = (f"{'task':<28}{'Sandbox ms':>12}{'in-process ms':>15}{'python -c ms':>14}{'execnb ms':>11}{'Jupyter ms':>12}"
              f"{'vs in-proc':>12}{'vs python -c':>14}{'vs Jupyter':>12}{'goal':>22}")
    print(header); print('-' * len(header))
    optional = lambda value, suffix='', digits=3: '-' if value is None else f"{value:.{digits}f}{suffix}"
    for row in rows:
        goal = '-' if row['goal'] is None else f"{row['goal']} {'ok' if row['meets_goal'] else 'MISS'}"
        print(f"{row['task']:<28}{row['sandbox_ms']:>12.3f}{optional(row['in_process_ms']):>15}{optional(row['python_c_ms']):>14}"
              f"{optional(row['execnb_ms']):>11}{optional(row['jupyter_ms']):>12}{optional(row['sandbox_vs_in_process'], 'x', 1):>12}"
              f"{optional(row['sandbox_vs_python_c'], 'x'):>14}{optional(row['sandbox_vs_jupyter'], 'x'):>12}{goal:>22}")
    steps = step_rows(arguments.repeat)
    print_steps(steps)
    code_mode = code_mode_rows()
    print_code_mode(code_mode)
    return rows + steps + code_mode


if __name__ == '__main__': main()
