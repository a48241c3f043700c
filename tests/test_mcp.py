"""MCP over real transports: the official SDK's client against `toolcall mcp serve` and `toolcall mcp python`
run as a user runs them, over stdio and over streamable HTTP on 127.0.0.1; `mcp_tools` mounting a server written
with the SDK alone; and the module on a system without the SDK."""
import asyncio, base64, contextlib, copy, json, os, re, socket, subprocess, sys, textwrap, time
from pathlib import Path

import pytest

mcp = pytest.importorskip('mcp', reason='the MCP SDK is in the dev extra')
from mcp import Client, StdioServerParameters

from toolcall_lib.dispatch import ArgumentValueError, call_func_async
from toolcall_lib.mcp import MCPToolError, mcp_definition, mcp_tools
from toolcall_lib.schema import tool_schema

ROOT = Path(__file__).resolve().parent.parent
TOOLS = str(ROOT/'examples'/'weather_tools.py')
SCRIPT = str(Path(sys.executable).parent/'toolcall')
sys.path.insert(0, str(ROOT/'examples'))
import weather_tools


def run(coroutine): return asyncio.run(coroutine)

def stdio(*args) -> StdioServerParameters:
    return StdioServerParameters(command=SCRIPT, args=['mcp', *args], cwd=str(ROOT))

def plain(result) -> dict:
    return result.model_dump(by_alias=True, exclude_none=True, mode='json', exclude={'result_type', 'meta'})

def texts(result) -> str:
    return '\n'.join(block.text for block in result.content if block.type == 'text')

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]

@contextlib.contextmanager
def http_server(*args):
    "`toolcall mcp ARGS --http 127.0.0.1:PORT` in a subprocess; yields its URL once it accepts connections."
    port = free_port()
    with listening([SCRIPT, 'mcp', *args, '--http', f'127.0.0.1:{port}'], port) as url: yield url

@contextlib.contextmanager
def listening(command:list, port:int):
    "Run `command` (a server on 127.0.0.1:`port`); yield its MCP URL once it accepts connections, stop it afterwards."
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None: raise AssertionError(f'server exited: {process.communicate()}')
            with socket.socket() as probe:
                if probe.connect_ex(('127.0.0.1', port)) == 0: break
            if time.monotonic() > deadline: raise AssertionError('server did not start listening')
            time.sleep(0.1)
        yield f'http://127.0.0.1:{port}/mcp'
    finally:
        process.terminate()
        try: process.wait(timeout=10)
        except subprocess.TimeoutExpired: process.kill(); process.wait()

def toolcall(*args, env=None):
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, timeout=60, cwd=ROOT, env=env)


# --- toolcall mcp serve ---------------------------------------------------------------------------------

async def check_weather_server(target):
    "What every transport must show: the exact schemas, coercion, structured results and error results."
    async with Client(target) as client:
        listed = {tool.name: tool.model_dump(by_alias=True, exclude_none=True, mode='json') for tool in (await client.list_tools()).tools}
        for name in weather_tools.__all__: assert listed[name] == mcp_definition(getattr(weather_tools, name))  # tool_schema's, as mcp_server sends it
        result = plain(await client.call_tool('get_weather', {'city': 'Paris', 'days': '3'}))
        assert result['structuredContent']['days'] == 3 and not result['isError']
        assert json.loads(result['content'][0]['text']) == result['structuredContent']
        assert texts(await client.call_tool('get_time', {'tz': 'Asia/Tokyo'})) == '2026-11-22T12:00:00+09:00'
        missing = await client.call_tool('get_weather', {})
        assert missing.is_error and "missing required argument 'city'" in texts(missing)
        bad = await client.call_tool('get_weather', {'city': 'Paris', 'days': 'many'})
        assert bad.is_error and "'days'" in texts(bad)
        unknown = await client.call_tool('get_stock_price', {})
        assert unknown.is_error and 'Unknown tool' in texts(unknown)
        assert plain(await client.call_tool('get_weather', {'city': 'Lima'}))['structuredContent']['city'] == 'Lima'  # still serving

def test_serve_over_stdio():
    run(check_weather_server(stdio('serve', TOOLS)))

