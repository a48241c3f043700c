"""Properties of toolcall_lib.parse over every layout of the format table: a call's arguments hold only its own text,
a refused body never yields a complete call, random chunking equals one-shot, and the scanner's shortcut for repeated
text (`_repeat`) changes nothing."""
import json, keyword, re
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from toolcall_lib.parse import parse_tool_calls, ToolCallStreamParser, NOT_ALLOWED, format_examples
from toolcall_lib.parse import core
from test_parse_fuzz import FRAGMENTS, run_stream

EXAMPLES = format_examples()   # layout -> render(name, arguments): one call written the way that layout writes it
LAYOUTS = sorted(EXAMPLES)
NAMES = st.from_regex(r'[a-z][a-z_]{0,10}', fullmatch=True).filter(
    lambda name: not keyword.iskeyword(name) and name not in ('all', 'function'))   # see test_parse_fuzz.NAMES
KEYS = st.from_regex(r'[a-z][a-z_]{0,6}', fullmatch=True).filter(lambda key: not keyword.iskeyword(key))
FILLER = st.text(alphabet='abcdefghijklmnopqrstuvwxy 0123456789.,-', max_size=8)   # no `z`: markers hold one
MARKER = re.compile(r'z[A-Z]\d')   # zC3: the 4th value of call C; zP1: the 2nd piece of prose

@st.composite
def marked_arguments(draw, call:int):
    "Arguments of the call number `call`, each value carrying its own marker."
    keys = draw(st.lists(KEYS, min_size=1, max_size=3, unique=True))
    return {key: (f'{draw(FILLER)} z{"ABCDEFGH"[call]}{number} {draw(FILLER)}').strip() for number, key in enumerate(keys)}

@st.composite
def prose(draw, piece:int):
    "Prose between calls, carrying a marker of its own; now and then with brackets, quotes or a `<`."
    words = draw(st.lists(st.sampled_from(['the', 'a', 'call', 'then', ':', '.', '\n', '(', ')', '{', '}', '[', ']', '"',
                                           '<', '>', '\n\n', '-', 'x', '1', 'ok']), max_size=12))
    return ' '.join(words[:len(words) // 2] + [f'zP{piece}'] + words[len(words) // 2:])

@st.composite
def calls_in_prose(draw):
    "(text, [(layout, name, arguments)]): two or three calls, each in a layout of the table, with prose around them."
    calls = [(draw(st.sampled_from(LAYOUTS)), draw(NAMES), draw(marked_arguments(number)))
             for number in range(draw(st.integers(2, 3)))]
    pieces = [draw(prose(0))]
    for number, (layout, name, arguments) in enumerate(calls):
        pieces += ['\n' if layout == 'text_kv' else ' ', EXAMPLES[layout](name, arguments),
                   '\n' if layout == 'text_kv' else ' ', draw(prose(number + 1))]
    return ''.join(pieces), calls

def own_markers(call) -> set:
    "The markers in a call's arguments, as its JSON text holds them."
    return set(MARKER.findall(json.dumps(call.arguments)))

@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls_in_prose(), st.data())
def test_arguments_hold_only_their_own_call(case, data):
    "No call's arguments hold text of a neighbouring call or of the prose outside its markup; streamed the same."
    text, calls = case
    result = parse_tool_calls(text)
    for call in result.calls:
        markers = own_markers(call)
        assert not any(marker.startswith('zP') for marker in markers), (text, call)
        assert len({marker[1] for marker in markers}) <= 1, (text, call)   # one call's markers at most
        if markers:   # and that call's name
            number = 'ABCDEFGH'.index(markers.pop()[1])
            assert call.name == calls[number][1], (text, call)
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=12))
    assert run_stream(text, cuts)[1] == result

@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(LAYOUTS), NAMES, marked_arguments(0), st.data())
def test_refused_body_never_yields_a_complete_call(layout, name, arguments, data):
    "A call's markup damaged inside: whatever the parser refuses yields no complete call over the same text."
    written = EXAMPLES[layout](name, arguments)
    at = data.draw(st.integers(1, len(written) - 1))
    damage = data.draw(st.sampled_from(['', '"', '{', '}', ':', ',', '<', '>', 'MALFORMED', ']', '=', '\n']))
    cut = data.draw(st.integers(0, 3))
    text = 'Let me check. ' + written[:at] + damage + written[at + cut:] + ' Done.'
    result = parse_tool_calls(text)
    for refusal in result.rejected:
        if refusal.reason == NOT_ALLOWED: continue
        for call in result.calls:
            overlap = call.start < refusal.end and refusal.start < call.end
            assert not (overlap and call.complete), (text, refusal, call)
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=12))
    assert run_stream(text, cuts)[1] == result

# The repeated-text shortcut: every copy of a unit whose window lies inside its run is taken as read. These texts are
# such runs (a unit of the format table's pieces, repeated past the look-behind and look-ahead), with text around.
def without_repeats(function, *args, **kwargs):
    core._REPEATS = False
    try: return function(*args, **kwargs)
    finally: core._REPEATS = True

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=4).map(''.join), st.sampled_from(FRAGMENTS),
       st.sampled_from(FRAGMENTS), st.sampled_from([None, ['a', 'get_weather']]), st.data())
