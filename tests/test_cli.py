"""The installed `toolcall` console script, run as a user runs it: exit statuses, one-line errors, JSON out."""
import json, subprocess, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOLS = str(ROOT/'examples'/'weather_tools.py')
REPLIES = ROOT/'examples'/'replies'
SCRIPT = Path(sys.executable).parent/'toolcall'

def toolcall(*args, stdin=None):
    return subprocess.run([str(SCRIPT), *args], input=stdin, capture_output=True, text=True, timeout=60, cwd=ROOT)

def test_console_script_is_installed():
    assert SCRIPT.exists(), f'{SCRIPT} missing: install the package (pip install -e .)'

@pytest.mark.parametrize('command', ['schema', 'parse', 'call', 'python', 'run'])
def test_every_subcommand_has_help(command):
    done = toolcall(command, '--help')
    assert done.returncode == 0 and 'usage: toolcall ' + command in done.stdout

@pytest.mark.parametrize('fmt,key', [('openai', 'function'), ('openai-responses', 'parameters'), ('anthropic', 'input_schema'),
                                     ('gemini', 'parametersJsonSchema'), ('gemini-openapi', 'parameters'), ('mcp', 'inputSchema')])
def test_schema_in_every_format(fmt, key):
    done = toolcall('schema', f'{TOOLS}:get_weather', '--format', fmt)
    assert done.returncode == 0, done.stderr
    assert key in json.loads(done.stdout)

def test_schema_strict_makes_everything_required():
    done = toolcall('schema', f'{TOOLS}:get_weather', '--format', 'openai', '--strict')
    function = json.loads(done.stdout)['function']
    assert function['strict'] is True
    assert sorted(function['parameters']['required']) == ['city', 'days', 'units']
    assert function['parameters']['additionalProperties'] is False

@pytest.mark.parametrize('args,words', [
    (['schema', 'no_such_module_xyz:f'], ['no_such_module_xyz']),
    (['schema', f'{TOOLS}:missing'], ['missing']),
    (['schema', 'not-a-target'], ['MODULE_OR_FILE:NAME']),
    (['call', TOOLS, 'get_weather', '{"city": 5'], ['JSON']),
    (['call', TOOLS, 'get_weather', '{"city": "Paris", "days": "many"}'], ['days']),
    (['run', str(REPLIES/'nope.json'), TOOLS], ['no such file']),
])
def test_errors_are_one_line_and_status_2(args, words):
    done = toolcall(*args)
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == ''
    assert done.stderr.count('\n') == 1, done.stderr
    for word in words: assert word in done.stderr, done.stderr

def test_unsupported_parameter_type_is_status_2(tmp_path):
    module = tmp_path/'odd_tools.py'
    module.write_text('import threading\ndef lock_it(lock: threading.Lock):\n    "Hold a lock"\n')
    done = toolcall('schema', f'{module}:lock_it')
    assert done.returncode == 2 and done.stderr.count('\n') == 1
    assert 'lock_it' in done.stderr and 'lock' in done.stderr

@pytest.mark.parametrize('reply,ids', [('openai_chat.json', ['call_weather_paris', 'call_time_tokyo']),
                                       ('openai_chat_stream.jsonl', ['call_weather_paris', 'call_time_tokyo']),
                                       ('openai_responses.json', ['call_weather_lima'])])
def test_run_answers_recorded_replies(reply, ids):
    done = toolcall('run', str(REPLIES/reply), TOOLS)
    assert done.returncode == 0, done.stderr
    messages = json.loads(done.stdout)
    assert [m.get('tool_call_id') or m.get('call_id') for m in messages] == ids

def test_run_reads_stdin_text():
    done = toolcall('run', '-', TOOLS, stdin='[get_weather(city="Paris"), get_time(tz="UTC")]')
    assert done.returncode == 0, done.stderr
    messages = json.loads(done.stdout)
    assert [m['name'] for m in messages] == ['get_weather', 'get_time']
    assert json.loads(messages[0]['content'])['conditions'] == 'light rain'

def test_parse_reads_stdin():
    done = toolcall('parse', '--tools', 'get_weather', stdin='[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Oslo"}}]')
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)['calls'][0]['arguments'] == {'city': 'Oslo'}

def test_python_keeps_no_state_between_invocations_but_runs_code():
    done = toolcall('python', '-', stdin='x = 21\nx * 2')
    assert (done.returncode, done.stdout.strip()) == (0, '42')
    failed = toolcall('python', '-', stdin='x')
    assert failed.returncode == 1 and 'NameError' in failed.stdout

@pytest.mark.parametrize('args', [[], ['schema'], ['parse', '--tools', 'a', '--tools-from', 'b'], ['python', '--timeout', 'soon'], ['nope']])
def test_usage_errors_are_one_line_and_status_2(args):
    done = toolcall(*args)
    assert done.returncode == 2 and done.stdout == ''
    assert done.stderr.count('\n') == 1 and '--help' in done.stderr, done.stderr