def test_serve_strict_closes_every_object_schema():
    async def listed():
        async with Client(stdio('serve', TOOLS, '--strict')) as client:
            return {tool.name: tool.model_dump(by_alias=True, exclude_none=True, mode='json') for tool in (await client.list_tools()).tools}
    tools = run(listed())
    for name in weather_tools.__all__: assert tools[name] == mcp_definition(getattr(weather_tools, name), strict=True)
    assert all(tool['inputSchema']['additionalProperties'] is False for tool in tools.values())

def test_serve_names_the_server():
    async def name():
        async with Client(stdio('serve', TOOLS, '--name', 'weather')) as client: return client.server_info.name
    assert run(name()) == 'weather'

def test_serve_over_http():
    with http_server('serve', TOOLS) as url: run(check_weather_server(url))

def test_http_serves_clients_at_once_and_legacy_clients():
    async def both(url):
        async with Client(url) as modern, Client(url, mode='legacy') as legacy:
            results = await asyncio.gather(*[client.call_tool('get_weather', {'city': city})
                                             for client in (modern, legacy) for city in ('Paris', 'Tokyo', 'Lima')])
        return [plain(result)['structuredContent']['city'] for result in results]
    with http_server('serve', TOOLS) as url:
        assert run(both(url)) == ['Paris', 'Tokyo', 'Lima'] * 2

def test_a_printing_tool_cannot_corrupt_stdio(tmp_path):
    module = tmp_path/'noisy.py'
    module.write_text(textwrap.dedent('''
        import os
        def noisy(text: str) -> str:
            "Prints to stdout before answering."
            print('{"jsonrpc": "2.0", "garbage": true}')
            os.write(1, b'raw bytes on fd 1\\n')
            return text
    '''))
    async def check():
        async with Client(stdio('serve', str(module))) as client:
            for word in ('one', 'two'): assert texts(await client.call_tool('noisy', {'text': word})) == word
    run(check())

def test_several_targets_toolsets_and_memory_file(tmp_path):
    memory = tmp_path/'memory.db'
    async def store():
        async with Client(stdio('serve', f'{TOOLS}:get_weather', f'{TOOLS}:get_time', '--memory', str(memory))) as client:
            names = sorted(tool.name for tool in (await client.list_tools()).tools)
            assert names[:2] == ['get_time', 'get_weather'] and 'memory_store' in names
            assert not (await client.call_tool('memory_store', {'key': 'city', 'value': 'Lima'})).is_error
            assert texts(await client.call_tool('memory_retrieve', {'key': 'city'})) == 'Lima'
    async def recall():  # a new server process: the SQLite file kept the memory
        async with Client(stdio('serve', '--memory', str(memory))) as client:
            return texts(await client.call_tool('memory_retrieve', {'key': 'city'}))
    run(store())
    assert run(recall()) == 'Lima'

def test_memory_file_of_a_newer_layout_is_a_one_line_error(tmp_path):
    "A memory file written by a newer toolcall_lib: the server does not start, and says why in one line (no traceback)."
    import sqlite3
    newer = tmp_path/'newer.db'
    with contextlib.closing(sqlite3.connect(newer)) as connection: connection.execute('PRAGMA user_version=99'); connection.commit()
    done = toolcall('mcp', 'serve', '--memory', str(newer))
    assert done.returncode == 2 and 'Traceback' not in done.stderr, done.stderr
    assert done.stderr.strip() == f'toolcall mcp: error: --memory: {newer} was written by a newer toolcall_lib (memory layout 99); upgrade toolcall_lib to open it'

def test_memory_help_names_postgres_and_pgpassword():
    done = toolcall('mcp', 'serve', '--help')
    words = ' '.join(done.stdout.split())
    assert done.returncode == 0 and '--memory PATH_OR_URL' in words and 'postgresql:// (or postgres://) URL' in words and 'set PGPASSWORD' in words, words

