"""What a first import loads, asserted in a fresh interpreter: the common names import neither jsonschema, nor the mcp
SDK, nor a provider's SDK, until something that needs one is used. (benchmarks/bench_import.py prints the times.)"""
import json, subprocess, sys

import pytest

HEAVY = ('jsonschema', 'mcp', 'openai', 'anthropic', 'google.genai', 'litellm', 'llguidance', 'httpx')

def loaded_after(code:str) -> set:
    "The top-level packages of HEAVY (dotted ones by their full name) loaded once `code` ran in a fresh interpreter"
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, '-c', probe], capture_output=True, text=True, check=True, cwd='/')
    modules = set(json.loads(out.stdout.splitlines()[-1]))
    return {name for name in HEAVY if name in modules}

@pytest.mark.parametrize('names', ['', 'run_tools, Chat', 'get_schema', 'call_func', 'parse_tool_calls',
                                   'run_tools, Chat, get_schema, call_func, parse_tool_calls'])
def test_importing_common_names_loads_no_heavy_package(names):
    code = f'from toolcall_lib import {names}' if names else 'import toolcall_lib'
    assert loaded_after(code) == set()

def test_the_package_alone_loads_not_even_pydantic():
    probe = "import sys, toolcall_lib; print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'asyncio', 'fastcore')))"
    out = subprocess.run([sys.executable, '-c', probe], capture_output=True, text=True, check=True, cwd='/')
    assert out.stdout.strip() == '[]'

def test_using_them_still_loads_no_heavy_package():
    code = '''
from toolcall_lib import Chat, ReplayClient, call_func, get_schema, parse_tool_calls, run_tools, tool_schema
def add(a:int, # first
        b:int=0, # second
       ) -> int: # the sum
    "Add."
    return a + b
get_schema(add); tool_schema(add, 'openai'); call_func(add, {'a': 1})
text = '<tool_call>{"name": "add", "arguments": {"a": 1, "b": 2}}</tool_call>'
assert run_tools(parse_tool_calls(text), [add])[0]['content'] == '3'
reply = {'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 't1', 'name': 'add', 'input': {'a': 1}}]}
answer = {'role': 'assistant', 'content': [{'type': 'text', 'text': 'one'}]}
assert Chat(ReplayClient([reply, answer]), [add], provider='anthropic')('add') == 'one'
'''
    assert loaded_after(code) == set()

def test_jsonschema_is_imported_when_a_tool_is_built_from_a_schema():
    code = '''
from toolcall_lib import mk_tool
tool = mk_tool(lambda name, **arguments: arguments, {'name': 'add', 'inputSchema': {'type': 'object', 'properties': {'a': {'type': 'integer'}}}})
assert tool(a=1) == {'a': 1}
'''
    assert loaded_after(code) == {'jsonschema'}
