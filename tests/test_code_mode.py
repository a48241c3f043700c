"""Code mode (`Sandbox(tools=...)`): a cell calls the host's tools as plain functions, and every call goes through dispatch.

Each property of issue 28, and the attacks on it: a cell forging results or replies, calling names it was not offered,
reaching the host's objects through its functions, flooding the channel, a tool that hangs, a refusal by `approve`."""
import ast, json, sys, threading, time
from pathlib import Path
import pytest

if sys.platform != 'linux': pytest.skip('the sandbox needs Linux', allow_module_level=True)

from toolcall_lib.interp import Sandbox, SandboxPool, SandboxError

SECRET = 'host-secret-7f3a9c'  # a global of the host's tools: it must never be readable in the sandbox
calls = []  # what the host's tools were called with, in this process

def get_weather(city:str, # The city
                unit:str='C', # 'C' or 'F'
               ) -> dict:
    "The weather in `city` today."
    calls.append(('get_weather', city, unit, SECRET[:0]))
    return {'city': city, 'temperature': 21 if unit == 'C' else 70, 'unit': unit}

def add(a:int, b:int) -> int:
    "Add two integers."
    return a + b

def fail(reason:str):
    "Always fails."
    raise ValueError(reason)

def hidden_tool():
    "Never offered to the sandbox."
    calls.append(('hidden_tool',))
    return SECRET

def sleepy(seconds:float) -> str:
    "Sleep, then say so."
    time.sleep(seconds)
    return 'awake'

TOOLS = [get_weather, add, fail, sleepy]

def raw_call(frame:dict) -> str:
    "Cell code that writes `frame` to the worker's reply pipe itself (found from the session's function) and reads one result."
    return ('import json, os\n'
            'channel = [cell.cell_contents for cell in get_weather.__closure__ if type(cell.cell_contents).__name__ == "_Channel"][0]\n'
            f'payload = json.dumps({frame!r}).encode()\n'
            'os.write(channel.reply_fd, len(payload).to_bytes(4, "big") + payload)\n'
            'size = int.from_bytes(os.read(channel.request_fd, 4), "big")\n'
            'json.loads(os.read(channel.request_fd, size))')

@pytest.fixture(scope='module')
def box():
    with Sandbox(tools=TOOLS, timeout=20) as sandbox: yield sandbox


def test_each_tool_is_a_function_with_its_name_signature_and_docstring(box):
    assert box.run('import inspect; str(inspect.signature(get_weather))').value == '"(city: str, unit: str = \'C\') -> dict"'
    assert box.run('get_weather.__name__, get_weather.__doc__').value == "('get_weather', 'The weather in `city` today.')"
    shown = box.run('help(add)').output
    assert 'add(a: int, b: int) -> int' in shown and 'Add two integers.' in shown


def test_a_call_runs_the_host_function_and_returns_plain_data(box):
    calls.clear()
    result = box.run('rows = [get_weather(city) for city in ("Paris", "Oslo")]\n[row["city"] for row in rows], type(rows[0]).__name__')
    assert result.value == "(['Paris', 'Oslo'], 'dict')", result
    assert [call[:3] for call in calls] == [('get_weather', 'Paris', 'C'), ('get_weather', 'Oslo', 'C')]


def test_arguments_are_coerced_as_for_a_model(box):
    assert box.run('add("2", b="40")').value == '42'
    assert box.run('get_weather(city=7)["city"]').value == "'7'"


def test_a_failing_call_raises_what_the_model_would_read_and_the_session_goes_on(box):
    box.run('kept = 5')
    result = box.run('fail("no luck")')
    assert "ToolCallError: Error in tool 'fail': ValueError: no luck" in result.error, result.error
    result = box.run('try: add("x", 1)\nexcept ToolCallError as error: print(error)\nkept')
    assert "'a'" in result.output and 'int' in result.output and result.value == '5', result
    assert box.run('try: add(1)\nexcept TypeError as error: print(error)').output == "missing a required argument: 'b'\n"