# --- a module target offers a model only what `toolcall schema` can describe -------------------------------
def openai_reply(name, arguments):
    return json.dumps({'role': 'assistant', 'content': None, 'tool_calls': [
        {'id': 'c1', 'type': 'function', 'function': {'name': name, 'arguments': json.dumps(arguments)}}]})

@pytest.mark.parametrize('module,name,arguments', [('os', 'system', {'command': 'touch PWNED'}),
                                                   ('os', 'popen', {'cmd': 'touch PWNED'}),
                                                   ('subprocess', 'check_call', {'args': ['touch', 'PWNED']})])
def test_run_never_hands_a_model_os_system(tmp_path, module, name, arguments):
    reply = tmp_path/'reply.json'
    reply.write_text(openai_reply(name, arguments))
    done = subprocess.run([str(SCRIPT), 'run', str(reply), module], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert not (tmp_path/'PWNED').exists()
    assert done.returncode == 2 and done.stdout == '' and done.stderr.count('\n') == 1, done
    assert f'{module} offers no tools' in done.stderr

def test_call_refuses_a_function_without_a_schema(tmp_path):
    done = subprocess.run([str(SCRIPT), 'call', 'os', 'system', '{"command": "touch PWNED"}'], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert not (tmp_path/'PWNED').exists()
    assert done.returncode == 2 and "does not offer 'system'" in done.stderr and done.stderr.count('\n') == 1, done.stderr

def test_a_module_mixing_tools_and_other_functions_offers_only_the_tools(tmp_path):
    module = tmp_path/'mixed.py'
    module.write_text('import os\nfrom os import system\n'
                      'def add(a:int, # first\n        b:int, # second\n       ) -> int:\n    "Add."\n    return a + b\n'
                      'def untyped(command): return os.system(command)\n'
                      'def anything(*args, **kwargs): return os.system(*args)\n')
    reply = tmp_path/'reply.json'
    for name, arguments in [('untyped', {'command': 'touch PWNED'}), ('anything', {'args': 'touch PWNED'}), ('system', {'command': 'touch PWNED'})]:
        reply.write_text(openai_reply(name, arguments))
        done = subprocess.run([str(SCRIPT), 'run', str(reply), str(module)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert done.returncode == 1 and 'every call failed' in done.stderr, done.stderr   # the only call failed
        assert 'add' in json.loads(done.stdout)[0]['content'] and name in json.loads(done.stdout)[0]['content']
    assert not (tmp_path/'PWNED').exists()
    reply.write_text(openai_reply('add', {'a': 2, 'b': '3'}))
    done = subprocess.run([str(SCRIPT), 'run', str(reply), str(module)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert json.loads(done.stdout)[0]['content'] == '5'

# --- input that cannot be read is a one-line error, never an empty answer ---------------------------------
def run_bytes(*args, stdin:bytes):
    return subprocess.run([str(SCRIPT), *args], input=stdin, capture_output=True, timeout=60, cwd=ROOT)

def assert_one_line_error(done, *words):
    stderr = done.stderr if isinstance(done.stderr, str) else done.stderr.decode()
    assert done.returncode == 2, (done.returncode, done.stdout, stderr)
    assert not done.stdout and stderr.count('\n') == 1, stderr
    for word in words: assert word in stderr, stderr

def test_run_rejects_a_truncated_reply_file(tmp_path):
    whole = (REPLIES/'openai_chat.json').read_text()
    for cut in (len(whole) // 3, len(whole) * 2 // 3, len(whole) - 3):
        (tmp_path/'cut.json').write_text(whole[:cut])
        assert_one_line_error(toolcall('run', str(tmp_path/'cut.json'), TOOLS), 'not valid JSON', 'cut off')

@pytest.mark.parametrize('text,words', [
    ('The weather is fine, no tools needed.', ['neither provider JSON nor model text with tool calls', '--provider text']),
    ('{"hello": "world"}', ['JSON but not a model reply']),
    ('{"choices": [1, 2,, 3]}', ['not valid JSON', 'line 1, column']),
    ('   \n', ['is empty']),
    ('[' * 100_000 + ']' * 100_000, ['nested too deeply']),
    ('{"a": ' * 50_000 + '1' + '}' * 50_000, ['nested too deeply']),
])
def test_run_says_why_it_cannot_read_a_reply(text, words):
    assert_one_line_error(toolcall('run', '-', TOOLS, stdin=text), *words)

def test_plain_text_answer_is_empty_only_when_asked_for():
    done = toolcall('run', '-', TOOLS, '--provider', 'text', stdin='The weather is fine.')
    assert (done.returncode, json.loads(done.stdout)) == (0, [])

@pytest.mark.parametrize('reply,provider,found', [('anthropic.json', 'openai', 'anthropic'), ('gemini.json', 'openai', 'gemini'),
                                                  ('openai_responses.json', 'anthropic', 'openai-responses'),
                                                  ('openai_chat.json', 'gemini', 'openai'), ('hermes.txt', 'anthropic', 'raw text')])
def test_run_names_both_formats_when_the_reply_is_not_the_provider_given(reply, provider, found):
    assert_one_line_error(toolcall('run', str(REPLIES/reply), TOOLS, '--provider', provider), provider, found)

@pytest.mark.parametrize('command', [['run', '-', TOOLS], ['parse'], ['python']])
def test_invalid_utf8_on_stdin_is_one_line(command):
    assert_one_line_error(run_bytes(*command, stdin=b'<tool_call>{"name": "get_weather", "arguments": {"city": "Par\xff\xfeis"}}</tool_call>'),
                          'not UTF-8', '0xff')

def test_a_closed_pipe_downstream_is_quiet():
    big = '\n'.join(f'<tool_call>{{"name": "get_weather", "arguments": {{"city": "City {n}"}}}}</tool_call>' for n in range(5000))
    process = subprocess.Popen([str(SCRIPT), 'parse', '-'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    process.stdin.write(big.encode()); process.stdin.close()
    assert process.stdout.read(10) == b'{\n  "calls'
    process.stdout.close()   # `| head -c 10`
    assert process.wait(timeout=60) == 141
    assert process.stderr.read() == b''

def test_timeout_ends_the_whole_command_on_time(tmp_path):
    "A tool that never returns overruns --timeout 1: the command still ends (it does not join the tool's thread)."
    module = tmp_path/'slow_tools.py'
    module.write_text('import threading\ndef hang(label:str, # Anything\n       ) -> str:\n    "Never answer."\n'
                      '    threading.Event().wait()\n    return label\n'
                      'def quick() -> str:\n    "Answer at once."\n    return "done"\n')
    reply = json.dumps({'role': 'assistant', 'content': None, 'tool_calls': [
        {'id': 'slow', 'type': 'function', 'function': {'name': 'hang', 'arguments': '{"label": "x"}'}},
        {'id': 'fast', 'type': 'function', 'function': {'name': 'quick', 'arguments': '{}'}}]})
    # the tool never ends, so a command that waited for it would hit subprocess's timeout (TimeoutExpired), not return
    done = subprocess.run([str(SCRIPT), 'run', '-', str(module), '--timeout', '1'], input=reply, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    messages = json.loads(done.stdout)
    assert 'did not finish within 1 s' in messages[0]['content'] and messages[1]['content'] == 'done'

def test_deeply_nested_arguments_are_the_models_error_not_a_crash():
    reply = openai_reply('get_weather', {}).replace('"{}"', json.dumps('[' * 50_000 + ']' * 50_000))
    done = toolcall('run', '-', TOOLS, stdin=reply)
    assert done.returncode == 1 and 'every call failed' in done.stderr, done.stderr   # the only call failed, readably
    assert 'must be a JSON object' in json.loads(done.stdout)[0]['content']

def test_run_reads_a_recorded_stream_as_json_list_or_lines():
    chunk = lambda delta, finish=None: {'object': 'chat.completion.chunk', 'choices': [{'index': 0, 'delta': delta, 'finish_reason': finish}]}
    events = [chunk({'role': 'assistant'}),
              chunk({'tool_calls': [{'index': 0, 'id': 'call_s', 'type': 'function', 'function': {'name': 'get_weather', 'arguments': '{"ci'}}]}),
              chunk({'tool_calls': [{'index': 0, 'function': {'arguments': 'ty": "Lima"}'}}]}), chunk({}, 'tool_calls')]
    for text in (json.dumps(events), '\n'.join(map(json.dumps, events))):
        done = toolcall('run', '-', TOOLS, stdin=text)
        assert done.returncode == 0, done.stderr
        messages = json.loads(done.stdout)
        assert messages[0]['tool_call_id'] == 'call_s' and json.loads(messages[0]['content'])['conditions'] == 'overcast'
    assert_one_line_error(toolcall('run', '-', TOOLS, stdin=json.dumps(events[1])), 'stream event', 'collect_stream')
    assert_one_line_error(toolcall('run', '-', TOOLS, '--provider', 'anthropic', stdin=json.dumps(events)), 'anthropic', 'openai')

def test_call_of_a_function_left_out_of_all_says_why(tmp_path):
    (tmp_path/'tools_module.py').write_text('__all__ = ["offered"]\n'
        'def offered(x:int, # a number\n) -> int: # twice it\n    "Double."\n    return 2 * x\n'
        'def hidden(x:int, # a number\n) -> int: # it\n    "Not offered."\n    return x\n')
    done = subprocess.run([str(SCRIPT), 'call', str(tmp_path/'tools_module.py'), 'hidden', '{"x": 1}'], capture_output=True,
                          text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.strip().endswith("does not offer 'hidden' as a tool: it is not in the module's __all__"), done.stderr
