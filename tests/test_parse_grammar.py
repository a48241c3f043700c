"`tool_call_grammar` in the real llguidance engine, over a byte-level tokenizer: every layout's own example accepted, bad calls refused."
import json
import pytest
import llguidance
from llguidance import LLMatcher, LLTokenizer, StructTag, TokenizerWrapper
from toolcall_lib.parse import format_examples, grammar_request, parse_tool_calls, tool_call_grammar

class ByteTokenizer:
    "One token per byte, and an end-of-text token: every text has exactly one tokenization."
    eos_token_id, bos_token_id = 256, None
    tokens = [bytes([byte]) for byte in range(256)] + [b'<|end|>']
    special_token_ids = [256]
    def __call__(self, data): return list(data)

TOKENIZER = LLTokenizer(TokenizerWrapper(ByteTokenizer()))
TOOLS = [
    {'type': 'function', 'function': {'name': 'get_weather', 'parameters': {
        'type': 'object', 'properties': {'city': {'type': 'string'}, 'days': {'type': 'integer'}},
        'required': ['city']}}},
    {'type': 'function', 'function': {'name': 'get_time', 'parameters': {
        'type': 'object', 'properties': {'zone': {'type': 'string', 'enum': ['UTC', 'CET']}}, 'required': ['zone']}}},
]

def _builds(layout, syntax):
    try: tool_call_grammar(TOOLS, layout, syntax=syntax); return True
    except ValueError: return False
LARK = [layout for layout in format_examples() if _builds(layout, 'lark')]
GBNF = [layout for layout in format_examples() if _builds(layout, 'gbnf')]
LAYOUTS = [layout for layout in format_examples() if _builds(layout, 'structural_tag')]   # one JSON object of arguments
TAGGED = [layout for layout in LARK if layout not in LAYOUTS]   # tagged text values: Lark and GBNF

def matcher(grammar, syntax):
    if syntax == 'structural_tag':
        tags = [StructTag(trigger=grammar['triggers'][0], begin=structure['begin'], grammar=structure['schema'],
                          end=structure['end']) for structure in grammar['structures']]
        spec = llguidance.grammar_from('lark', StructTag.to_grammar(tags, assume_special=False))
    else: spec = llguidance.grammar_from(syntax, grammar)
    engine = LLMatcher(TOKENIZER, spec)
    assert not engine.is_error(), engine.get_error()
    return engine

def accepts(grammar, syntax, text):
    "Whether the engine lets the whole of `text` be written, and lets it end there."
    engine = matcher(grammar, syntax)
    return engine.consume_tokens(list(text.encode())) and not engine.is_error() and engine.is_accepting()

def test_most_layouts_have_a_grammar():
    assert len(LAYOUTS) >= 30 and len(TAGGED) >= 25

GOOD = {'get_weather': {'city': 'Paris', 'days': 2}, 'get_time': {'zone': 'UTC'}}
BAD = {   # what a call may not say
    'an unoffered name': ('delete_everything', {'city': 'Paris'}),
    'a wrong type': ('get_weather', {'city': 'Paris', 'days': 'two'}),
    'a missing required argument': ('get_weather', {'days': 2}),
    'a value outside the enum': ('get_time', {'zone': 'PST'}),
}

@pytest.mark.parametrize('layout, syntax', [(layout, 'lark') for layout in LARK] + [(layout, 'gbnf') for layout in GBNF])
def test_required_accepts_examples_and_refuses_bad_calls(layout, syntax):
    render, grammar = format_examples()[layout], tool_call_grammar(TOOLS, layout, syntax=syntax, mode='required')
    for name, arguments in GOOD.items():
        text = render(name, arguments)
        assert accepts(grammar, syntax, text), text
        assert [call.name for call in parse_tool_calls(text, TOOLS).calls] == [name]   # and the parser reads it back
    assert accepts(grammar, syntax, render('get_weather', GOOD['get_weather']) + '\n' + render('get_time', GOOD['get_time']))
    for why, (name, arguments) in BAD.items():
        assert not accepts(grammar, syntax, render(name, arguments)), why
    whole = render('get_weather', GOOD['get_weather'])
    assert not accepts(grammar, syntax, whole[:len(whole) - 3]), 'a cut-off call'
    assert not accepts(grammar, syntax, 'Just prose.'), 'required: a call must come'

