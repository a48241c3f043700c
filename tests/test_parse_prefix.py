"`prefix=`: the text the generation prompt ended with, which the output continues; one-shot and streamed agree."
import pytest
from toolcall_lib.parse import (ParseArgumentError, ToolCallStreamParser, parse_tool_calls, TextDelta, CallFinished,
                                CallStarted)

CASES = [   # (prefix, output, [(name, arguments)], text)
    ('>>>', 'get_weather\n{"city": "Paris"}>>>get_time\n{"tz": "UTC"}',
     [('get_weather', {'city': 'Paris'}), ('get_time', {'tz': 'UTC'})], ''),
    ('>>>', 'get_weather\n{"city": "Paris"}', [('get_weather', {'city': 'Paris'})], ''),
    ('<tool_call>', '{"name": "f", "arguments": {"a": 1}}</tool_call> Done.', [('f', {'a': 1})], ' Done.'),
    ('<tool_call>\n', '{"name": "f", "arguments": {}}\n</tool_call>\n<tool_call>\n{"name": "g", "arguments": {"b": "x"}}\n</tool_call>',
     [('f', {}), ('g', {'b': 'x'})], '\n'),
    ('<think>', 'Hmm.</think>Plain answer.', [], 'Plain answer.'),
    ('>>>', 'Hello there, no call.', [], 'Hello there, no call.'),
    ('Sure: ', 'the answer is 4', [], 'the answer is 4'),
]

def streamed(prefix, text, size, tools=None):
    parser = ToolCallStreamParser(tools, prefix=prefix)
    events = []
    for start in range(0, len(text), size): events += parser.feed(text[start:start + size])
    return parser, events + parser.close()

@pytest.mark.parametrize('prefix, text, calls, shown', CASES)
def test_prefix_one_shot(prefix, text, calls, shown):
    result = parse_tool_calls(text, prefix=prefix)
    assert [(call.name, call.arguments) for call in result.calls] == calls
    assert result.text == shown
    for call in result.calls: assert 0 <= call.start < call.end <= len(text)

@pytest.mark.parametrize('size', [1, 2, 3, 5, 8, 64])
@pytest.mark.parametrize('prefix, text, calls, shown', CASES)
def test_prefix_stream_equals_one_shot(prefix, text, calls, shown, size):
    parser, events = streamed(prefix, text, size)
    assert parser.result == parse_tool_calls(text, prefix=prefix)
    assert ''.join(event.text for event in events if isinstance(event, TextDelta)) == shown
    assert [event.call.name for event in events if isinstance(event, CallFinished)] == [name for name, _ in calls]
    assert len([event for event in events if isinstance(event, CallStarted)]) == len(calls)

def test_functionary_first_call_without_prefix_is_prose():
    "Nothing marks the first call of a v3.2 reply that lacks the prompt's `>>>`: it stays text, not a call."
    result = parse_tool_calls(CASES[0][1])
    assert [call.name for call in result.calls] == ['get_time']
    assert result.text == 'get_weather\n{"city": "Paris"}'

def test_prefix_with_allow_list():
    result = parse_tool_calls(CASES[0][1], ['get_time'], prefix='>>>')
    assert [call.name for call in result.calls] == ['get_time']
    assert [(refusal.name, refusal.start) for refusal in result.rejected] == [('get_weather', 0)]

def test_prefix_must_be_text():
    with pytest.raises(ParseArgumentError): parse_tool_calls('x', prefix=3)
    with pytest.raises(ParseArgumentError): ToolCallStreamParser(prefix=b'>>>')
