"""Property tests for toolcall_lib.parse: never raises, streaming equals one-shot, no markup leaks into visible text."""
import json, keyword, re
from hypothesis import given, settings, strategies as st, HealthCheck
from toolcall_lib.parse import (parse_tool_calls, ToolCallStreamParser, TextDelta, ReasoningDelta, CallFinished,
                                ParseResult, CallStarted, ArgumentsDelta, CallAbandoned, CallRejected, format_examples,
                                format_markers)

# Pieces that steer random text into the parser's interesting paths. What is markup of a format comes from the format
# table itself (every family's openers and the other pieces it names, and each layout's example call cut at its tags),
# so a new family is fuzzed the moment it is declared; only what belongs to no format is listed here.
GENERIC = ['{', '}', '[', ']', '(', ')', '"', "'", '\\', ':', ',', ';', ' ', '\n', '{"name": "a", "arguments": {"x": 1}}',
           '"name"', '"arguments"', 'a(x=1)', 'tool_calls', '<', '>', '|', 'True', 'null', 'x', 'é', '\x00', '```', '```json\n',
           '<![CDATA[', ']]>', '&lt;', "a(x=b'z')", 'a(x=1e999)', 'a(x={1})', "[a(x='1\n2')]", '{"tool_call": ']
MARKUP_PIECE = re.compile(r'(<[^<>]{1,80}>|\[[A-Z_/]+\]|```[a-z]*\n?)')   # a tag, a [TOKEN], a fence opener

def table_fragments() -> list:
    "The markers of the format table, and each layout's example call, whole and cut at its markup."
    pieces = list(format_markers())
    for render in format_examples().values():
        example = render('a', {'x': '1'})
        pieces += [example] + [piece for piece in MARKUP_PIECE.split(example) if piece]
    return list(dict.fromkeys(pieces))

FRAGMENTS = list(dict.fromkeys(GENERIC + table_fragments()))

hostile_text = st.one_of(
    st.text(max_size=200),
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=5)), max_size=40).map(''.join))

def run_stream(text, cuts, tools=None, thinking=False, reasoning_calls=False):
    "Feed `text` cut at the positions `cuts`; return (events, result)."
    parser = ToolCallStreamParser(tools, thinking=thinking, reasoning_calls=reasoning_calls)
    events, previous = [], 0
    for cut in sorted(set(cuts)) + [len(text)]:
        events += parser.feed(text[previous:cut]); previous = cut
    events += parser.close()
    check_event_protocol(events)
    return events, parser.result

def check_event_protocol(events):
    "Each call is started once, gets deltas only while open, and ends exactly once (finished or abandoned), in index order."
    open_index, finished = None, 0
    for event in events:
        if isinstance(event, CallStarted):
            assert open_index is None and event.index == finished
            open_index = event.index
        elif isinstance(event, ArgumentsDelta): assert event.index == open_index
        elif isinstance(event, CallFinished):
            assert event.index == open_index == finished
            open_index, finished = None, finished + 1
        elif isinstance(event, CallAbandoned):
            assert event.index == open_index
            open_index = None
        else: assert open_index is None or isinstance(event, CallRejected), event
    assert open_index is None

@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_text, st.sampled_from([None, [], ['a', 'get_weather']]), st.booleans())
def test_never_raises(text, tools, standalone):
    result = parse_tool_calls(text, tools, standalone=standalone)
    assert isinstance(result, ParseResult)
    json.dumps(result.to_dict(), allow_nan=False)   # always plain JSON: nothing to convert, no NaN

@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_streaming_equals_one_shot(data):
    text = data.draw(hostile_text)
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=12))
    tools = data.draw(st.sampled_from([None, ['a', 'get_weather']]))
    thinking, reasoning_calls = data.draw(st.booleans()), data.draw(st.booleans())   # reasoning_calls: the Trinity opt-in
    events, streamed = run_stream(text, cuts, tools, thinking, reasoning_calls)
    expected = parse_tool_calls(text, tools, thinking=thinking, reasoning_calls=reasoning_calls)
    assert streamed == expected
    assert ''.join(e.text for e in events if isinstance(e, TextDelta)) == expected.text
    assert ''.join(e.text for e in events if isinstance(e, ReasoningDelta)) == expected.reasoning
    assert tuple(e.call for e in events if isinstance(e, CallFinished)) == expected.calls

