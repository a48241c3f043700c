"""The parse package's layout: its public names stay importable from `toolcall_lib.parse`, and the format table is
declared once (`FORMATS`, one tuple of frozen `Format` records: every family, opener and example layout once)."""
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
NO_EXAMPLE_BECAUSE = {   # families that read calls with no example in the table, and why
    'tool_use': 'its `<function name>` elements are the functionary family\'s `minicpm5` layout, in a `<tool_use>` wrapper',
    'laguna': 'a `<user>` element is a call only for a tool the allow-list declares: an example without tools reads none',
}

@pytest.mark.parametrize('name', SEED_NAMES)
def test_public_names_import_from_the_package(name):
    assert name in parse.__all__
    module = importlib.import_module('toolcall_lib.parse')
    assert getattr(module, name) is not None
    exec(f'from toolcall_lib.parse import {name}', {})

def test_importing_the_package_declares_every_format():
    families = {family.name for family in parse.FORMATS}
    assert {'hermes', 'mistral', 'deepseek', 'kimi_k2', 'harmony', 'gemma4', 'rwkv', 'llama3_json'} <= families
    calls = parse.parse_tool_calls('<|python_tag|>{"name": "a", "parameters": {}}<tool_call>{"name": "b", "arguments": {}}</tool_call>')
    assert [call.name for call in calls] == ['a', 'b']
    assert len(parse.format_examples()) >= 72   # every layout the fuzz tests render

def declared_names(module:str) -> list:
    "The family names of the `Format` records a format module declares, read from its source."
    tree = ast.parse((PACKAGE / f'{module}.py').read_text(encoding='utf-8'))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, 'id', None) == 'Format' and node.args:
            first = node.args[0]
            names.append(first.value if isinstance(first, ast.Constant) else ast.unparse(first))
    return names

def test_each_family_is_declared_once():
    declared = [name for module in FORMAT_MODULES for name in declared_names(module)]
    literal = [name for name in declared if not name.startswith('f')]   # the k2_horizon think records build their names
    assert len(literal) == len(set(literal)), sorted(name for name in literal if literal.count(name) > 1)
    modules = {f'toolcall_lib.parse.{module}': importlib.import_module(f'toolcall_lib.parse.{module}') for module in FORMAT_MODULES}
    # the table is the loose layouts, then each format module's records, in order: nothing else gets in
    assert parse.FORMATS == (table.LOOSE,) + sum((module.FORMATS for module in modules.values()), ())
    names = [family.name for family in parse.FORMATS]
    assert len(names) == len(set(names))
    openers = [opener for family in parse.FORMATS for opener in family.openers]
    assert len(openers) == len(set(openers))

def test_declaring_again_raises():
    hermes = table._markers().by_name['hermes']
    with pytest.raises(table.FormatTableError, match='declared twice'):
        table._Markers(parse.FORMATS + (table.Format('hermes', ('<my_call>',), core._hidden),))
    with pytest.raises(table.FormatTableError, match='already open hermes'):
        table._Markers(parse.FORMATS + (table.Format('mine', ('<tool_call>',), core._hidden),))
    with pytest.raises(table.FormatTableError, match='is taken by'):
        table._Markers(parse.FORMATS + (table.Format('mine', ('<my_call>',), core._hidden, examples={'hermes': lambda name, arguments: ''}),))
    assert issubclass(parse.FormatTableError, ToolcallLibError) and issubclass(parse.FormatTableError, ValueError)
    assert 'mine' not in table._markers().by_name and table._markers().by_name['hermes'] is hermes

def test_reader_order_is_the_records_order():
    "No priorities: a family's readers are tried in the order its record lists them."
    hermes = table._markers().by_name['hermes']
    assert [reader.__qualname__.split('.')[0] for reader in hermes.readers] == [
        '_param_pairs_reader', '_name_then_json_reader', '_word_pairs_reader', '_markup_reader']   # TeleChat's pairs, name+JSON, GLM-4.7's words, the rest

def test_the_table_is_plain_data():
    "Declared, then derived: frozen records in one tuple, no registration function, no frame inspection."
    import dataclasses
    assert isinstance(parse.FORMATS, tuple) and all(type(family) is table.Format for family in parse.FORMATS)
    with pytest.raises(dataclasses.FrozenInstanceError): parse.FORMATS[1].name = 'x'
    for family in parse.FORMATS:
        assert all(type(part) is tuple for part in (family.openers, family.readers, family.examples, family.fragments)), family.name
    for path in PACKAGE.glob('*.py'):
        source = path.read_text(encoding='utf-8')
        assert '_getframe' not in source, path.name
        assert not re.search(r'\b(_register|_add_reader|_add_examples|_forget|_SHORTCUTS|_OPENER_RUNS|_FAMILIES|_EXAMPLES)\b', source), path.name
    for module in FORMAT_MODULES + ['core', 'table', 'grammar']:   # and nothing in the table is mutable module state
        assert not [name for name, value in vars(importlib.import_module(f'toolcall_lib.parse.{module}')).items()
                    if name.isupper() and type(value) in (list, dict, set) and 'FORMAT' in name], module

def test_every_format_has_an_example_a_grammar_or_a_reason_and_a_stream_test():
    "Each family that reads calls writes an example; each example gets a grammar or a stated reason, and streams as it parses."
    from toolcall_lib.parse import ToolCallStreamParser, format_table
    rows = {row.layout: row for row in format_table()}
    assert list(rows) == list(parse.format_examples())
    for family in parse.FORMATS:
        for layout, render in family.examples:
            row = rows[layout]
            assert row.family == family.name and (row.grammars or row.no_grammar), layout
            text = render('get_weather', {'city': 'Paris'})
            one_shot = parse.parse_tool_calls(text)
            assert [call.name for call in one_shot.calls] == ['get_weather'], layout
            stream = ToolCallStreamParser()
            for start in range(0, len(text), 7): stream.feed(text[start:start + 7])
            stream.close()
            assert stream.result == one_shot, layout
    # a family without examples of its own opens no call (reasoning, a stray token), or another family's example
    # writes its opener inside (`<invoke>` in `<function_calls>`), or the reason is stated here
    texts = [render('get_weather', {'city': 'Paris'}) for render in parse.format_examples().values()]
    for family in parse.FORMATS:
        if family.examples or getattr(family.open, 'hidden', False): continue
        assert (any(opener in text for opener in family.openers for text in texts)
                or family.name in NO_EXAMPLE_BECAUSE), family.name
    assert set(NO_EXAMPLE_BECAUSE) <= {family.name for family in parse.FORMATS if not family.examples}

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
