"""The parse package's layout: its public names stay importable from `toolcall_lib.parse`, and the format table is
declared once (every family by one `_register`, every reader priority and example layout taken once)."""
import ast, importlib, pathlib, re
import pytest
import toolcall_lib.parse as parse
from toolcall_lib.errors import ToolcallLibError
from toolcall_lib.parse import core, table

# Every public name of `toolcall_lib.parse.__all__` before it became a package, plus what other modules and tests import.
SEED_NAMES = ['REPAIR_LIMIT', 'REPAIR_BUDGET', 'REPAIR_ATTEMPTS', 'PYTHONIC_LIMIT', 'NOT_ALLOWED', 'ToolCall', 'RejectedCall',
              'ParseResult', 'StreamEvent', 'TextDelta', 'ReasoningDelta', 'CallStarted', 'ArgumentsDelta', 'CallFinished',
              'CallAbandoned', 'CallRejected', 'match_tool_name', 'loads_lenient', 'ToolCallStreamParser', 'parse_tool_calls']
PACKAGE = pathlib.Path(parse.__file__).parent
FORMAT_MODULES = ['tags', 'tokens', 'values']

@pytest.mark.parametrize('name', SEED_NAMES)
def test_public_names_import_from_the_package(name):
    assert name in parse.__all__
    module = importlib.import_module('toolcall_lib.parse')
    assert getattr(module, name) is not None
    exec(f'from toolcall_lib.parse import {name}', {})

def test_importing_the_package_registers_every_format():
    families = set(table._FAMILIES)
    assert {'hermes', 'mistral', 'deepseek', 'kimi_k2', 'harmony', 'gemma4', 'rwkv', 'llama3_json'} <= families
    calls = parse.parse_tool_calls('<|python_tag|>{"name": "a", "parameters": {}}<tool_call>{"name": "b", "arguments": {}}</tool_call>')
    assert [call.name for call in calls] == ['a', 'b']
    assert len(parse.format_examples()) >= 72   # every layout the fuzz tests render

def registered_names(module:str) -> list:
    "The family names a format module passes to `_register`, read from its source."
    tree = ast.parse((PACKAGE / f'{module}.py').read_text(encoding='utf-8'))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, 'id', None) == '_register' and node.args:
            first = node.args[0]
            names.append(first.value if isinstance(first, ast.Constant) else ast.unparse(first))
    return names

def test_each_family_is_registered_once():
    declared = [name for module in FORMAT_MODULES for name in registered_names(module)]
    literal = [name for name in declared if not name.startswith('f')]   # the k2_horizon think loop builds its names
    assert len(literal) == len(set(literal)), sorted(name for name in literal if literal.count(name) > 1)
    for name, family in table._FAMILIES.items():   # and each one in the table came from one of those modules
        assert family.name == name and family.module in {f'toolcall_lib.parse.{module}' for module in FORMAT_MODULES}, name
    openers = [opener for family in table._FAMILIES.values() for opener in family.openers]
    assert len(openers) == len(set(openers))

def test_declaring_again_raises():
    with pytest.raises(table.FormatTableError, match='declared already'): table._register('hermes', ('<my_call>',), core._hidden)
    with pytest.raises(table.FormatTableError, match='already open hermes'): table._register('mine', ('<tool_call>',), core._hidden)
    with pytest.raises(table.FormatTableError, match='priority 100 is taken'): table._add_reader('hermes', 100, lambda *body: None)
    with pytest.raises(table.FormatTableError, match='is taken by'): table._add_examples('hermes', {'hermes': lambda name, arguments: ''})
    assert issubclass(parse.FormatTableError, ToolcallLibError) and issubclass(parse.FormatTableError, ValueError)
    assert 'mine' not in table._FAMILIES

def test_reader_priorities_are_explicit_and_ordered():
    for family in table._FAMILIES.values():
        priorities = [entry[0] for entry in family.readers]
        assert priorities == sorted(set(priorities)), family.name
    assert [entry[0] for entry in table._FAMILIES['hermes'].readers] == [10, 20, 30, 100]   # TeleChat's pairs, name+JSON, GLM-4.7's words, the rest

def test_one_reader_for_the_key_value_pairs():
    "GLM's and IQuest's `<arg_key>`/`<arg_value>` markup gets one answer: a key without a value refuses the call."
    for opener, closer in (('<tool_call>', '</tool_call>'), ('<iquest_tool_call>', '</iquest_tool_call>')):
        result = parse.parse_tool_calls(f'{opener}f<arg_key>a</arg_key><arg_value>1</arg_value><arg_key>b</arg_key>{closer}')
        assert result.calls == () and [r.reason for r in result.rejected] == ["the arguments of 'f' are not <arg_key>/<arg_value> pairs"]
        repeated = parse.parse_tool_calls(f'{opener}f<arg_key>a</arg_key><arg_value>1</arg_value>'
                                          f'<arg_key>a</arg_key><arg_value>2</arg_value>{closer}')
        assert [call.arguments for call in repeated.calls] == [{'a': ['1', '2']}]

def test_exported_files_stay_readable():
    for path in PACKAGE.glob('*.py'):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 1050, path.name   # ~1,000: one sitting