@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_text, st.sampled_from([None, ['a', 'get_weather']]))
def test_streaming_equals_one_shot_at_every_split(text, tools):
    "Two chunks, cut at every position: a chunk may end right after any marker (a fence closer, a tag, a bracket)."
    expected = parse_tool_calls(text, tools)
    for cut in range(1, len(text)):
        parser = ToolCallStreamParser(tools)
        parser.feed(text[:cut]); parser.feed(text[cut:]); parser.close()
        assert parser.result == expected, (text, cut)

def test_fence_closed_at_a_chunk_end():
    text = '```\nx\n``` <tool_call>{"name": "a", "arguments": {}}</tool_call>'
    assert run_stream(text, [len('```\nx\n```')])[1] == parse_tool_calls(text)

def test_streaming_one_character_at_a_time():
    text = ('Sure! <tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call> and [TOOL_CALLS]b[ARGS]{"y": 2} '
            '<think>hmm</think> {"name": "c", "parameters": {}}; {"name": "d", "parameters": {}} done')
    assert run_stream(text, range(len(text)))[1] == parse_tool_calls(text)
    assert [c.name for c in parse_tool_calls(text).calls] == ['a', 'b', 'c', 'd']

# Well-formed calls in many formats, mixed with prose that has no markup characters.
PROSE = st.text(alphabet='abcdefghijklmnopqrstuvwxyz ABC.,!?:-\n0123456789', max_size=30)
NAMES = st.from_regex(r'[a-z][a-z_]{0,10}', fullmatch=True).filter(
    lambda name: not keyword.iskeyword(name) and name not in ('all', 'function'))  # `as(...)` is not Python; `>>>all` is Functionary's text channel; `<tool: function>` names the tool in its body
VALUES = st.text(alphabet='abcdefghijklmnopqrstuvwxyz 0123456789.,-', min_size=1, max_size=12).filter(lambda v: v == v.strip())
ARGUMENTS = st.dictionaries(st.from_regex(r'[a-z][a-z_]{0,6}', fullmatch=True).filter(lambda key: not keyword.iskeyword(key)), VALUES, max_size=3)

EXAMPLES = format_examples()   # layout -> render(name, arguments): one call written the way that layout writes it
FORMATS = list(EXAMPLES)

def render(fmt, name, arguments):
    "One call written the way a model of layout `fmt` writes it (the format table's example of that layout)."
    return EXAMPLES[fmt](name, arguments)

@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_no_markup_leaks_and_calls_found(data):
    pieces = data.draw(st.lists(st.tuples(PROSE, st.sampled_from(FORMATS), NAMES, ARGUMENTS), min_size=1, max_size=4))
    ending = data.draw(PROSE)
    text = ''.join(prose + ('\n' if fmt == 'text_kv' else '') + render(fmt, name, arguments) + ('\n' if fmt == 'text_kv' else '')
                   for prose, fmt, name, arguments in pieces) + ending
    prose = ''.join(prose + ('\n\n' if fmt == 'text_kv' else '') for prose, fmt, _, _ in pieces) + ending
    expected_calls = [(name, arguments) for _, _, name, arguments in pieces]
    result = parse_tool_calls(text)
    assert [(call.name, call.arguments) for call in result.calls] == expected_calls, text
    assert result.text == prose, text
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=10))
    events, streamed = run_stream(text, cuts)
    assert streamed == result
    assert ''.join(e.text for e in events if isinstance(e, TextDelta)) == prose
    for call_index, call in enumerate(streamed.calls):   # argument deltas join into the arguments as JSON text
        joined = ''.join(e.delta for e in events if isinstance(e, ArgumentsDelta) and e.index == call_index)
        assert json.loads(joined) == call.arguments, (joined, call)