def test_repeats_change_nothing(unit, before, after, tools, data):
    text = before + unit * ((core._LOOK_AHEAD + core._LOOK_BEHIND) // len(unit) + data.draw(st.integers(2, 40))) + after
    expected = without_repeats(parse_tool_calls, text, tools)
    assert parse_tool_calls(text, tools) == expected
    chunk = data.draw(st.sampled_from([64, 1000, 5000, len(text)]))
    parser, events = ToolCallStreamParser(tools), []
    for start in range(0, len(text), chunk): events += parser.feed(text[start:start + chunk])
    events += parser.close()
    assert parser.result == expected
    parser, plain = ToolCallStreamParser(tools), []
    for start in range(0, len(text), chunk): plain += without_repeats(parser.feed, text[start:start + chunk])
    plain += without_repeats(parser.close)
    assert events == plain   # the events too, call by call

def test_repeated_calls_own_their_arguments():
    "Copies taken as read are calls of their own: changing one call's arguments changes no other."
    text = '<tool_call>{"name": "a", "arguments": {"x": [1]}}</tool_call>' * 200
    calls = parse_tool_calls(text).calls
    assert len(calls) == 200 and [call.start for call in calls] == list(range(0, len(text), len(text) // 200))
    calls[0].arguments['x'].append(2)
    assert all(call.arguments == {'x': [1]} for call in calls[1:])

HOSTILE_UNITS = ['<tool_call>', '<invoke name="x"><parameter name="a">', '<function name="a"><param name="x">',
                 'a<|end|>', ' to=functions.a<|channel|>', '<tool_call>function\na\n{"x": [']

@pytest.mark.parametrize('unit', HOSTILE_UNITS)
def test_repeated_markup_costs_few_steps(unit, monkeypatch):
    "Linear work, counted rather than timed: 200 KB of one repeated opener takes a few hundred scanner steps, not one per copy."
    steps = []
    step = core._Scanner.step
    def counted(self, *args): steps.append(1); return step(self, *args)
    monkeypatch.setattr(core._Scanner, 'step', counted)
    parse_tool_calls(unit * (200_000 // len(unit)))
    assert len(steps) < 2_000, len(steps)

def without_shortcuts(function, *args, **kwargs):
    "Call `function` with `parse_tool_calls`'s shortcuts off: the scanner reads every text."
    markers = core._markers()
    saved, markers.shortcuts = markers.shortcuts, ()
    try: return function(*args, **kwargs)
    finally: markers.shortcuts = saved

HERMES_BODIES = ['{"name": "get_weather", "arguments": {"city": "Paris"}}', '{"name": " a ", "arguments": {}}',
                 '{"name": "a", "arguments": {"x": [1, {"y": null}]}}', '{"arguments": {}, "name": "get_weather"}',
                 '{"name": "a", "arguments": "{}"}', '{"name": "a", "arguments": {}, "id": "7"}', '{"name": "a(", "arguments": {}}',
                 "{'name': 'a', 'arguments': {}}", '{"name": "a", "arguments": {"x": 1}', '{"name": 1, "arguments": {}}',
                 '{"name": "a", "arguments": {"s": "<tool_call>"}}', '{"name": "a", "arguments": {"s": "]]><![CDATA["}}']

@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(HERMES_BODIES), st.sampled_from(['', ' ', '\n', '\x0b']), st.sampled_from(FRAGMENTS + ['', 'ok ', 'Action: ']),
       st.sampled_from(FRAGMENTS + ['', '\nDone.', ' {"a": 1}']), st.sampled_from(['</tool_call>', '</tool_calls>', '']),
       st.sampled_from([None, ['get_weather'], ['A', 'get_weather']]))
def test_shortcut_gives_the_scanners_answer(body, space, before, after, closer, tools):
    "The one-shot shortcut for a plain Hermes message (03_tags) answers exactly as the scanner, or leaves the text to it."
    text = f'{before}<tool_call>{space}{body}{space}{closer}{after}'
    assert parse_tool_calls(text, tools) == without_shortcuts(parse_tool_calls, text, tools)

BARE_BODIES = ['', ' ', '  ', 'x', '17', 'a b', 'a=b', '{', '{"name": "a", "arguments": {}}', 'f(x)', '[a()]', 'a\n', ':',
               '"q"', 'to=x', 'Action: y', '\u00a0', 'get_weather', '{"a": ']

@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(BARE_BODIES), min_size=1, max_size=80), st.sampled_from(FRAGMENTS + ['']),
       st.sampled_from(FRAGMENTS + ['', '</tool_call>']), st.sampled_from([None, ['a', 'get_weather']]))
def test_bare_openers_read_as_the_scanner_reads_them(bodies, before, after, tools):
    """Runs of bare `<tool_call>` openers with short bodies: one-shot (bodies without call characters known to read
    nothing, runs of them in one step) answers as a stream in small chunks that reads every body with the readers."""
    from toolcall_lib.parse import tags
    text = before + ''.join('<tool_call>' + body for body in bodies) + after
    result = parse_tool_calls(text, tools)
    saved, tags._KNOWN_READERS = tags._KNOWN_READERS, False   # every body read by the family's readers
    try:
        assert parse_tool_calls(text, tools) == result
        parser = ToolCallStreamParser(tools)
        for start in range(0, len(text), 7): parser.feed(text[start:start + 7])
        parser.close()
    finally: tags._KNOWN_READERS = saved
    assert parser.result == result