def test_async_calls_gather(box):
    result = box.run('import asyncio\nawait asyncio.gather(*(add.call_async(n, 1) for n in range(5)))')
    assert result.value == '[1, 2, 3, 4, 5]', result
    result = box.run('async def twice(): return [await add.call_async(1, 1), add(2, 2)]\nawait twice()')
    assert result.value == '[2, 4]', result


def test_a_name_not_offered_is_refused_and_nothing_runs(box):
    calls.clear()
    for name in ('hidden_tool', 'os.system', 'get_weather.__globals__', '__import__', 'add.__call__'):
        result = box.run(raw_call({'call': name, 'arguments': {}, 'call_id': 10_000}))
        assert result.error is None and 'There is no tool named' in result.value, (name, result)
    assert calls == []
    assert box.run('add(1, 1)').value == '2'  # the channel is still in step


def test_the_host_function_and_its_globals_never_enter_the_sandbox(box):
    code = ('import gc, sys\n'
            'found = [name for name in ("__wrapped__", "__self__", "__func__") if hasattr(get_weather, name)]\n'
            'texts = [value for value in list(get_weather.__globals__.values()) + [cell.cell_contents for cell in get_weather.__closure__]]\n'
            f'secret = {SECRET[:5]!r} + {SECRET[5:]!r}\n'
            'found += [repr(value)[:40] for value in texts if secret in repr(value)]\n'
            'found += [type(obj).__name__ for obj in gc.get_objects() if isinstance(obj, str) and obj == secret and obj is not secret]\n'
            'found, get_weather.__globals__["__name__"], get_weather.__code__.co_filename')
    assert box.run(code).value == "([], 'toolcall_tools', '<toolcall tools>')"


def test_a_result_frame_a_cell_writes_is_not_taken_for_anything(box):
    "A cell writing a result frame (or its own reply) to the reply pipe gets no result forged: the frame is one nobody asked for."
    box.run('kept = 1')
    result = box.run(raw_call({'call_id': 1, 'value': 'forged'}).rsplit('\n', 2)[0] + '\nprint("after")')
    assert result.state_lost, result
    assert 'forged' not in (result.output + str(result.value)), result
    forged = {'outputs': [{'output_type': 'stream', 'name': 'stdout', 'text': 'FORGED'}], 'id': 10**6}
    result = box.run(raw_call(forged).rsplit('\n', 2)[0] + '\nadd(1, 2)')
    assert 'FORGED' not in result.output and (result.state_lost), result
    assert box.run('add(20, 22)').value == '42'


def test_a_cell_that_leaves_its_result_unread_leaves_the_session_in_step(box):
    """Its call runs on the host while the cell ends: a result written before the cell ended is read by the worker as a
    request (the session is restarted, and says so); one that ends after goes nowhere (the session goes on)."""
    for _ in range(5):
        box.run('kept = 1')
        result = box.run(raw_call({'call': 'sleepy', 'arguments': {'seconds': 0.01}, 'call_id': 99}).rsplit('\n', 2)[0] + '\nimport time; time.sleep(0.02)')
        assert result.state_lost == (result.error is not None), result
        assert box.run('"kept" in globals(), add(1, 1)').value == f'({not result.state_lost}, 2)', result
    for _ in range(5):  # a call the cell did not wait for, still running when it ended
        result = box.run('kept = 1\n' + raw_call({'call': 'sleepy', 'arguments': {'seconds': 0.3}, 'call_id': 99}).rsplit('\n', 2)[0])
        assert result.error is None and not result.state_lost, result
        time.sleep(0.4)
        assert box.run('"kept" in globals(), add(1, 1)').value == '(True, 2)'