def test_memory_in_postgres_with_the_password_from_pgpassword(postgres):
    "What the help says: a postgresql:// URL without the password, and the password in PGPASSWORD."
    from throwaway_postgres import PASSWORD, PASSWORD_USER
    postgres.execute(f'CREATE DATABASE cli_memory OWNER {PASSWORD_USER}')
    url = postgres.dsn('cli_memory', user=PASSWORD_USER)
    assert PASSWORD not in url
    async def store_and_recall():
        server = StdioServerParameters(command=SCRIPT, args=['mcp', 'serve', '--memory', url], cwd=str(ROOT), env={'PGPASSWORD': PASSWORD})
        async with Client(server) as client:
            assert not (await client.call_tool('memory_store', {'key': 'city', 'value': 'Lima'})).is_error
        async with Client(server) as client: return texts(await client.call_tool('memory_retrieve', {'key': 'city'}))
    assert run(store_and_recall()) == 'Lima'
    assert postgres.execute('SELECT value FROM toolcall_memory', database='cli_memory') == [('Lima',)]
    refused = toolcall('mcp', 'serve', '--memory', url, env={**os.environ, 'PGPASSWORD': 'wrong'})
    assert refused.returncode == 2 and refused.stderr.count('\n') == 1 and 'password' in refused.stderr, refused.stderr

def test_toolset_class_target_keeps_state_for_the_servers_life():
    async def check():
        async with Client(stdio('serve', 'toolcall_lib.toolset:MemoryToolset')) as client:
            await client.call_tool('memory_store', {'key': 'a', 'value': 'b'})
            assert texts(await client.call_tool('memory_retrieve', {'key': 'a'})) == 'b'
    run(check())

@pytest.mark.parametrize('args,words', [
    (['mcp', 'serve'], ['TARGET']),
    (['mcp', 'serve', 'no_such_file.py'], ['no such file']),
    (['mcp', 'serve', 'toolcall_lib.toolset:MAX_TAGS'], ['not a function']),
    (['mcp', 'serve', TOOLS, '--http', 'localhost'], ['HOST:PORT']),
])
def test_command_line_errors_are_one_line(args, words):
    done = toolcall(*args)
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert done.stderr.count('\n') == 1, done.stderr
    for word in words: assert word in done.stderr, done.stderr

def test_two_tools_with_one_name_are_refused(tmp_path):
    other = tmp_path/'other.py'
    other.write_text('def get_weather(city: str) -> str:\n    "Another forecast."\n    return city\n')
    done = toolcall('mcp', 'serve', TOOLS, str(other))
    assert done.returncode == 2 and "'get_weather'" in done.stderr and done.stderr.count('\n') == 1, done.stderr



# --- one reading of a result, whichever door it leaves by ----------------------------------------------

PNG = b'\x89PNG\r\n\x1a\n' + b'\0' * 20
GIF = b'GIF89a' + b'\0' * 10

def result_values() -> dict:
    "Return values of every kind a tool may give, by name."
    import dataclasses, enum
    from PIL import Image as PILImage
    from toolcall_lib.interp import Image, RunResult
    @dataclasses.dataclass
    class Forecast: city: str; temp: float
    class Level(enum.Enum): high = 3
    return {'png': PNG, 'two pictures': [PNG, GIF], 'a tuple of pictures': (GIF,), 'a PIL image': PILImage.new('RGB', (2, 2)),
            'a sandbox image': Image('image/png', base64.b64encode(PNG).decode()),
            'a run with a plot': RunResult(output='plotted\n', images=(Image('image/png', 'aGk=', 1, 1),)),
            'a picture and text': [PNG, 'caption'], 'text': 'sunny', 'data': {'t': 18.5}, 'a number': 3, 'nothing': None,
            'a dataclass': Forecast('Paris', 18.5), 'an enum': Level.high, 'bytes': b'not a picture', 'binary': b'\xff\x00'}

