"""The host side against a hostile session (issue 30): text it hands on is always valid Unicode, HTML costs time
linear in its length and never raises, and a cell flooding its reply pipe neither outlasts its timeout nor grows
the host."""
import json, subprocess, sys, time
import pytest

if sys.platform != 'linux': pytest.skip('the sandbox needs Linux', allow_module_level=True)

from toolcall_lib.interp import Sandbox, RunResult


def encodable(result:RunResult):
    "Everything a caller reads of `result` encodes as UTF-8 (str, to_dict as JSON with and without ASCII escapes)."
    str(result).encode()
    json.dumps(result.to_dict(), ensure_ascii=False).encode()
    for output in result.outputs: json.dumps(output, ensure_ascii=False).encode()


@pytest.fixture(scope='module')
def box():
    with Sandbox(timeout=10) as sandbox: yield sandbox


def test_a_printed_lone_surrogate_is_replaced(box):
    result = box.run("print('a\\ud800b')\n'c\\udfffd'")
    encodable(result)
    assert result.output == 'a\ufffdb\n' and result.value == "'c\\udfffd'"  # the repr escapes it already
    result = box.run("from IPython.display import display, HTML, Markdown\n"
                     "display(HTML('<b>\\ud800</b>'), Markdown('*\\udc80*'))\nclass Odd:\n    def __repr__(self): return '\\ud83d'\nOdd()")
    encodable(result)
    assert str(result) == '\ufffd\n*\ufffd*\n\ufffd'


def test_an_error_message_with_a_surrogate_is_replaced(box):
    result = box.run("raise ValueError('bad \\udcff')")
    encodable(result)
    assert result.error.endswith('ValueError: bad \ufffd')
    assert result.outputs[-1]['evalue'] == 'bad \ufffd'


def test_a_file_name_that_is_not_utf8_is_printed_and_listed(box):
    result = box.run("import os\nopen(b'name\\xff.txt', 'w').close()\nfor name in os.listdir('.'):\n"
                     "    if name.startswith('name'): print(name)\nsys_name = [n for n in os.listdir('.') if n.startswith('name')]\nsys_name")
    encodable(result)
    assert result.output == 'name\ufffd.txt\n' and result.value == "['name\\udcff.txt']"
    listed = box.files()
    assert 'name\\xff.txt' in listed
    json.dumps(listed, ensure_ascii=False).encode()


def test_hostile_html_costs_little_and_never_raises(box):
    result = box.run("from IPython.display import HTML\nHTML('<![ x')")  # HTMLParser raised AssertionError out of run()
    assert result.ok and result.value == ''
    started = time.process_time()
    result = box.run("from IPython.display import HTML, display\nfor _ in range(30): display(HTML('<a ' * 6600))\n"
                     "HTML('<a>' * 6600)")
    str(result); result.to_dict()
    assert time.process_time() - started < 3  # the host's own CPU; HTMLParser took 5-7 s for one of these outputs
    assert result.ok


def test_a_large_html_budget_is_cut_per_result():
    with Sandbox(max_output=400_000) as sandbox:
        result = sandbox.run("from IPython.display import HTML, display\n"
                             "for _ in range(3): display(HTML('<p>word</p>' * 20_000))")  # 220,000 characters each
        started = time.process_time()
        text = str(result)
        assert time.process_time() - started < 3
        assert text.startswith('word\nword') and 'HTML cut' in text
        assert text.count('word') < 12_000  # 100,000 characters of HTML read in all, not 660,000


_FIND_REPLY = ('import sys\nfor frame in sys._current_frames().values():  # the request loop\'s frame: its reply pipe\n'
               '    while frame.f_code.co_name != "_serve": frame = frame.f_back\n'
               '    reply_fd = frame.f_locals["reply_fd"]\n')

def flood(pad:int, pause:float) -> str:
    "A cell writing well-formed frames of `pad` bytes to its reply pipe forever, `pause` s apart, shrugging off interrupts."
    return _FIND_REPLY + ('import json, os, struct, time\n'
                          f'payload = json.dumps({{"id": 0, "pad": "x" * {pad}}}).encode()\n'
                          'frame = struct.pack(">I", len(payload)) + payload\n'
                          f'while True:\n    try: os.write(reply_fd, frame); time.sleep({pause})\n    except KeyboardInterrupt: pass\n')