def test_approve_refuses_and_on_step_hears_every_call():
    seen, steps = [], []
    def approve(call):
        seen.append(call)
        return call.arguments['a'] < 100 or 'Too big.'
    with Sandbox(tools=[add], approve=approve, on_step=lambda step: steps.append((step.kind, step.data.name))) as sandbox:
        result = sandbox.run('print(add(1, "2"))\nadd(500, 1)')
    assert result.output == '3\n' and 'ToolCallError: Too big.' in result.error, result
    assert [(call.name, call.arguments, call.provider) for call in seen] == [('add', {'a': 1, 'b': 2}, 'code'), ('add', {'a': 500, 'b': 1}, 'code')]
    assert steps == [('call', 'add'), ('result', 'add'), ('call', 'add')]


def test_an_approve_that_raises_refuses():
    def approve(call): raise RuntimeError('checker down')
    with Sandbox(tools=[add], approve=approve) as sandbox:
        assert 'the check that approves calls failed (RuntimeError)' in sandbox.run('add(1, 2)').error


def test_a_tool_that_hangs_is_cut_off_and_the_session_goes_on():
    with Sandbox(tools=[sleepy], tool_timeout=0.5) as sandbox:
        started = time.monotonic()
        result = sandbox.run('x = 1\ntry: sleepy(30)\nexcept ToolCallError as error: print(error)\nx')
        assert time.monotonic() - started < 5 and 'did not finish within 0.5 s' in result.output and result.value == '1', result
        # the cell's own limit cuts a call short too
        started = time.monotonic()
        result = sandbox.run('sleepy(30)', timeout=1)
        assert time.monotonic() - started < 6 and result.error, result
        assert sandbox.run('x').value == '1'


def test_flooding_the_channel_ends_in_the_cell_limit_and_the_host_is_fine():
    with Sandbox(tools=[add], timeout=2, grace=0.5) as sandbox:
        code = ('import os\nchannel = [c.cell_contents for c in add.__closure__ if type(c.cell_contents).__name__ == "_Channel"][0]\n'
                'frame = b\'{"call":"add","arguments":{"a":1,"b":2},"call_id":1}\'\n'
                'while True: os.write(channel.reply_fd, len(frame).to_bytes(4, "big") + frame)')
        started = time.monotonic()
        result = sandbox.run(code)
        assert time.monotonic() - started < 10 and result.error, result
        assert sandbox.run('add(2, 3)').value == '5'


def test_a_thousand_calls_in_one_cell():
    with Sandbox(tools=[add]) as sandbox:
        assert sandbox.run('total = 0\nfor n in range(1000): total = add(total, 1)\ntotal').value == '1000'


def test_tools_survive_reset_and_work_in_a_pool():
    with Sandbox(tools=[add]) as sandbox:
        sandbox.reset()
        assert sandbox.run('add(1, 2)').value == '3'
    with SandboxPool(tools=[add]) as pool:
        assert pool.get('alice').run('add(2, 2)').value == '4'


def test_bad_options_fail_at_once():
    with pytest.raises(ValueError, match='give tools too'): Sandbox(approve=lambda call: True)
    with pytest.raises(ValueError, match='would both be'): Sandbox(tools={'a-b': add, 'a_b': add})


def test_the_sandbox_side_imports_only_the_standard_library():
    source = Path(__file__).resolve().parents[1]/'toolcall_lib'/'interp'/'tool_calls.py'
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.ImportFrom): assert node.level == 0 and node.module.split('.')[0] in sys.stdlib_module_names | {'__future__'}, node.module
        elif isinstance(node, ast.Import): assert all(alias.name.split('.')[0] in sys.stdlib_module_names for alias in node.names)


