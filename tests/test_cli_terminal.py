"""`toolcall python` shows what a cell printed as text: on a terminal (a real pseudo-terminal here) control sequences
are escaped, so a cell cannot write the clipboard, retitle the window or clear the screen; into a pipe the bytes pass
as they are; and a lone surrogate in a result is printed escaped, never a traceback or a lost result."""
import json, os, pty, subprocess, sys, tty
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = str(Path(sys.executable).parent / 'toolcall')

HOSTILE = r'''print('clip\x1b]52;c;cHduZWQ=\x07 title\x1b]0;owned\x07 wipe\x1b[2J\x1b[H back\rcsi\x9b31m ok\tdone')'''
SHOWN = r'clip\x1b]52;c;cHduZWQ=\x07 title\x1b]0;owned\x07 wipe\x1b[2J\x1b[H back\x0dcsi\x9b31m ok' + '\tdone'
RAW = 'clip\x1b]52;c;cHduZWQ=\x07 title\x1b]0;owned\x07 wipe\x1b[2J\x1b[H back\rcsi\x9b31m ok\tdone'


def on_terminal(*args, code:str, both:bool=False) -> tuple:
    """(exit status, what `toolcall ARGS` wrote to its stdout, a pseudo-terminal in raw mode, as text; its stderr, or ''
    when `both` sends stderr to the terminal too)."""
    leader, follower = pty.openpty()
    tty.setraw(follower)   # no newline translation: the bytes as the program wrote them
    try:
        process = subprocess.Popen([SCRIPT, *args], stdin=subprocess.PIPE, stdout=follower,
                                   stderr=follower if both else subprocess.PIPE, cwd=ROOT)
        os.close(follower)
        follower = None
        process.stdin.write(code.encode()); process.stdin.close()
        chunks = []
        while True:
            try: chunk = os.read(leader, 65536)
            except OSError: break   # EIO: every writer closed the terminal
            if not chunk: break
            chunks.append(chunk)
        stderr = '' if both else process.stderr.read().decode()
        return process.wait(timeout=120), b''.join(chunks).decode('utf-8'), stderr
    finally:
        os.close(leader)
        if follower is not None: os.close(follower)

def in_pipe(*args, code:str) -> subprocess.CompletedProcess:
    return subprocess.run([SCRIPT, *args], input=code.encode(), capture_output=True, timeout=120, cwd=ROOT)


def test_control_sequences_are_escaped_on_a_terminal():
    status, out, err = on_terminal('python', code=HOSTILE)
    assert (status, err) == (0, '')
    assert out == SHOWN + '\n'
    assert '\x1b' not in out and '\x07' not in out and '\x9b' not in out and '\r' not in out

def test_json_on_a_terminal_is_escaped_and_still_json():
    status, out, err = on_terminal('python', '--json', code=HOSTILE)
    assert (status, err) == (0, '')
    assert '\x1b' not in out and '\x9b' not in out
    assert json.loads(out)['output'] == RAW + '\n'

def test_a_pipe_gets_the_bytes_as_printed():
    completed = in_pipe('python', code=HOSTILE)
    assert completed.returncode == 0 and completed.stdout.decode() == RAW + '\n'

@pytest.mark.parametrize('where', ['terminal', 'pipe'])
def test_a_lone_surrogate_is_printed_escaped_not_a_traceback(where):
    code = 'import os\nname = os.fsdecode(b"caf\\xe9")\nraise ValueError(name)'
    if where == 'terminal': status, out, err = on_terminal('python', code=code)
    else:
        completed = in_pipe('python', code=code)
        status, out, err = completed.returncode, completed.stdout.decode('utf-8'), completed.stderr.decode()
    assert status == 1 and err == ''
    # the sandbox hands on valid Unicode (the undecodable byte arrives as U+FFFD), and the cell's own traceback is shown
    assert out.endswith('ValueError: caf\ufffd\n') and 'Traceback (most recent call last)' in out

def test_json_with_a_lone_surrogate_reads_back():
    completed = in_pipe('python', '--json', code='import os\nos.fsdecode(b"caf\\xe9")')
    assert completed.returncode == 0 and completed.stderr == b''
    assert json.loads(completed.stdout)['value'] == "'caf\\udce9'"   # repr already escapes it
    completed = in_pipe('python', '--json', code='raise ValueError("\\ud800")')
    assert completed.returncode == 1 and completed.stderr == b''
    assert json.loads(completed.stdout)['error'].endswith('ValueError: \ufffd')   # valid Unicode from the sandbox: U+FFFD


TOOL_MODULE = '''
__all__ = ['echo', 'fail']
def echo(text:str # what to give back
        ) -> str:
    "Give `text` back."
    return text
def fail(text:str # what the error says
        ) -> str:
    "Raise an error that says `text`."
    raise ValueError(text)
'''

def test_call_escapes_a_tools_result_and_error_on_a_terminal(tmp_path):
    (tmp_path / 'hostile_tools.py').write_text(TOOL_MODULE)
    arguments = json.dumps({'text': RAW})
    status, out, err = on_terminal('call', str(tmp_path / 'hostile_tools.py'), 'echo', arguments, code='')
    assert (status, err) == (0, '') and out == SHOWN + '\n'
    status, out, _ = on_terminal('call', str(tmp_path / 'hostile_tools.py'), 'fail', arguments, code='', both=True)
    assert status == 1 and out == f'toolcall call: fail raised ValueError: {SHOWN}\n'
    completed = in_pipe('call', str(tmp_path / 'hostile_tools.py'), 'echo', arguments, code='')
    assert completed.returncode == 0 and completed.stdout.decode() == RAW + '\n'   # a pipe gets the bytes

def test_parse_output_on_a_terminal_has_no_c1_controls_and_is_still_json():
    text = '<tool_call>{"name": "echo", "arguments": {"text": "csi\\u009b31m bell\\u0007"}}</tool_call>'
    status, out, err = on_terminal('parse', '-', code=text)
    assert (status, err) == (0, '') and '\x9b' not in out and '\x07' not in out
    assert json.loads(out)['calls'][0]['arguments'] == {'text': 'csi\x9b31m bell\x07'}