def resident_mib() -> int:
    with open('/proc/self/status') as status: return int(status.read().split('VmRSS:')[1].split()[0]) // 1024


@pytest.mark.parametrize('pad,pause', [(1_000, 0), (4_000_000, 0), (100, 0.1)], ids=['small_frames', 'big_frames', 'slow_frames'])
def test_a_cell_flooding_its_reply_pipe_stops_in_time_and_costs_bounded_memory(pad, pause):
    with Sandbox(timeout=1, grace=1) as box:
        box.run('1')
        before, started = resident_mib(), time.monotonic()
        result = box.run(flood(pad, pause))
        took, grown = time.monotonic() - started, resident_mib() - before
        assert took < 6  # a hard stop at timeout + grace = 2 s, with room for a loaded machine (it was 6-8 s, or never)
        assert grown < 200  # MiB: at most one frame (16 MiB) and a read buffer are kept (it grew by 0.7-0.9 GiB)
        assert result.state_lost and not result.ok
        if pause:  # a frame every 0.1 s: under the flood bound, so the hard stop ends it
            assert result.timed_out and 'did not stop when interrupted' in result.error
        else:
            assert 'floods the reply pipe' in result.error and 'a reply nobody asked for' in result.notes[0]
        assert box.run('1 + 1').value == '2'  # a fresh session


def test_the_stdio_mcp_server_answers_on_after_hostile_output():
    pytest.importorskip('mcp', reason='the MCP SDK is in the dev extra')
    import asyncio
    from pathlib import Path
    from mcp import Client, StdioServerParameters
    toolcall = str(Path(sys.executable).parent/'toolcall')
    def text(result): return '\n'.join(block.text for block in result.content if block.type == 'text')
    async def check():
        async with Client(StdioServerParameters(command=toolcall, args=['mcp', 'python'])) as client:
            assert text(await client.call_tool('python', {'code': "print('\\ud800')"})) == '\ufffd'
            listed = await client.call_tool('python', {'code': "import os\nopen(b'odd\\xff', 'w').close()\nprint(*os.listdir('.'))"})
            assert 'odd\ufffd' in text(listed)
            assert text(await client.call_tool('python', {'code': "raise ValueError('\\udcff')"})).endswith('ValueError: \ufffd')
            started = time.monotonic()
            shown = await client.call_tool('python', {'code': "from IPython.display import HTML, display\n"
                                                              "for _ in range(20): display(HTML('<a ' * 6600))\nHTML('<![ x')"})
            assert not shown.is_error and time.monotonic() - started < 10
            assert text(await client.call_tool('python', {'code': '2 + 2'})) == '4'
    asyncio.run(check())


def test_the_text_of_a_result_is_made_once():
    result = RunResult(outputs=({'output_type': 'display_data', 'data': {'text/html': '<b>bold</b>'}, 'metadata': {}},))
    assert str(result) == 'bold' and str(result) is str(result)


_PIPE_HOG = ('import fcntl, os\npipes = []\nfor _ in range(100):\n    read_end, write_end = os.pipe()\n'
             '    try: fcntl.fcntl(write_end, 1031, 1 << 20)  # F_SETPIPE_SZ: 1 MiB, the most an unprivileged user may ask\n'
             '    except OSError: break  # past the per-user soft budget: refused\n    pipes.append((read_end, write_end))\nlen(pipes)')
_PIPE_SIZE = 'import fcntl, os\nread_end, write_end = os.pipe()\nfcntl.fcntl(write_end, 1032)  # F_GETPIPE_SZ'