def test_code_tool_gives_a_chat_code_mode_in_one_line():
    "A model's one `run_code` call runs twenty tool calls in one cell; only what the code printed goes back to the model."
    from toolcall_lib.loop import Chat, ReplayClient
    from toolcall_lib.interp.code_tool import code_tool
    calls.clear()
    code = 'temps = {city: get_weather(city)["temperature"] for city in [f"city{n}" for n in range(20)]}\nprint(len(temps), sum(temps.values()))'
    turns = [{'role': 'assistant', 'content': None, 'tool_calls': [
                 {'id': 'c1', 'type': 'function', 'function': {'name': 'run_code', 'arguments': json.dumps({'code': code})}}]},
             {'role': 'assistant', 'content': 'Twenty cities, 420 degrees in all.'}]
    tool = code_tool([get_weather])
    try:
        chat = Chat(ReplayClient(turns), [tool], provider='openai')
        assert chat('How warm are my twenty cities?') == 'Twenty cities, 420 degrees in all.'
    finally: tool.sandbox().close()
    assert len(calls) == 20
    assert '20 420' in json.dumps(chat.tool_results) and 'city19' not in json.dumps(chat.tool_results)
    assert "def get_weather(city: str, unit: str = 'C') -> dict:" in tool.__doc__


NONROOT = '''
import importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location('toolcall_lib', sys.argv[1] + '/__init__.py', submodule_search_locations=[sys.argv[1]])
library = importlib.util.module_from_spec(spec); sys.modules[spec.name] = library; spec.loader.exec_module(library)
if sys.version_info[:2] == tuple(json.loads(sys.argv[3])): sys.path.append(sys.argv[2])  # the test's packages, after the user's own
try: import toolcall_lib.dispatch
except ImportError as error: print(json.dumps({'skip': str(error)})); sys.exit(0)
import toolcall_lib.interp as interp
def add(a:int, b:int) -> int:
    "Add."
    return a + b
frame = json.dumps({'call': 'os.system', 'arguments': {'command': 'id'}, 'call_id': 5})
raw = ('import json, os\\nchannel = [c.cell_contents for c in add.__closure__ if type(c.cell_contents).__name__ == "_Channel"][0]\\n'
       f'payload = {frame!r}.encode()\\nos.write(channel.reply_fd, len(payload).to_bytes(4, "big") + payload)\\n'
       'size = int.from_bytes(os.read(channel.request_fd, 4), "big")\\njson.loads(os.read(channel.request_fd, size))["error"][:22]')
import time
def nap(seconds:float) -> float:
    "Sleep."
    time.sleep(seconds); return seconds
gather = 'import asyncio, time\\nstarted = time.monotonic()\\nfound = await asyncio.gather(nap.call_async(0.4), nap.call_async(0.4), return_exceptions=True)\\n'
with interp.Sandbox(tools=[add, nap], require_isolation=True, tool_timeout=1) as box:
    results = {'uid': os.getuid(), 'call': box.run('add(2, "3")').value, 'gather': box.run('import asyncio\\nawait asyncio.gather(add.call_async(1, 1), add.call_async(2, 2))').value,
               'unlisted': box.run(raw).value, 'after': box.run('add(1, 1)').value, 'sandbox_uid': box.run('os.getuid() != 0').value,
               'at_once': box.run(gather + 'found, time.monotonic() - started < 0.75').value,
               'hang': box.run('try: nap(60)\\nexcept ToolCallError as error: print(error)').output.strip(),
               'flood': box.run('found = await asyncio.gather(*(add.call_async(n, 1) for n in range(500)))\\nfound == [n + 1 for n in range(500)]').value}
with interp.Sandbox(tools=[add, nap], require_isolation=True, approve=lambda call: call.name == 'add' or 'No naps.') as box:
    results['refused'] = box.run(gather + '[str(item) for item in found]').value
print(json.dumps(results))
'''