def test_a_result_reaches_an_mcp_client_as_the_loop_sends_it():
    "The MCP server's content blocks hold the text and pictures `result_content` gives every provider in `Chat`."
    from toolcall_lib.loop import result_content
    from toolcall_lib.mcp import mcp_server
    values = result_values()
    def returning(value):
        def tool():
            "Returns a value of one kind."
            return value
        return tool
    tools = {f'tool_{number}': returning(value) for number, value in enumerate(values.values())}
    async def served():
        async with Client(mcp_server(tools)) as client:
            return [plain(await client.call_tool(name, {})) for name in tools]
    for (label, value), result in zip(values.items(), run(served())):
        text, images = result_content(value)
        content = result['content']
        assert [block.get('text') for block in content if block['type'] == 'text'] == ([] if text is None else [text]), label
        assert [(block['mimeType'], block['data']) for block in content if block['type'] == 'image'] == images, label
        assert not result['isError'], label

def test_a_failure_reaches_an_mcp_client_in_dispatchs_words():
    from toolcall_lib.dispatch import call_funcs_async
    from toolcall_lib.mcp import mcp_server
    def fail(why: str) -> str:
        "Always raises."
        raise ValueError(why)
    calls = [('fail', {'why': 'no luck'}), ('fail', {}), ('fail', {'why': 'x', 'extra': 1}), ('nope', {})]
    async def both():
        said = [result.error for result in await call_funcs_async(calls, [fail])]
        async with Client(mcp_server([fail])) as client: served = [await client.call_tool(name, arguments) for name, arguments in calls]
        return said, served
    said, served = run(both())
    assert all(result.is_error for result in served) and [texts(result) for result in served] == said

# --- toolcall mcp python --------------------------------------------------------------------------------

FIGURE = 'import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()'

def test_python_over_stdio_keeps_state_and_sends_figures():
    async def check():
        async with Client(stdio('python', '--timeout', '60')) as client:
            tools = {tool.name: tool.model_dump(by_alias=True, exclude_none=True, mode='json') for tool in (await client.list_tools()).tools}
            from toolcall_lib.interp import python
            expected = copy.deepcopy(mcp_definition(python))
            expected['inputSchema']['properties']['timeout']['default'] = 60  # --timeout is the default the model reads
            assert tools['python'] == expected and set(tools) == {'python', 'reset'}
            await client.call_tool('python', {'code': 'x = 41'})
            assert texts(await client.call_tool('python', {'code': 'x + 1'})) == '42'
            figure = await client.call_tool('python', {'code': FIGURE})
            images = [block for block in figure.content if block.type == 'image']
            assert len(images) == 1 and base64.b64decode(images[0].data).startswith(b'\x89PNG')
            await client.call_tool('reset', {})
            assert 'NameError' in texts(await client.call_tool('python', {'code': 'x'}))
        async with Client(stdio('python')) as other:  # another client: another process, another sandbox
            assert 'NameError' in texts(await other.call_tool('python', {'code': 'x'}))
    run(check())

def test_python_sandbox_is_isolated_through_mcp(tmp_path):
    secret = tmp_path/'secret.txt'
    secret.write_text('top secret')
    tmp_path.chmod(0o755)  # open to the sandbox's own uid, so only the sandbox's isolation keeps it out without --read
    secret.chmod(0o644)
    async def check():
        async with Client(stdio('python')) as client:
            read = texts(await client.call_tool('python', {'code': f'open({str(secret)!r}).read()'}))
            assert 'top secret' not in read and ('PermissionError' in read or 'FileNotFoundError' in read), read
        async with Client(stdio('python', '--read', str(tmp_path))) as client:
            assert 'top secret' in texts(await client.call_tool('python', {'code': f'open({str(secret)!r}).read()'}))
    run(check())

def test_python_over_http_never_shares_a_sandbox_between_clients():
    async def legacy_sessions(url):  # protocol versions with sessions: one sandbox per Mcp-Session-Id
        async with Client(url, mode='legacy') as first, Client(url, mode='legacy') as second:
            await first.call_tool('python', {'code': 'secret = "first"'})
            assert 'NameError' in texts(await second.call_tool('python', {'code': 'secret'}))
            assert texts(await first.call_tool('python', {'code': 'secret'})) == "'first'"
    async def handles(url):  # 2026-07-28, no sessions: the server mints a handle
        async with Client(url) as first, Client(url) as second:
            started = texts(await first.call_tool('python', {'code': 'secret = "first"'}))
            handle = re.search(r'session="([^"]+)"', started).group(1)
            assert 'NameError' in texts(await second.call_tool('python', {'code': 'secret'}))
            assert texts(await first.call_tool('python', {'code': 'secret', 'session': handle})).startswith("'first'")
            wrong = await second.call_tool('python', {'code': 'secret', 'session': 'guessed'})
            assert wrong.is_error and 'No sandbox session' in texts(wrong)
    with http_server('python', '--timeout', '30') as url:
        run(legacy_sessions(url))
        run(handles(url))


