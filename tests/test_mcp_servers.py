"""The MCP servers against a hostile session and greedy clients (issue 30), driven by the official SDK's client over
the real transports, as `toolcall mcp` runs them: text that is not valid Unicode never stops a server; one session's
queue never holds up another session; a session running code is never closed to admit a newcomer; a client whose
sandbox was closed is told so; and a server on any loopback address checks Host and Origin."""
import asyncio, contextlib, json, os, re, socket, subprocess, sys, tempfile, textwrap, time, urllib.error, urllib.request, uuid
from pathlib import Path

import pytest

mcp = pytest.importorskip('mcp', reason='the MCP SDK is in the dev extra')
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = str(Path(sys.executable).parent / 'toolcall')
WAIT = 120   # seconds a step may take before the test fails: a guard against a hang, never what a test measures


def run(coroutine):
    "Run `coroutine`, failing after 5 minutes rather than hanging on a server that stopped answering."
    return asyncio.run(asyncio.wait_for(coroutine, 300))

def texts(result) -> str: return '\n'.join(block.text for block in result.content if block.type == 'text')

def stdio(*args) -> StdioServerParameters:
    return StdioServerParameters(command=SCRIPT, args=['mcp', *args], cwd=str(ROOT))

def free_port(host:str='127.0.0.1') -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]