def test_code_mode_as_an_unprivileged_user():
    import subprocess, sysconfig
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_sandbox_nonroot import LIBRARY, unprivileged_command
    completed = subprocess.run(unprivileged_command() + ['-c', NONROOT, str(LIBRARY), sysconfig.get_paths()['purelib'],
                                                               json.dumps(sys.version_info[:2])], capture_output=True, text=True, timeout=120, cwd='/')
    assert completed.returncode == 0, completed.stderr
    results = json.loads(completed.stdout)
    if 'skip' in results: pytest.skip(f'the interpreter the unprivileged user can run lacks what dispatch needs: {results["skip"]}')
    assert results == {'uid': results['uid'], 'call': '5', 'gather': '[2, 4]', 'unlisted': "'There is no tool named'", 'after': '2',
                       'sandbox_uid': 'True', 'at_once': '([0.4, 0.4], True)', 'flood': 'True',
                       'hang': "Tool 'nap' did not finish within 1 s; try a smaller request.",
                       'refused': "['No naps.', 'No naps.']"} and results['uid'] != 0, results


def test_the_mcp_python_server_with_tools_is_code_mode(tmp_path):
    "`toolcall mcp python --tools my_tools.py`: the python tool's description lists the tools, and its code calls them."
    import asyncio
    from mcp import Client
    from toolcall_lib.mcp import python_server
    from toolcall_lib.mcp_cli import _code_mode_tools
    (tmp_path/'my_tools.py').write_text('def double(n:int, # A number\n          ) -> int:\n    "Twice `n`."\n    return 2 * n\n')
    tools = _code_mode_tools([str(tmp_path/'my_tools.py')])
    server = python_server(tools=tools)
    async def talk():
        async with Client(server) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            answer = await client.call_tool('python', {'code': 'sum(double(n) for n in range(10))'})
            return listed['python'].description, answer.content[0].text
    try: description, answer = asyncio.run(talk())
    finally: server.sandbox_pool.close()
    assert 'def double(n: int) -> int:' in description and 'Twice `n`.' in description, description
    assert answer == '90', answer
    assert _code_mode_tools([]) is None


def test_threads_of_a_cell_may_call_at_once(box):
    code = ('from concurrent.futures import ThreadPoolExecutor\n'
            'with ThreadPoolExecutor(4) as pool: sums = list(pool.map(lambda n: add(n, 1000), range(200)))\n'
            'sums == [n + 1000 for n in range(200)]')
    result = box.run(code)
    assert result.value == 'True', result
    code = ('import asyncio, threading\nfrom concurrent.futures import ThreadPoolExecutor\n'
            'async def mixed():\n'
            '    with ThreadPoolExecutor(2) as pool:\n'
            '        threaded = [asyncio.get_running_loop().run_in_executor(pool, add, n, 1) for n in range(20)]\n'
            '        awaited = [add.call_async(n, 2) for n in range(20)]\n'
            '        return await asyncio.gather(*threaded, *awaited)\n'
            'await mixed() == [n + 1 for n in range(20)] + [n + 2 for n in range(20)]')
    result = box.run(code)
    assert result.value == 'True', result


def slow_weather(city:str) -> dict:
    "The weather in `city`, from a service that takes half a second to answer."
    time.sleep(0.5)
    if city == 'Atlantis': raise LookupError('no such city')
    return {'city': city, 'temperature': len(city)}

async def slow_weather_async(city:str) -> dict:
    "The weather in `city`, awaited: half a second."
    import asyncio
    await asyncio.sleep(0.5)
    return {'city': city, 'temperature': len(city)}

def test_gathered_calls_run_at_once_on_the_host():
    "Two plain and two async tools that each take 0.5 s: gathered, each pair takes about 0.5 s, not 1 s; results go to the right awaiter."
    with Sandbox(tools=[slow_weather, slow_weather_async]) as sandbox:
        sandbox.run('import asyncio, time')
        for tool in ('slow_weather', 'slow_weather_async'):
            code = (f'started = time.monotonic()\nfound = await asyncio.gather({tool}.call_async("Oslo"), {tool}.call_async("Lima, Peru"))\n'
                    '[row["city"] for row in found], time.monotonic() - started')
            result = sandbox.run(code)
            cities, elapsed = eval(result.value)
            assert cities == ['Oslo', 'Lima, Peru'] and elapsed < 0.9, (tool, result)
        # twenty at once, past the sixteen that run together: two rounds of 0.5 s, not twenty
        result = sandbox.run('started = time.monotonic()\nfound = await asyncio.gather(*(slow_weather.call_async(f"c{n}") for n in range(20)))\n'
                             '[row["city"] for row in found] == [f"c{n}" for n in range(20)], time.monotonic() - started')
        same, elapsed = eval(result.value)
        assert same and elapsed < 1.8, result