@pytest.mark.parametrize('layout', LARK)
def test_auto_lets_prose_come_first_and_constrains_the_call(layout):
    render, grammar = format_examples()[layout], tool_call_grammar(TOOLS, layout)
    assert accepts(grammar, 'lark', 'No tool is needed: the answer is 4.')
    text = render('get_weather', GOOD['get_weather'])
    assert accepts(grammar, 'lark', text)
    assert accepts(grammar, 'lark', 'Let me check. ' + text)
    for why, (name, arguments) in BAD.items():
        assert not accepts(grammar, 'lark', 'Let me check. ' + render(name, arguments)), why

@pytest.mark.parametrize('layout', LAYOUTS)
def test_structural_tag(layout):
    render, tag = format_examples()[layout], tool_call_grammar(TOOLS, layout, syntax='structural_tag')
    json.dumps(tag)   # plain JSON, as vLLM and SGLang take it
    assert all(structure['begin'].startswith(tag['triggers'][0]) for structure in tag['structures'])
    assert accepts(tag, 'structural_tag', 'Let me check. ' + render('get_weather', GOOD['get_weather']))
    assert not accepts(tag, 'structural_tag', 'Let me check. ' + render(*BAD['a wrong type']))

def test_refusals_name_why():
    with pytest.raises(ValueError, match='not write the arguments as one JSON object'): tool_call_grammar(TOOLS, 'pythonic')
    with pytest.raises(ValueError, match="syntax='lark' or 'gbnf'"): tool_call_grammar(TOOLS, 'qwen3_coder', syntax='structural_tag')
    with pytest.raises(ValueError, match='cannot require'):
        tool_call_grammar(TOOLS, 'hermes', syntax='structural_tag', mode='required')
    with pytest.raises(ValueError, match='syntax must be'): tool_call_grammar(TOOLS, 'hermes', syntax='regex')
    with pytest.raises(ValueError, match='no layout'): tool_call_grammar(TOOLS, 'nope')

def test_grammar_request_fields():
    llamacpp = grammar_request(TOOLS, 'hermes', 'llamacpp')
    assert llamacpp['grammar_lazy'] and llamacpp['grammar_triggers'] == [{'type': 'word', 'value': '<tool_call>'}]
    assert accepts(llamacpp['grammar'], 'gbnf', format_examples()['hermes']('get_time', {'zone': 'CET'}))
    assert 'grammar_lazy' not in grammar_request(TOOLS, 'hermes', 'llamacpp', mode='required')
    vllm = grammar_request(TOOLS, 'hermes', 'vllm', mode='required')['structured_outputs']['grammar']
    assert accepts(vllm, 'lark', format_examples()['hermes']('get_time', {'zone': 'CET'}))
    assert grammar_request(TOOLS, 'hermes', 'sglang')['response_format']['type'] == 'structural_tag'
    with pytest.raises(ValueError, match='server must be'): grammar_request(TOOLS, 'hermes', 'tgi')

def test_format_table_is_read_only_and_complete():
    from dataclasses import FrozenInstanceError
    from toolcall_lib.parse import format_table
    table = format_table()
    assert isinstance(table, tuple) and [row.layout for row in table] == list(format_examples())
    for row in table:
        assert row.example and (row.grammars or row.no_grammar), row.layout   # a grammar, or the reason there is none
        assert [call.name for call in parse_tool_calls(row.example).calls] == ['get_weather'], row.layout
    with pytest.raises(FrozenInstanceError): table[0].layout = 'other'
