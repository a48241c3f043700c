"""Realistic model outputs, one or more per format, parsed one-shot and streamed in several chunkings.

Each `tests/corpus/parse/<case>.txt` is a model output as it arrives; `expected.json` gives, per case, the calls
(name, arguments) it must yield, the allow-list/schemas to use (optional) and the visible text left (optional)."""
import json
from pathlib import Path
import pytest
from toolcall_lib.parse import parse_tool_calls, ToolCallStreamParser, TextDelta, CallFinished, ArgumentsDelta, loads_lenient

CORPUS = Path(__file__).parent / 'corpus' / 'parse'
EXPECTED = json.loads((CORPUS / 'expected.json').read_text(encoding='utf-8'))
MARKUP = ('<tool_call', '</tool_call', '<|', '<｜', '[TOOL_CALLS]', '<invoke', '<function_call', '<minimax:', '<arg_key',
          '<parameter', '</think>', '<think>', 'functools[', '<seed:', '<steptml:', '<function', '</function', '>>>', 'Action:',
          'DSML', '<tool', '</tool', '<argument', 'to=functions.', '```', 'GCML', '<ifm|', '</ifm|', ']<]minimax[>[', '<atem:', '<iquest',
          '<param', 'to=', '<tool_call|>', '<|"|>')

def read(case): return (CORPUS / f'{case}.txt').read_text(encoding='utf-8')

@pytest.mark.parametrize('case', sorted(EXPECTED))
def test_one_shot(case):
    expected, text = EXPECTED[case], read(case)
    result = parse_tool_calls(text, expected.get('tools'))
    assert [[call.name, call.arguments] for call in result.calls] == expected['calls']
    if 'text' in expected: assert result.text == expected['text']
    if expected['calls']:
        assert result.saw_tool_call_syntax and not result.rejected_by_policy
        assert not any(marker in result.text for marker in MARKUP), result.text
        for call in result.calls: assert 0 <= call.start < call.end <= len(text) and call.format
    json.dumps(result.to_dict())

@pytest.mark.parametrize('case', sorted(EXPECTED))
@pytest.mark.parametrize('size', [1, 3, 17, 256])
def test_streamed_like_one_shot(case, size):
    expected, text = EXPECTED[case], read(case)
    parser = ToolCallStreamParser(expected.get('tools'))
    events = []
    for start in range(0, len(text), size): events += parser.feed(text[start:start + size])
    events += parser.close()
    one_shot = parse_tool_calls(text, expected.get('tools'))
    assert parser.result == one_shot
    assert ''.join(event.text for event in events if isinstance(event, TextDelta)) == one_shot.text
    assert tuple(event.call for event in events if isinstance(event, CallFinished)) == one_shot.calls
    for index, call in enumerate(one_shot.calls):   # the argument pieces join into the arguments' JSON text
        joined = ''.join(event.delta for event in events if isinstance(event, ArgumentsDelta) and event.index == index)
        assert loads_lenient(joined) == call.arguments, (joined, call)

def test_allow_list_refuses_calls_in_every_format():
    for case, expected in EXPECTED.items():
        if not expected['calls']: continue
        result = parse_tool_calls(read(case), ['some_other_tool'])
        assert result.calls == () and result.rejected_by_policy, case
        assert list(result.rejected_tool_names) == list(dict.fromkeys(name for name, _ in expected['calls'])), case

def test_calls_positions_point_at_their_markup():
    text = read('hermes_qwen25')
    first, second = parse_tool_calls(text).calls
    assert text[first.start:first.end].startswith('<tool_call>') and text[first.start:first.end].endswith('</tool_call>')
    assert text[second.start:second.end].startswith('<tool_call>') and second.end == len(text)

@pytest.mark.parametrize('case', sorted(case for case in EXPECTED if EXPECTED[case]['calls']))
def test_each_span_holds_its_call(case):
    text = read(case)
    calls = parse_tool_calls(text, EXPECTED[case].get('tools')).calls
    for call in calls: assert call.name in text[call.start:call.end], (call, text[call.start:call.end])
    assert [call.start for call in calls] == sorted(call.start for call in calls)

def test_spans_of_calls_sharing_a_block_are_exact():
    text = 'Two:\n<tool_call>\n  <function=a>\n<parameter=x>1</parameter>\n</function>\n<function=b>\n</function>\n</tool_call>'
    first, second = parse_tool_calls(text).calls
    assert text[first.start:first.end] == '<function=a>\n<parameter=x>1</parameter>\n</function>'
    assert text[second.start:second.end] == '<function=b>\n</function>'