def test_a_failing_call_raises_only_in_its_own_awaiter():
    with Sandbox(tools=[slow_weather]) as sandbox:
        code = ('import asyncio\nfound = await asyncio.gather(*(slow_weather.call_async(city) for city in ("Oslo", "Atlantis", "Rome")), return_exceptions=True)\n'
                '[type(item).__name__ if isinstance(item, Exception) else item["city"] for item in found], str(found[1])')
        # the value as a notebook shows it (IPython wraps past 79 columns): compared as the Python literal it is
        assert ast.literal_eval(sandbox.run(code).value) == (['Oslo', 'ToolCallError', 'Rome'], "Error in tool 'slow_weather': LookupError: no such city")


def test_a_hanging_call_among_gathered_ones_times_out_alone_and_the_session_goes_on():
    with Sandbox(tools=[sleepy, add], tool_timeout=0.5) as sandbox:
        started = time.monotonic()
        code = ('import asyncio\nfound = await asyncio.gather(sleepy.call_async(3600), add.call_async(1, 2), sleepy.call_async(0.1), return_exceptions=True)\n'
                '[str(item) for item in found]')
        result = sandbox.run(code)
        assert time.monotonic() - started < 5, result
        assert ast.literal_eval(result.value) == ["Tool 'sleepy' did not finish within 0.5 s; try a smaller request.", '3', 'awake'], result
        assert sandbox.run('add(2, 2)').value == '4'


def test_calls_that_hang_cannot_pile_up_threads_on_the_host():
    "Each hanging call is given up on after its timeout; past the door's bound of calls still running, calls are refused unrun."
    import threading
    with Sandbox(tools=[sleepy, add], tool_timeout=0.2, timeout=30) as sandbox:
        before = threading.active_count()
        code = ('import asyncio\nfound = await asyncio.gather(*(sleepy.call_async(3) for n in range(60)), return_exceptions=True)\n'
                'sorted({str(item).split(" (")[0].split(" calls")[-1][:40] for item in found})')
        result = sandbox.run(code)
        assert result.error is None, result
        assert 'did not finish within 0.2' in result.value and 'of this sandbox are still running' in result.value, result
        assert threading.active_count() - before <= 32 + 2, threading.active_count()
        time.sleep(3.2)
        assert sandbox.run('add(1, 1)').value == '2'


def test_a_cell_flooding_gathered_calls_runs_them_all_within_the_bound():
    "A thousand calls gathered at once: the host runs at most sixteen at a time, reads no further meanwhile, and answers all."
    peak, running, lock = [0], [0], __import__('threading').Lock()
    def counted(n:int) -> int:
        "Count how many run at once."
        with lock: running[0] += 1; peak[0] = max(peak[0], running[0])
        time.sleep(0.001)
        with lock: running[0] -= 1
        return n
    with Sandbox(tools=[counted]) as sandbox:
        result = sandbox.run('import asyncio\nfound = await asyncio.gather(*(counted.call_async(n) for n in range(1000)))\nfound == list(range(1000))')
        assert result.value == 'True', result
    assert 2 <= peak[0] <= 16, peak


