"""The traps of a new user's first hour with the library, each pinned: options passed by position where a name was
meant, calls that fail for want of a namespace, a reply and its tools swapped, and the one name of a tool call's limit."""
import asyncio, warnings

import pytest

from toolcall_lib import Chat, ReplayClient, call_func, call_func_async, call_funcs_async, get_schema, parse_tool_calls, run_tools, tool_schema
from toolcall_lib.schema import SCHEMA_FORMATS, SchemaError

def add(a:int, # the first number
        b:int=0, # the second number
       ) -> int: # their sum
    "Add two numbers."
    return a + b

HERMES = '<tool_call>{"name": "add", "arguments": {"a": 2, "b": "3"}}</tool_call>'

@pytest.mark.parametrize('provider', SCHEMA_FORMATS)
def test_a_provider_name_given_to_get_schema_names_tool_schema(provider):
    with pytest.raises(SchemaError, match=rf"tool_schema\(f, '{provider}'\)"): get_schema(add, pname=provider)
    with pytest.warns(DeprecationWarning), pytest.raises(SchemaError, match='tool_schema'): get_schema(add, provider)
    assert tool_schema(add, provider)   # the function the message names does the job

def test_get_schema_options_are_keyword_only_with_the_positional_pname_deprecated():
    assert list(get_schema(add, pname='parameters')) == ['name', 'description', 'parameters']
    with pytest.warns(DeprecationWarning, match='pname='): assert list(get_schema(add, 'parameters'))[-1] == 'parameters'
    with pytest.raises(TypeError, match='by name'): get_schema(add, 'parameters', True)

def test_call_func_takes_the_function_itself():
    assert call_func(add, {'a': '2', 'b': 3}) == 5
    assert call_func('add', {'a': 2}, [add]) == 2                                  # the seed's form
    assert call_func(add, {'b': 1}, raise_on_err=False).startswith("Tool 'add' is missing required argument 'a'")
    assert asyncio.run(call_func_async(add, {'a': 1, 'b': 1})) == 2
    with pytest.raises(TypeError, match='needs the namespace'): call_func('add', {'a': 1})
    with pytest.raises(TypeError, match=r'call_func\(f, arguments\)'): call_func(add, {'a': 1}, [add])

def test_run_tools_takes_parsed_calls_as_well_as_text():
    from_text = run_tools(HERMES, [add])
    assert [m['content'] for m in from_text] == ['5']
    assert run_tools(parse_tool_calls(HERMES), [add]) == from_text
    assert run_tools(list(parse_tool_calls(HERMES)), [add]) == from_text

def test_swapped_run_tools_arguments_say_so():
    for tools in ([add], add, (add,)):
        with pytest.raises(TypeError, match=r'run_tools\(reply, tools\)'): run_tools(tools, HERMES)

def test_options_of_run_tools_and_chat_are_keyword_only():
    with pytest.raises(TypeError): run_tools(HERMES, [add], 'text')
    with pytest.raises(TypeError): Chat(ReplayClient([]), [add], 'anthropic')

def slow(seconds:float, # how long to sleep
        ) -> str: # 'done'
    "Sleep."
    import time; time.sleep(seconds); return 'done'

SLOW = '<tool_call>{"name": "slow", "arguments": {"seconds": 0.5}}</tool_call>'

def test_tool_timeout_is_the_name_of_a_tool_calls_limit():
    [message] = run_tools(SLOW, [slow], tool_timeout=0.05)
    assert 'did not finish within 0.05 s' in message['content']
    [result] = asyncio.run(call_funcs_async([('slow', {'seconds': 0.5})], [slow], tool_timeout=0.05))
    assert 'did not finish within 0.05 s' in result.error
    assert Chat(ReplayClient([]), [slow], tool_timeout=3).tool_timeout == 3

def test_the_old_name_timeout_still_works_with_a_warning():
    with pytest.warns(DeprecationWarning, match='pass tool_timeout='): [message] = run_tools(SLOW, [slow], timeout=0.05)
    assert 'did not finish within 0.05 s' in message['content']
    with pytest.warns(DeprecationWarning): chat = Chat(ReplayClient([]), [slow], timeout=2)
    assert chat.tool_timeout == 2
    with pytest.warns(DeprecationWarning): [result] = asyncio.run(call_funcs_async([('slow', {'seconds': 0.5})], [slow], timeout=0.05))
    assert not result.ok
    with pytest.raises(TypeError, match='disagree'), warnings.catch_warnings():
        warnings.simplefilter('ignore')
        run_tools(SLOW, [slow], tool_timeout=1, timeout=2)
