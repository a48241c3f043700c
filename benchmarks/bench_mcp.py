"""Benchmark MCP round trips: toolcall_lib's server beside the official SDK's own `MCPServer`, in one run.

Cases (each a `tools/call` from the SDK's `Client`, timed from send to result, median in milliseconds):
- `add(a, b)` over stdio: `serve([add])` (tool_schema definition, call_func_async dispatch) beside `MCPServer`
  serving the same function with `@server.tool()`. Goal: within 1.2x of the SDK's server.
- the same in-process (the SDK's memory transport), which shows the server-side cost without the pipes.
- the `python` tool over stdio (`python_server`, code `1+1`), beside `Sandbox.run('1+1')` called directly and the
  SDK server's `add` round trip (what MCP itself costs).
- the `python` tool over streamable HTTP (`python_server(session_handles=True)`, a `legacy`-mode client keeping its
  session), beside the SDK server's `add` over HTTP. Goal (issue 26): at most 1.3x; over stdio under 3 ms and at most
  1.3x the SDK's `add`.
- `Sandbox.run('1+1')` beside a bare Jupyter kernel executing `1+1` through jupyter_client (no isolation at all),
  the engine of the Jupyter-kernel MCP servers.
Both servers run at once and are timed in alternating blocks, so load on the machine falls on both alike.
A second table splits one `python` call over stdio into its steps, stamped inside a stdio server (`STEPS_SERVER`, the
`python_server` with timing wrappers around its methods, which cost a little themselves): the SDK's server reading and
routing the request, dispatch, the sandbox's own steps (the request written, the worker running the cell, the checks
that the worker is back in its read with nothing left running, the reply made a `RunResult`), the result's conversion,
the SDK writing it; the client and both pipes are what the whole call, timed by the client, adds to that.

Run: python benchmarks/bench_mcp.py [--calls N]"""
import argparse, asyncio, contextlib, json, socket, statistics, subprocess, sys, tempfile, textwrap, time
from pathlib import Path

from mcp import Client, StdioServerParameters

TOOL_MODULE = '''
def add(a:int, # First number
        b:int, # Second number
       ) -> int:
    "Add two integers."
    return a + b
'''
OURS = 'from tools import add\nfrom toolcall_lib.mcp import serve\nserve([add])\n'
SDK = 'from tools import add\nfrom mcp.server import MCPServer\nserver = MCPServer("sdk", log_level="WARNING")\nserver.tool()(add)\nserver.run()\n'
PYTHON = 'from toolcall_lib.mcp import python_server\npython_server().run()\n'
PYTHON_HTTP = 'import sys\nfrom toolcall_lib.mcp import python_server, serve\nserve(python_server(session_handles=True), "http", port=int(sys.argv[1]))\n'
SDK_HTTP = ('import sys\nfrom tools import add\nfrom mcp.server import MCPServer\nserver = MCPServer("sdk", log_level="WARNING")\n'
            'server.tool()(add)\nserver.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]), streamable_http_path="/mcp")\n')
# issue 26: the python tool at most 1.3x the SDK's own server answering `add` over the same transport, and under 3 ms over stdio
GOALS = {('add over stdio', "SDK's MCPServer"): ('ratio', 1.2),
         ('python 1+1 over stdio', "SDK's MCPServer add (MCP floor)"): ('both', (3.0, 1.3)),
         ('python 1+1 over HTTP', "SDK's MCPServer add over HTTP"): ('ratio', 1.3)}


async def timed_calls(client, name:str, arguments:dict, count:int, expect) -> list:
    "Milliseconds of `count` sequential calls."
    times = []
    for _ in range(count):
        started = time.perf_counter()
        result = await client.call_tool(name, arguments)
        times.append((time.perf_counter() - started) * 1000)
        assert not result.is_error and result.content[0].text == expect, result
    return times