def test_an_async_approve_that_refuses_some_of_gathered_calls():
    async def approve(call):
        return call.arguments['a'] < 10 or f'No, not {call.arguments["a"]}.'
    with Sandbox(tools=[add], approve=approve) as sandbox:
        code = 'import asyncio\nfound = await asyncio.gather(*(add.call_async(a, 1) for a in (1, 50, 2)), return_exceptions=True)\n[str(item) for item in found]'
        assert sandbox.run(code).value == "['2', 'No, not 50.', '3']"


def picture(colour:str='red'):
    "A 4x3 picture in `colour`."
    from PIL import Image
    return Image.new('RGB', (4, 3), colour)

def huge_picture():
    "A picture too big to send."
    import os
    return b'\x89PNG\r\n\x1a\n' + os.urandom(5_000_000)

def test_an_image_result_crosses_as_an_image_and_reaches_the_model_when_shown():
    with Sandbox(tools=[picture, huge_picture]) as sandbox:
        result = sandbox.run('image = picture("blue")\nimage.mime, image.width, image.height, image.data[:4], type(image).__name__, image.to_pil().getpixel((0, 0))')
        assert result.value == "('image/png', 4, 3, b'\\x89PNG', 'ToolImage', (0, 0, 255))", result
        shown = sandbox.run('from IPython.display import display\ndisplay(image)\nimage')
        assert [(image.mime, image.width, image.height) for image in shown.images] == [('image/png', 4, 3)] * 2, shown
        assert 'over the 4,000,000 a cell may take' in sandbox.run('huge_picture()').error
    from toolcall_lib.content import result_content
    text, pictures = result_content(shown)
    assert [mime for mime, data in pictures] == ['image/png', 'image/png'], (text, pictures)


def test_results_that_end_out_of_order_reach_their_own_awaiters():
    with Sandbox(tools=[sleepy, add]) as sandbox:
        code = ('import asyncio\nfound = await asyncio.gather(sleepy.call_async(0.4), add.call_async(1, 1), sleepy.call_async(0.1), add.call_async(2, 2))\n'
                'found')
        assert sandbox.run(code).value == "['awake', 2, 'awake', 4]"


def test_a_sandbox_run_from_async_code_serves_async_hooks_and_tools():
    "The host's own event loop is blocked in `run`: hooks and async tools run on the door's loop, so nothing waits on it."
    import asyncio
    steps = []
    async def approve(call): await asyncio.sleep(0.01); return True
    async def on_step(step): steps.append(step.kind)
    async def main():
        with Sandbox(tools=[slow_weather_async, add], approve=approve, on_step=on_step) as sandbox:
            return sandbox.run('import asyncio\nawait asyncio.gather(slow_weather_async.call_async("Rome"), add.call_async(1, 2))').value
    assert asyncio.run(main()) == "[{'city': 'Rome', 'temperature': 4}, 3]"
    assert sorted(steps) == ['call', 'call', 'result', 'result']


async def async_sleepy(seconds:float) -> str:
    "Sleep without blocking, then say so."
    import asyncio
    await asyncio.sleep(seconds)
    return 'awake'

def test_a_cell_that_ends_with_more_calls_out_than_run_at_once_is_not_held_up():
    "Twenty slow calls started and not waited for: sixteen run, four wait their turn, and the cell's reply behind them is read at once."
    for tool in ('async_sleepy', 'sleepy'):
        with Sandbox(tools=[async_sleepy, sleepy, add], timeout=20) as sandbox:
            started = time.monotonic()
            result = sandbox.run(f'import asyncio\ntasks = [asyncio.ensure_future({tool}.call_async(5)) for _ in range(20)]\nawait asyncio.sleep(0.2)\n"ended"')
            assert result.value == "'ended'" and time.monotonic() - started < 3, (tool, result)
            assert sandbox.run('add(1, 1)').value == '2'  # sync: the sixteen still run on the host, under the bound of 32
            if tool == 'async_sleepy':  # async: cancelled when the cell ended
                time.sleep(0.3)
                assert sandbox._tools.busy == 0, sandbox._tools.busy