def test_sessions_do_not_share_the_kernels_per_user_pipe_budget():
    import os
    with Sandbox() as hog, Sandbox() as other:
        if os.geteuid() != 0:  # documented: without root every session is the host's own uid, budgets shared
            assert hog._ids() == other._ids() == (os.geteuid(), os.getegid())
            return
        assert hog._ids() != other._ids()
        assert hog.run('import os; os.getuid()').value == str(hog._ids()[0])
        assert int(hog.run(_PIPE_HOG).value) > 0
        assert hog.run(_PIPE_SIZE).value == '8192'  # the hog's own budget is spent: its next pipe is shrunk
        assert other.run(_PIPE_SIZE).value == '65536'  # the other session's is not (it was 8192 with one uid for all)
        uid = other._ids()[0]
        other.reset()
        assert other._ids()[0] == uid  # kept through restarts
    del hog, other
    import gc; gc.collect()
    with Sandbox() as again: assert again._ids()[0] <= uid  # given back with the Sandbox


_AS_USER = '''
import importlib.util, json, os, sys, time
spec = importlib.util.spec_from_file_location('toolcall_lib', sys.argv[1] + '/__init__.py', submodule_search_locations=[sys.argv[1]])
library = importlib.util.module_from_spec(spec); sys.modules[spec.name] = library; spec.loader.exec_module(library)
import toolcall_lib.interp as interp
flood = sys.argv[2]
def resident(): return int(open('/proc/self/status').read().split('VmRSS:')[1].split()[0]) // 1024
found = {'uid': os.getuid()}
with interp.Sandbox(timeout=1, grace=1) as box, interp.Sandbox() as other:
    result = box.run("print('a\\\\ud800')\\nopen(b'odd\\\\xff', 'w').close()\\nraise ValueError('\\\\udcff')")
    found['text'] = str(result); json.dumps(result.to_dict(), ensure_ascii=False).encode()
    found['files'] = box.files()
    before, started = resident(), time.monotonic()
    result = box.run(flood)
    found['flood'] = [time.monotonic() - started, resident() - before, result.state_lost, result.error]
    found['after_flood'] = box.run('1 + 1').value
    found['one_uid'] = box._ids() == other._ids() == (os.getuid(), os.getgid())
print(json.dumps(found))
'''

def test_the_same_holds_for_an_unprivileged_host():
    from pathlib import Path
    from test_sandbox_nonroot import unprivileged_command  # `nobody` through runuser when we are root
    library = Path(__file__).resolve().parents[1]/'toolcall_lib'
    completed = subprocess.run(unprivileged_command() + ['-c', _AS_USER, str(library), flood(1_000, 0)],
                               capture_output=True, text=True, timeout=120, cwd='/')
    assert completed.returncode == 0, completed.stderr
    found = json.loads(completed.stdout)
    assert found['uid'] != 0
    assert found['text'].startswith('a\ufffd\n') and found['text'].endswith('ValueError: \ufffd')
    assert found['files'] == ['odd\\xff']
    seconds, grown, lost, error = found['flood']
    assert seconds < 6 and grown < 200 and lost and 'floods the reply pipe' in error
    assert found['after_flood'] == '2'
    assert found['one_uid']  # documented: without root every session runs as the host's own uid


def test_a_reply_pipe_swapped_after_a_forged_frame_is_refused():
    """A cell writes a frame to the reply pipe, then puts another pipe in the reply descriptor's place, so the loop's
    own reply would go where the host never reads: the host sees the descriptor no longer leads to its pipe
    (`pipe:[inode]`), refuses the reply and restarts the session, rather than take the forged frame."""
    with Sandbox(timeout=10) as sandbox:
        sandbox.run('kept = 1')
        result = sandbox.run(
            'import json, os, struct, sys\n'
            'for frame in sys._current_frames().values():  # the worker loop\'s frame, below the cell\'s\n'
            '    while frame.f_code.co_name != "_serve": frame = frame.f_back\n'
            '    reply_fd, request_id = frame.f_locals["reply_fd"], frame.f_locals["request"]["id"]\n'
            'payload = json.dumps({"id": request_id, "outputs": [], "error": None}).encode()\n'
            'os.write(reply_fd, struct.pack(">I", len(payload)) + payload)\n'
            'kept_open = os.dup(reply_fd)  # the host must not see the pipe end\n'
            'unread, elsewhere = os.pipe(); os.dup2(elsewhere, reply_fd)\n'
            '"the cell ran on"')
        assert result.state_lost and 'its reply descriptor no longer leads to the host' in result.error, result
        assert 'NameError' in sandbox.run('kept').error  # a fresh session
