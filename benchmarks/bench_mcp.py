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
A second table splits one `python` call into its steps: the server's handler, the sandbox and the result's conversion
are timed inside the server, served in-process through the SDK's memory transport; the transports are what the whole
calls over stdio and HTTP add to that.

Run: python benchmarks/bench_mcp.py [--calls N]"""
import argparse, asyncio, contextlib, socket, statistics, subprocess, sys, tempfile, textwrap, time
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


async def python_steps(calls:int) -> dict:
    """Median ms of each step of a `python` 1+1 call served in-process (the SDK's own memory transport, no pipes): the
    whole call, the server's handler (`call_tool`), inside it the sandbox (`Sandbox.run_async`) and the result's
    conversion (`_tool_result`); dispatch and the pool are the handler's rest."""
    import toolcall_lib.mcp as mcp_module
    from toolcall_lib.interp import Sandbox
    spans = {'whole': [], 'handler': [], 'sandbox': [], 'result': []}
    def timing(label:str, function, awaited:bool):
        if awaited:
            async def timed(*args, **kwargs):
                started = time.perf_counter()
                try: return await function(*args, **kwargs)
                finally: spans[label].append((time.perf_counter() - started) * 1000)
        else:
            def timed(*args, **kwargs):
                started = time.perf_counter()
                try: return function(*args, **kwargs)
                finally: spans[label].append((time.perf_counter() - started) * 1000)
        return timed
    server_class = mcp_module._server_class()
    saved = server_class.call_tool, Sandbox.run_async, mcp_module._tool_result
    server_class.call_tool = timing('handler', saved[0], True)   # before the server is made: the SDK binds it then
    Sandbox.run_async, mcp_module._tool_result = timing('sandbox', saved[1], True), timing('result', saved[2], False)
    try:
        server = mcp_module.python_server()
        async with Client(server) as client:
            await timed_calls(client, 'python', {'code': '1+1'}, 30, '2')
            for times in spans.values(): times.clear()
            spans['whole'] = await timed_calls(client, 'python', {'code': '1+1'}, calls, '2')
    finally: server_class.call_tool, Sandbox.run_async, mcp_module._tool_result = saved
    return {label: statistics.median(times) for label, times in spans.items()}


def step_rows(rows:list, steps:dict) -> list:
    "(step, ms) rows: where the time of one `python` 1+1 call goes, over stdio and over HTTP, from `rows` and `steps`."
    stdio_ms = next(row['ours_ms'] for row in rows if row['case'] == 'python 1+1 over stdio')
    http_ms = next(row['ours_ms'] for row in rows if row['case'] == 'python 1+1 over HTTP')
    return [('the sandbox: Sandbox.run_async(\'1+1\')', steps['sandbox']),
            ('the result as MCP content (_tool_result)', steps['result']),
            ('dispatch and the pool (call_funcs_async, get_started)', steps['handler'] - steps['sandbox'] - steps['result']),
            ("the SDK's client and server, in one process", steps['whole'] - steps['handler']),
            ('= a call in one process, measured whole', steps['whole']),
            ('+ stdio: two processes, two pipes, both transports', stdio_ms - steps['whole']),
            ('= a call over stdio, measured whole', stdio_ms),
            ('+ HTTP instead: the SDK\'s HTTP client and server', http_ms - steps['whole']),
            ('= a call over streamable HTTP, measured whole', http_ms)]


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
    print("\nWhere one python 1+1 call's time goes (medians; the in-process steps timed inside the server, same run)")
    for step, milliseconds in steps: print(f'{step:<58}{milliseconds:>8.3f} ms')
    return rows


if __name__ == '__main__': main()