def test_http_refuses_other_sites_dns_rebinding():
    "On 127.0.0.1 the SDK checks Host and Origin, so a web page cannot reach the interpreter through the browser."
    import urllib.request, urllib.error
    def status(url, headers):
        request = urllib.request.Request(url, data=b'{}', headers={'Content-Type': 'application/json',
                                                                   'Accept': 'application/json, text/event-stream', **headers})
        try: return urllib.request.urlopen(request, timeout=30).status
        except urllib.error.HTTPError as error: return error.code
    with http_server('python') as url:
        assert status(url, {'Host': 'attacker.example'}) == 421
        assert status(url, {'Origin': 'http://attacker.example'}) == 403

def test_python_server_without_handles_refuses_http_calls_it_cannot_place(tmp_path):
    "Run past `serve`'s own check: the tool itself refuses rather than share the process's sandbox between HTTP clients."
    port = free_port()
    script = tmp_path/'no_handles.py'
    script.write_text(f'from toolcall_lib.mcp import python_server\n'
                      f'python_server().run("streamable-http", host="127.0.0.1", port={port}, streamable_http_path="/mcp")\n')
    process = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    async def check():
        async with Client(f'http://127.0.0.1:{port}/mcp') as first:
            refused = await first.call_tool('python', {'code': 'secret = 1'})
            assert refused.is_error and 'session handles' in texts(refused)
    try:
        deadline = time.monotonic() + 60
        while socket.socket().connect_ex(('127.0.0.1', port)) != 0:
            assert time.monotonic() < deadline and process.poll() is None, 'server did not start'
            time.sleep(0.1)
        run(check())
    finally:
        process.terminate(); process.wait(timeout=10)


# --- mcp_tools ------------------------------------------------------------------------------------------

SDK_ONLY_SERVER = '''
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
server = MCPServer('sdk-only')

@server.tool()
def scale(values: list[int], factor: float = 2.0) -> list[float]:
    "Multiply every value by a factor."
    return [v * factor for v in values]

@server.tool()
def refuse(reason: str) -> str:
    "Always refuses."
    raise ToolError(reason)

server.run()
'''

def test_mcp_tools_mounts_an_sdk_server_from_a_command_line(tmp_path):
    script = tmp_path/'sdk_server.py'
    script.write_text(SDK_ONLY_SERVER)
    async def check():
        async with mcp_tools(f'{sys.executable} {script}') as tools:
            assert sorted(tools) == ['refuse', 'scale']
            assert await call_func_async('scale', {'values': '["1", 2]', 'factor': '3'}, tools) == [3.0, 6.0]
            with pytest.raises(ArgumentValueError): await tools.call('scale', {'values': ['x']})
            with pytest.raises(MCPToolError, match='not today'): await tools.call('refuse', {'reason': 'not today'})
            assert tools.schemas('openai')[0]['function']['parameters']['required'] == ['values']
    run(check())

def test_mcp_tools_over_http_against_toolcall_serve():
    async def check(url):
        async with mcp_tools(url) as tools:
            assert await tools.call('get_weather', {'city': 'Tokyo', 'units': 'FAHRENHEIT'}) == \
                weather_tools.get_weather('Tokyo', units=weather_tools.Units.fahrenheit)
            assert tools.schemas('mcp') == [tool_schema(getattr(weather_tools, name), 'mcp') for name in weather_tools.__all__]
    with http_server('serve', TOOLS) as url: run(check(url))