async def alternate(clients:dict, name:str, arguments:dict, expect:str, calls:int, block:int=50, requests:dict|None=None) -> dict:
    """Median ms per client, timed in alternating blocks of `block` calls after a warm-up; `requests`: label -> (name,
    arguments, expect) for clients that are sent another call."""
    samples, requests = {label: [] for label in clients}, requests or {}
    asked = {label: requests.get(label, (name, arguments, expect)) for label in clients}
    for label, client in clients.items(): await timed_calls(client, *asked[label][:2], 30, asked[label][2])
    for _ in range(max(1, calls // block)):
        for label, client in clients.items(): samples[label] += await timed_calls(client, *asked[label][:2], block, asked[label][2])
    return {label: statistics.median(times) for label, times in samples.items()}


def jupyter_kernel_ms(calls:int) -> float:
    "Median ms of executing `1+1` in a bare IPython kernel through jupyter_client (what a Jupyter-kernel MCP server runs on)."
    from jupyter_client.manager import start_new_kernel
    manager, client = start_new_kernel(kernel_name='python3')
    try:
        times = []
        for index in range(calls + 30):
            started = time.perf_counter()
            reply = client.execute_interactive('1+1', timeout=30, output_hook=lambda message: None)
            if index >= 30: times.append((time.perf_counter() - started) * 1000)
            assert reply['content']['status'] == 'ok', reply
        return statistics.median(times)
    finally:
        client.stop_channels(); manager.shutdown_kernel(now=True)


@contextlib.contextmanager
def http_server(folder:Path, script:str):
    "Run `script` (a server taking its port as argument) in a subprocess; yield its URL once it accepts connections."
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        port = probe.getsockname()[1]
    path = folder/f'http_{abs(hash(script))}.py'
    path.write_text(script)
    process = subprocess.Popen([sys.executable, str(path), str(port)], cwd=str(folder), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None and time.monotonic() < deadline, 'the HTTP server did not start'
            with socket.socket() as probe:
                if probe.connect_ex(('127.0.0.1', port)) == 0: break
            time.sleep(0.1)
        yield f'http://127.0.0.1:{port}/mcp'
    finally:
        process.terminate(); process.wait(timeout=10)


def stdio(folder:Path, script:str) -> StdioServerParameters:
    path = folder/f'server_{abs(hash(script))}.py'
    path.write_text(script)
    return StdioServerParameters(command=sys.executable, args=[str(path)], cwd=str(folder))


async def measure(calls:int) -> list:
    from toolcall_lib.interp import Sandbox
    from toolcall_lib.mcp import mcp_server, python_server
    from mcp.server import MCPServer
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        (folder/'tools.py').write_text(TOOL_MODULE)
        sys.path.insert(0, directory)
        from tools import add
        async with Client(stdio(folder, OURS)) as ours, Client(stdio(folder, SDK)) as sdk:
            stdio_ms = await alternate({'ours': ours, 'sdk': sdk}, 'add', {'a': 2, 'b': 3}, '5', calls)
        sdk_server = MCPServer('sdk', log_level='WARNING')
        sdk_server.tool()(add)
        async with Client(mcp_server([add])) as ours, Client(sdk_server) as sdk:
            in_process_ms = await alternate({'ours': ours, 'sdk': sdk}, 'add', {'a': 2, 'b': 3}, '5', calls)
        async with Client(stdio(folder, PYTHON)) as interpreter, Client(stdio(folder, SDK)) as sdk:
            both = await alternate({'python': interpreter, 'sdk': sdk}, 'python', {'code': '1+1'}, '2', calls,
                                   requests={'sdk': ('add', {'a': 2, 'b': 3}, '5')})
            python_ms, mcp_floor_ms = both['python'], both['sdk']
        with http_server(folder, PYTHON_HTTP) as python_url, http_server(folder, SDK_HTTP) as sdk_url:
            async with Client(python_url, mode='legacy') as interpreter, Client(sdk_url, mode='legacy') as sdk:
                both = await alternate({'python': interpreter, 'sdk': sdk}, 'python', {'code': '1+1'}, '2', calls,
                                       requests={'sdk': ('add', {'a': 2, 'b': 3}, '5')})
                python_http_ms, sdk_http_ms = both['python'], both['sdk']
        with Sandbox() as sandbox:
            sandbox.run('1+1')
            direct = []
            for _ in range(calls):
                started = time.perf_counter(); sandbox.run('1+1'); direct.append((time.perf_counter() - started) * 1000)
        sys.path.remove(directory)
    kernel_ms = jupyter_kernel_ms(calls)
    rows.append({'case': 'add over stdio', 'ours_ms': stdio_ms['ours'], 'peer': "SDK's MCPServer", 'peer_ms': stdio_ms['sdk']})
    rows.append({'case': 'add in-process', 'ours_ms': in_process_ms['ours'], 'peer': "SDK's MCPServer", 'peer_ms': in_process_ms['sdk']})
    rows.append({'case': 'python 1+1 over stdio', 'ours_ms': python_ms, 'peer': 'Sandbox.run direct', 'peer_ms': statistics.median(direct)})
    rows.append({'case': 'python 1+1 over stdio', 'ours_ms': python_ms, 'peer': "SDK's MCPServer add (MCP floor)", 'peer_ms': mcp_floor_ms})
    rows.append({'case': 'python 1+1 over HTTP', 'ours_ms': python_http_ms, 'peer': "SDK's MCPServer add over HTTP", 'peer_ms': sdk_http_ms})
    rows.append({'case': 'python 1+1, no MCP', 'ours_ms': statistics.median(direct), 'peer': 'bare Jupyter kernel (no isolation)', 'peer_ms': kernel_ms})
    for row in rows:
        row['ratio'] = round(row['ours_ms'] / row['peer_ms'], 2)
        kind, limit = GOALS.get((row['case'], row['peer']), (None, None))
        if kind is None: row['goal'] = row['goal_met'] = None
        elif kind == 'ratio': row['goal'], row['goal_met'] = f'<= {limit}x', row['ratio'] <= limit
        else:
            milliseconds, ratio = limit
            row['goal'], row['goal_met'] = f'< {milliseconds} ms and <= {ratio}x', row['ours_ms'] < milliseconds and row['ratio'] <= ratio
    return rows


# A stdio `python_server` that stamps each step of every `tools/call` (time.perf_counter_ns, wrapping the methods named
# below) and, as it exits, writes the median of each step over the calls after the first 30 to the file named by argv[1].
STEPS_SERVER = r"""
import atexit, json, statistics, sys, time
import toolcall_lib.mcp as mcp_module
from toolcall_lib.interp import host
stamp, calls, current = time.perf_counter_ns, [], {}
def before(owner, name, label, awaited=False, generator=False, first=False):
    function = getattr(owner, name)
    if generator:
        def wrapped(*args, **kwargs):
            if not (first and label in current): current[label] = stamp()
            value = yield from function(*args, **kwargs)
            current[label + ' end'] = stamp(); return value
    elif awaited:
        async def wrapped(*args, **kwargs):
            current[label] = stamp()
            try: return await function(*args, **kwargs)
            finally: current[label + ' end'] = stamp()
    else:
        def wrapped(*args, **kwargs):
            if not (first and label in current): current[label] = stamp()
            try: return function(*args, **kwargs)
            finally: current[label + ' end'] = stamp()
    setattr(owner, name, wrapped)
read_line, write_line = mcp_module._WireLines.__anext__, mcp_module._WireWriter.write
async def read(self):
    line = await read_line(self)
    if '"tools/call"' in line: current.clear(); current['read'] = stamp()
    return line
async def write(self, text):
    if 'handler end' in current and 'write' not in current: current['write'] = stamp(); calls.append(dict(current))
    return await write_line(self, text)
mcp_module._WireLines.__anext__, mcp_module._WireWriter.write = read, write
before(mcp_module._server_class(), 'call_tool', 'handler', awaited=True)
before(host.Sandbox, 'run_async', 'sandbox', awaited=True)
before(host._Worker, '_next_payload', 'reply', generator=True, first=True)
before(host._Worker, 'leftover_tasks', 'leftover')
before(host.Sandbox, '_result', 'result')
spans = {'read': ('read', 'handler'), 'dispatch': ('handler', 'sandbox'), 'reply': ('sandbox', 'reply end'),
         'checks': ('reply end', 'leftover end'), 'result': ('result', 'result end'), 'sandbox': ('sandbox', 'sandbox end'),
         'content': ('sandbox end', 'handler end'), 'write': ('handler end', 'write'), 'server': ('read', 'write')}
def report():
    kept = [call for call in calls[30:] if all(mark in call for span in spans.values() for mark in span)]
    took = [{label: (call[end] - call[start]) / 1e6 for label, (start, end) in spans.items()} for call in kept]
    for call in took: call['rest'] = call['sandbox'] - call['reply'] - call['checks'] - call['result']   # each call's own
    medians = {label: statistics.median(call[label] for call in took) for label in (*spans, 'rest')}
    with open(sys.argv[1], 'w') as file: json.dump(dict(medians, calls=len(kept)), file)
atexit.register(report)
mcp_module.python_server().run()
"""


async def python_steps(calls:int) -> dict:
    """Median ms of each step of a `python` 1+1 call over stdio, stamped inside the server (`STEPS_SERVER`), and of the
    whole call as the client times it (`whole`). Medians do not add up exactly: each is of its own step."""
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        script = folder/'steps_server.py'
        script.write_text(STEPS_SERVER)
        found = folder/'steps.json'
        parameters = StdioServerParameters(command=sys.executable, args=[str(script), str(found)], cwd=str(folder))
        async with Client(parameters) as client:
            await timed_calls(client, 'python', {'code': '1+1'}, 30, '2')
            whole = await timed_calls(client, 'python', {'code': '1+1'}, calls, '2')
        deadline = time.monotonic() + 10
        while not found.exists() and time.monotonic() < deadline: await asyncio.sleep(0.05)
        steps = json.loads(found.read_text())
    assert steps.pop('calls') >= calls // 2, 'the server stamped too few calls'
    return dict(steps, whole=statistics.median(whole))


def step_rows(rows:list, steps:dict) -> list:
    "(step, ms) rows: where the time of one `python` 1+1 call over stdio goes, from `steps` (one stamped server's calls)."
    http_ms = next(row['ours_ms'] for row in rows if row['case'] == 'python 1+1 over HTTP')
    return [("the SDK's server: the request line parsed, checked, routed", steps['read']),
            ('dispatch, session and pool (call_func_async, get_started)', steps['dispatch']),
            ('the sandbox: request out, the cell run, reply in', steps['reply']),
            ('the sandbox: worker back in its read, nothing left running', steps['checks']),
            ('the sandbox: the reply made a RunResult (_result)', steps['result']),
            ('the sandbox: the rest (its lock, turns of the loop)', steps['rest']),
            ('= the sandbox (Sandbox.run_async), inside the server', steps['sandbox']),
            ('the result as MCP content (_tool_result)', steps['content']),
            ("the SDK's server: the result serialized and written", steps['write']),
            ('= in the server, from the line read to the reply written', steps['server']),
            ("+ the SDK's client and both pipes", steps['whole'] - steps['server']),
            ('= a call over stdio, measured whole (stamped server)', steps['whole']),
            ('a call over streamable HTTP, measured whole (not stamped)', http_ms)]


def run(calls:int=400) -> list:
    "Measure every case; return one dict per row."
    return asyncio.run(measure(calls))


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--calls', type=int, default=400, help='timed calls per server and case')
    calls = parser.parse_args(argv).calls
    rows = run(calls)
    steps = step_rows(rows, asyncio.run(python_steps(calls)))
    header = f"{'case':<24}{'ours ms':>10}  {'peer (same run)':<34}{'peer ms':>9}{'ratio':>8}  goal"
    print(header); print('-' * len(header))
    for row in rows:
        goal = '' if row['goal'] is None else f"{row['goal']} {'met' if row['goal_met'] else 'MISSED'}"
        print(f"{row['case']:<24}{row['ours_ms']:>10.3f}  {row['peer']:<34}{row['peer_ms']:>9.3f}{row['ratio']:>7.2f}x  {goal}")
    print("\nWhere one python 1+1 call's time goes over stdio (medians; each step stamped inside one server, same run)")
    for step, milliseconds in steps: print(f'{step:<58}{milliseconds:>8.3f} ms')
    return rows


if __name__ == '__main__': main()
