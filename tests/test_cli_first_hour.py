"""The command line as a new user first meets it: one FILE:NAME / MODULE:NAME syntax for every subcommand that names
tools, a module in the current directory found by name, FILE alone meaning every tool in it, `toolcall python` on a
terminal as a small interactive session, `--copy-in` for a host file, and a failing exit status when every call failed."""
import json, os, pty, select, subprocess, sys, time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = str(Path(sys.executable).parent/'toolcall')
TOOLS = ROOT/'examples'/'weather_tools.py'

MYTOOLS = '''
def add(a:int, # the first number
        b:int=0, # the second number
       ) -> int: # their sum
    "Add two numbers."
    return a + b

def shout(text:str, # what to shout
         ) -> str: # the text in capitals
    "Shout."
    return text.upper()
'''

@pytest.fixture
def folder(tmp_path):
    "A folder holding mytools.py, as a user's own program would"
    (tmp_path/'mytools.py').write_text(MYTOOLS)
    return tmp_path

def toolcall(*args, cwd, stdin=None):
    return subprocess.run([SCRIPT, *args], input=stdin, capture_output=True, text=True, timeout=120, cwd=cwd)

@pytest.mark.parametrize('target', ['mytools.py:add', 'mytools:add'])
def test_file_and_module_targets_work_for_schema_and_call(folder, target):
    schema = toolcall('schema', target, cwd=folder)
    assert schema.returncode == 0, schema.stderr
    assert json.loads(schema.stdout)['name'] == 'add'
    called = toolcall('call', target, '{"a": 2, "b": "3"}', cwd=folder)
    assert (called.returncode, called.stdout.strip(), called.stderr) == (0, '5', '')

def test_the_older_call_form_still_works(folder):
    called = toolcall('call', 'mytools.py', 'add', '{"a": 2}', cwd=folder)
    assert (called.returncode, called.stdout.strip()) == (0, '2'), called.stderr

@pytest.mark.parametrize('target', ['mytools.py', 'mytools'])
def test_a_file_alone_is_every_tool_in_it(folder, target):
    schema = toolcall('schema', target, '--format', 'openai', cwd=folder)
    assert schema.returncode == 0, schema.stderr
    assert [tool['function']['name'] for tool in json.loads(schema.stdout)] == ['add', 'shout']

def test_call_on_a_file_of_several_tools_asks_for_the_name(folder):
    called = toolcall('call', 'mytools.py', '{"a": 1}', cwd=folder)
    assert called.returncode == 2
    assert 'mytools.py:NAME' in called.stderr and 'add, shout' in called.stderr and len(called.stderr.splitlines()) == 1

def test_run_and_parse_take_the_same_targets(folder):
    reply = '<tool_call>{"name": "add", "arguments": {"a": 1, "b": 2}}</tool_call>'
    for target in ('mytools.py', 'mytools', 'mytools:add'):
        done = toolcall('run', '-', target, stdin=reply, cwd=folder)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)[0]['content'] == '3'
    parsed = toolcall('parse', '--tools-from', 'mytools:shout', stdin=reply, cwd=folder)
    assert json.loads(parsed.stdout)['rejected_tool_names'] == ['add']

def test_run_fails_when_every_call_failed(folder):
    done = toolcall('run', '-', 'mytools.py', stdin='<tool_call>{"name": "launch", "arguments": {}}</tool_call>', cwd=folder)
    assert done.returncode == 1
    assert "launch" in json.loads(done.stdout)[0]['content']            # the results are still printed, for the model
    assert 'every call failed' in done.stderr and 'launch' in done.stderr and len(done.stderr.splitlines()) == 1
    mixed = '<tool_call>{"name": "launch", "arguments": {}}</tool_call><tool_call>{"name": "add", "arguments": {"a": 1}}</tool_call>'
    assert toolcall('run', '-', 'mytools.py', stdin=mixed, cwd=folder).returncode == 0   # one call worked

def test_tool_timeout_flag_and_its_older_name(folder):
    reply = '<tool_call>{"name": "add", "arguments": {"a": 1}}</tool_call>'
    for flag in ('--tool-timeout', '--timeout'):
        done = toolcall('run', '-', 'mytools.py', flag, '5', stdin=reply, cwd=folder)
        assert done.returncode == 0, done.stderr

def test_copy_in_puts_a_host_file_in_the_sandbox(folder):
    (folder/'data.txt').write_text('hello from the host')
    done = toolcall('python', '--copy-in', 'data.txt', '-c', 'print(open("data.txt").read())', cwd=folder)
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, 'hello from the host', '')
    older = toolcall('python', '--file', 'data.txt', '-c', 'print(open("data.txt").read())', cwd=folder)
    assert older.returncode == 0 and older.stdout.strip() == 'hello from the host'
    assert 'use --copy-in' in older.stderr
    missing = toolcall('python', '--copy-in', 'nope.txt', '-c', 'pass', cwd=folder)
    assert missing.returncode == 2 and '--copy-in nope.txt: no such file' in missing.stderr

def read_until(leader:int, wanted:bytes, seen:bytearray, timeout:float=60) -> bytes:
    "Read the terminal until `wanted` has appeared in what came since the last call"
    start, deadline = len(seen), time.monotonic() + timeout
    while wanted not in seen[start:]:
        if time.monotonic() > deadline: raise AssertionError(f'{wanted!r} never came; the terminal showed {bytes(seen)!r}')
        ready, _, _ = select.select([leader], [], [], 1)
        if ready:
            try: chunk = os.read(leader, 65536)
            except OSError: break
            if not chunk: break
            seen += chunk
    return bytes(seen[start:])

def test_python_on_a_terminal_is_a_small_repl(folder):
    leader, follower = pty.openpty()
    process = subprocess.Popen([SCRIPT, 'python'], stdin=follower, stdout=follower, stderr=follower, cwd=folder)
    os.close(follower)
    seen = bytearray()
    try:
        read_until(leader, b'>>> ', seen)
        os.write(leader, b'x = 6 * 7\n'); read_until(leader, b'>>> ', seen)
        os.write(leader, b'print(x)\n'); assert b'42' in read_until(leader, b'>>> ', seen)
        os.write(leader, b'for i in range(2):\n'); read_until(leader, b'... ', seen)
        os.write(leader, b'    print(i * 10)\n'); read_until(leader, b'... ', seen)
        os.write(leader, b'\n'); shown = read_until(leader, b'>>> ', seen)
        assert b'0\r\n10' in shown, shown
        os.write(leader, b'\x04')   # Ctrl-D
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None: process.kill()
        os.close(leader)