GUARDED_SERVER = """
import sys, uvicorn
from toolcall_lib.mcp import current_request, mcp_server

def tenant() -> str:
    "The tenant the client said it acts for."
    return current_request().headers.get('x-tenant', 'none')

app = mcp_server([tenant]).streamable_http_app()

async def guarded(scope, receive, send):
    "Every HTTP request needs the bearer token: 401 without it."
    if scope['type'] == 'http' and dict(scope['headers']).get(b'authorization') != b'Bearer s3cret':
        await send({'type': 'http.response.start', 'status': 401, 'headers': [(b'content-type', b'text/plain')]})
        await send({'type': 'http.response.body', 'body': b'missing or wrong bearer token'})
        return
    await app(scope, receive, send)

uvicorn.run(guarded, host='127.0.0.1', port=int(sys.argv[1]), log_level='warning')
"""

@contextlib.contextmanager
def guarded_server(tmp_path):
    "A streamable HTTP MCP server on 127.0.0.1 that refuses every request without `Authorization: Bearer s3cret`."
    script, port = tmp_path/'guarded.py', free_port()
    script.write_text(GUARDED_SERVER)
    with listening([sys.executable, str(script), str(port)], port) as url: yield url

def test_mcp_tools_sends_headers_to_a_server_behind_a_token(tmp_path):
    from toolcall_lib.mcp import MCPConnectionError
    async def with_token(url):
        async with mcp_tools(url, headers={'Authorization': 'Bearer s3cret', 'X-Tenant': 'acme'}) as tools:
            return list(tools), await tools.call('tenant', {}), await tools.call('tenant', {})
    async def without(url, headers):
        try:
            async with mcp_tools(url, headers=headers): return 'connected'
        except MCPConnectionError as error: return str(error)
    with guarded_server(tmp_path) as url:
        assert run(with_token(url)) == (['tenant'], 'acme', 'acme')   # the connection, the listing and every call carry them
        for headers in (None, {'Authorization': 'Bearer wrong'}):
            refused = run(without(url, headers))
            assert refused.startswith(f'could not connect to the MCP server {url}') and '401' in refused, refused
            assert 'wrong' not in refused   # a header's value is never part of the message

def test_mcp_tools_headers_without_the_sdks_private_helper(tmp_path, monkeypatch):
    "The HTTP client comes from a private module of the SDK; if a release moves it, the plain client still sends the headers."
    monkeypatch.setitem(sys.modules, 'mcp.shared._httpx_utils', None)   # `from ... import` now raises ImportError
    async def with_token(url):
        async with mcp_tools(url, headers={'Authorization': 'Bearer s3cret', 'X-Tenant': 'acme'}) as tools:
            return await tools.call('tenant', {})
    with guarded_server(tmp_path) as url: assert run(with_token(url)) == 'acme'


CROSS_LOOP = f"""
import asyncio
from toolcall_lib.mcp import mcp_tools
from toolcall_lib.loop import Chat, ReplayClient
replies = [{{'type': 'message', 'role': 'assistant', 'content': [{{'type': 'tool_use', 'id': 'c1', 'name': 'get_time', 'input': {{}}}}]}},
           {{'type': 'message', 'role': 'assistant', 'content': [{{'type': 'text', 'text': 'done'}}]}}]
async def main():
    async with mcp_tools([{SCRIPT!r}, 'mcp', 'serve', {TOOLS!r}]) as tools:
        model = ReplayClient(replies)
        print(Chat(model, tools, provider='anthropic')('What time is it?'))
        print(model.requests[1]['messages'][-1]['content'][0]['content'])
asyncio.run(main())
"""