@contextlib.contextmanager
def http_server(*args, host:str='127.0.0.1'):
    "`toolcall mcp ARGS --http HOST:PORT` in a subprocess; yields (its URL, the process) once it accepts connections."
    port = free_port(host)
    process = subprocess.Popen([SCRIPT, 'mcp', *args, '--http', f'{host}:{port}'], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None: raise AssertionError(f'server exited: {process.communicate()}')
            with socket.socket() as probe:
                if probe.connect_ex((host, port)) == 0: break
            if time.monotonic() > deadline: raise AssertionError('server did not start listening')
            time.sleep(0.1)
        yield f'http://{host}:{port}/mcp', process
    finally:
        process.terminate()
        try: process.wait(timeout=10)
        except subprocess.TimeoutExpired: process.kill(); process.wait()


@pytest.fixture
def gate():
    "A directory the sandboxes may read and write: a cell says it started by making a file, and waits until the test makes `go`."
    directory = Path(tempfile.mkdtemp(prefix='toolcall-gate-'))
    directory.chmod(0o777)
    yield directory
    for path in directory.iterdir(): path.unlink()
    directory.rmdir()

def gated_cell(gate:Path, name:str) -> str:
    "Code that makes `gate/started-NAME`, then waits for `gate/go` and returns 'released NAME'."
    return textwrap.dedent(f'''
        import os, time
        open({str(gate / ('started-' + name))!r}, 'w').close()
        while not os.path.exists({str(gate / 'go')!r}): time.sleep(0.02)
        'released {name}'
    ''')

async def started(gate:Path, name:str):
    "Wait until the gated cell NAME runs."
    deadline = time.monotonic() + WAIT
    while not (gate / f'started-{name}').exists():
        assert time.monotonic() < deadline, f'cell {name} never started'
        await asyncio.sleep(0.02)


# --- text that is not valid Unicode -------------------------------------------------------------------------

SURROGATE_TOOLS = '''
import os
from toolcall_lib.toolset import FileToolset

def undecodable() -> str:
    "A name the file system gave as bytes that are not UTF-8."
    return os.fsdecode(b'caf\\xe9')

def half_pair() -> dict:
    "Data holding half of a surrogate pair."
    return {'name\\ud800': ['x\\udfff']}

def complain():
    "Fails with a lone surrogate in its message."
    raise ValueError('bad \\udcff')

files = FileToolset(os.environ['TOOLCALL_TEST_FILES'])
'''

def test_stdio_server_keeps_answering_after_lone_surrogates(tmp_path):
    (tmp_path / 'tools.py').write_text(SURROGATE_TOOLS)
    files = tmp_path / 'files'
    files.mkdir()
    (files / os.fsdecode(b'r\xe9sum\xe9.txt')).write_text('x')
    (files / 'plain.txt').write_text('plain')
    server = StdioServerParameters(command=SCRIPT, args=['mcp', 'serve', f'{tmp_path}/tools.py', f'{tmp_path}/tools.py:files'],
                                   cwd=str(ROOT), env={**os.environ, 'TOOLCALL_TEST_FILES': str(files)})
    async def calls():
        async with Client(server) as client:
            assert texts(await client.call_tool('undecodable', {})) == 'caf\\udce9'
            data = await client.call_tool('half_pair', {})
            assert data.structured_content == {'name\\ud800': ['x\\udfff']} and json.loads(texts(data)) == data.structured_content
            failed = await client.call_tool('complain', {})
            assert failed.is_error and texts(failed).endswith('ValueError: bad \\udcff')
            listing = await client.call_tool('file_list', {})
            assert [entry['name'] for entry in listing.structured_content['entries']] == ['plain.txt', 'r\\xe9sum\\xe9.txt']
            assert texts(await client.call_tool('file_read', {'path': 'plain.txt'})) == 'plain'   # still answering
            assert len((await client.list_tools()).tools) == 7
    run(calls())


CELL_WITH_SURROGATE_ERROR = 'raise ValueError("\\ud800")'
# The sandbox hands on valid Unicode: the lone surrogate arrives as U+FFFD (interp's results), and the server goes on.
SURROGATE_SHOWN = 'ValueError: \ufffd'

def test_stdio_python_server_survives_a_cell_raising_lone_surrogates():
    async def calls():
        async with Client(stdio('python')) as client:
            await client.call_tool('python', {'code': 'x = 41'})
            raised = await client.call_tool('python', {'code': CELL_WITH_SURROGATE_ERROR})
            assert texts(raised).endswith(SURROGATE_SHOWN)
            assert texts(await client.call_tool('python', {'code': 'x + 1'})) == '42'
    run(calls())

def test_http_python_server_answers_a_cell_raising_lone_surrogates():
    async def calls(url):
        async with Client(url, mode='legacy') as client:
            raised = await client.call_tool('python', {'code': CELL_WITH_SURROGATE_ERROR})
            assert SURROGATE_SHOWN in texts(raised)
            assert texts(await client.call_tool('python', {'code': '6 * 7'})) == '42'
    with http_server('python') as (url, _): run(calls(url))


# --- sessions: queues, room, and closed state --------------------------------------------------------------

def test_one_sessions_queue_never_delays_another_session(gate):
    "48 calls queued in one session (the first waiting on a gate) must not hold up another client's `2 + 2`."
    CALLS = 48
    async def calls(url):
        async with Client(url, mode='legacy') as greedy, Client(url) as other:
            queued = [asyncio.ensure_future(greedy.call_tool('python', {'code': gated_cell(gate, 'first')}))]
            await started(gate, 'first')
            queued += [asyncio.ensure_future(greedy.call_tool('python', {'code': f'{n} * 2'})) for n in range(CALLS)]
            await asyncio.sleep(3)   # time for the calls to reach the server (more than a shared pool's 32 threads); the gate stays shut
            answer = await asyncio.wait_for(other.call_tool('python', {'code': '2 + 2'}), WAIT)
            assert texts(answer).startswith('4\n')   # then the note with its session handle
            assert not any(call.done() for call in queued)   # the greedy session is still held at its gate
            (gate / 'go').touch()
            results = await asyncio.wait_for(asyncio.gather(*queued), WAIT)
        assert [texts(result) for result in results] == ["'released first'"] + [str(n * 2) for n in range(CALLS)]
    with http_server('python', '--timeout', '600', '--read', str(gate), '--write', str(gate)) as (url, _): run(calls(url))


def test_a_running_session_is_never_closed_for_a_newcomer(gate):
    "At --max-sessions 1, a newcomer is refused while the one session runs a cell; the cell finishes undisturbed."
    async def calls(url):
        async with Client(url, mode='legacy') as first, Client(url) as newcomer:
            await first.call_tool('python', {'code': 'kept = "still here"'})
            running = asyncio.ensure_future(first.call_tool('python', {'code': gated_cell(gate, 'busy')}))
            await started(gate, 'busy')
            for _ in range(2):
                refused = await asyncio.wait_for(newcomer.call_tool('python', {'code': '1'}), WAIT)
                assert refused.is_error and 'All 1 sandbox sessions of this server are running code' in texts(refused)
            (gate / 'go').touch()
            assert texts(await asyncio.wait_for(running, WAIT)) == "'released busy'"
            assert texts(await first.call_tool('python', {'code': 'kept'})) == "'still here'"
    with http_server('python', '--max-sessions', '1', '--timeout', '600', '--read', str(gate), '--write', str(gate)) as (url, _):
        run(calls(url))


def test_a_client_whose_idle_session_was_closed_for_room_is_told():
    async def calls(url):
        async with Client(url, mode='legacy') as first, Client(url) as second:
            await first.call_tool('python', {'code': 'x = 1'})
            made = texts(await second.call_tool('python', {'code': 'y = 2'}))   # closes first's idle sandbox for room
            handle = re.search(r'session="([^"]+)"', made).group(1)
            after = await first.call_tool('python', {'code': 'x'})           # closes second's, in turn
            assert "this session's sandbox was closed to make room for a new session (the server keeps at most 1)" in texts(after)
            assert 'NameError' in texts(after)
            gone = await second.call_tool('python', {'code': 'y', 'session': handle})
            assert gone.is_error and texts(gone).startswith(f'The sandbox session {handle!r} was closed to make room for a new session')
            assert texts(await first.call_tool('python', {'code': 'x = 3; x'})) == '3'   # and the new sandbox serves on, no note
    with http_server('python', '--max-sessions', '1') as (url, _): run(calls(url))


def test_a_client_whose_session_was_closed_for_idleness_is_told():
    async def calls(url):
        async with Client(url, mode='legacy') as first, Client(url, mode='legacy') as second:
            await first.call_tool('python', {'code': 'x = 1'})
            await asyncio.sleep(3)   # well past the 1 s idle timeout
            await second.call_tool('python', {'code': '1'})   # any call closes sandboxes idle too long
            after = await first.call_tool('python', {'code': 'x'})
            assert "this session's sandbox was closed after 1 s unused" in texts(after) and 'NameError' in texts(after)
    with http_server('python', '--idle-timeout', '1') as (url, _): run(calls(url))


# --- DNS rebinding on every loopback address ----------------------------------------------------------------

def post_status(url:str, headers:dict) -> int:
    request = urllib.request.Request(url, data=b'{}', headers={'Content-Type': 'application/json',
                                                               'Accept': 'application/json, text/event-stream', **headers})
    try: return urllib.request.urlopen(request, timeout=30).status
    except urllib.error.HTTPError as error: return error.code

def test_a_loopback_alias_checks_host_and_origin():
    "Bound to 127.0.0.2 (loopback, so no warning), the server refuses another site's Host and Origin and serves its own."
    with http_server('python', host='127.0.0.2') as (url, process):
        assert post_status(url, {'Host': 'attacker.example'}) == 421
        assert post_status(url, {'Origin': 'http://attacker.example'}) == 403
        assert post_status(url, {'Host': 'attacker.example:80', 'Origin': 'http://127.0.0.2'}) == 421
        async def call():
            async with Client(url) as client: return texts(await client.call_tool('python', {'code': '2 + 2'}))
        assert run(call()).startswith('4\n')
        process.terminate()
        assert 'warning' not in process.communicate(timeout=30)[1]