def test_sync_chat_inside_async_with_reaches_a_stdio_server():
    "The sync Chat runs tools on a private loop while the caller's loop waits: a connection held on the caller's loop deadlocks."
    done = subprocess.run([sys.executable, '-c', CROSS_LOOP], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0 and done.stdout.split('\n')[:2] == ['done', '2026-11-22T12:00:00+00:00'], done


# --- without the SDK ------------------------------------------------------------------------------------

BLOCK_MCP = '''
import sys, importlib.abc
class NoMCP(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == 'mcp' or name.startswith('mcp.') or name == 'mcp_types': raise ImportError(f'No module named {name!r}')
sys.meta_path.insert(0, NoMCP())
'''

def test_without_the_sdk_the_error_says_what_to_install(tmp_path):
    (tmp_path/'sitecustomize.py').write_text(BLOCK_MCP)
    env = {**os.environ, 'PYTHONPATH': str(tmp_path)}
    code = ('import toolcall_lib.mcp as m\n'
            'try: m.mcp_server([print])\n'
            'except ImportError as e: print(type(e).__name__, e)\n')
    done = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0 and 'MCPUnavailableError' in done.stdout and 'pip install "toolcall_lib[mcp]"' in done.stdout, done
    assert toolcall('--help', env=env).returncode == 0
    assert toolcall('schema', f'{TOOLS}:get_weather', env=env).returncode == 0
    served = toolcall('mcp', 'serve', TOOLS, env=env)
    assert served.returncode == 2 and 'pip install "toolcall_lib[mcp]"' in served.stderr and served.stderr.count('\n') == 1, served


STDIO_SCRIPT = '''
import os, threading
from toolcall_lib.mcp import serve
def add(a:int, # First number
        b:int, # Second number
       ) -> int:
    "Add two integers."
    return a + b
async def threads() -> list:
    "The names of the server's threads."
    return sorted({thread.name.rstrip('0123456789-_ ') for thread in threading.enumerate()})
serve([add, threads])
print('after serving', flush=True)
os.write(1, b'fd 1 again\\n')
'''

def stdio_lines(*calls) -> str:
    "The JSON-RPC lines a client sends to initialize, then to make `calls` ((id, name, arguments) each)."
    from mcp.types import LATEST_PROTOCOL_VERSION
    lines = [{'jsonrpc': '2.0', 'id': 0, 'method': 'initialize', 'params': {'protocolVersion': LATEST_PROTOCOL_VERSION,
              'capabilities': {}, 'clientInfo': {'name': 'test', 'version': '1'}}},
             {'jsonrpc': '2.0', 'method': 'notifications/initialized'}]
    lines += [{'jsonrpc': '2.0', 'id': id, 'method': 'tools/call', 'params': {'name': name, 'arguments': arguments}}
              for id, name, arguments in calls]
    return ''.join(json.dumps(line) + '\n' for line in lines)

def test_stdio_on_pipes_is_served_on_the_loop_and_gives_the_descriptors_back(tmp_path):
    "From pipes (as every client starts a server) no transport thread is started, and fds 0 and 1 are the process's again when the client leaves."
    (tmp_path/'server.py').write_text(STDIO_SCRIPT)
    process = subprocess.Popen([sys.executable, str(tmp_path/'server.py')], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        process.stdin.write(stdio_lines((1, 'add', {'a': 2, 'b': 3}), (2, 'add', {'a': 'x'}), (3, 'threads', {})))
        process.stdin.flush()
        replies = {reply['id']: reply for reply in (json.loads(process.stdout.readline()) for _ in range(4))}
        process.stdin.close()
        process.wait(timeout=60)
        rest, errors = process.stdout.read(), process.stderr.read()
    finally: process.kill()
    assert replies[1]['result']['structuredContent'] == {'result': 5}
    assert replies[2]['result']['isError'] and 'a' in replies[2]['result']['content'][0]['text']
    assert not [name for name in replies[3]['result']['structuredContent']['result'] if name.startswith('AnyIO')], replies[3]
    assert rest.splitlines() == ['after serving', 'fd 1 again'], (rest, errors)

def test_stdio_from_a_regular_file_is_left_to_the_sdks_transport(tmp_path):
    "stdin that is not a pipe or a socket is read by the SDK's own transport: it answers, and fds 0 and 1 are the process's again after."
    (tmp_path/'server.py').write_text(STDIO_SCRIPT)
    (tmp_path/'requests').write_text(stdio_lines())
    with open(tmp_path/'requests') as requests:
        done = subprocess.run([sys.executable, str(tmp_path/'server.py')], stdin=requests, capture_output=True, text=True, timeout=60)
    reply, *rest = done.stdout.splitlines()
    assert json.loads(reply)['result']['serverInfo']['name'] == 'toolcall'
    assert rest == ['after serving', 'fd 1 again'], done
