"A call the parser cannot read whole is refused with a reason, never dropped while a sibling is returned."
import pytest
from toolcall_lib.parse import format_examples, parse_tool_calls
from toolcall_lib.parse.table import LOOSE as LOOSE_FORMAT

# JSON and Pythonic calls loose in prose have no marker: one that does not read is prose, by design
LOOSE = {layout for layout, _ in LOOSE_FORMAT.examples}
MARKED = [layout for layout in format_examples() if layout not in LOOSE]

def mangled(text, value):
    "The call's text with `value` broken two ways: its closing quote dropped, or junk after it."
    at = text.find(value)
    if at == -1: return []
    return [text[:at] + text[at + 1:], text[:at + len(value)] + ' ]] :' + text[at + len(value):]]

@pytest.mark.parametrize('layout', MARKED)
@pytest.mark.parametrize('broken_first', [True, False])
def test_broken_sibling_is_refused_not_dropped(layout, broken_first):
    render = format_examples()[layout]
    good, bad = render('get_time', {'tz': 'UTC'}), render('get_weather', {'city': 'Paris', 'days': 3})
    for broken in mangled(bad, '"Paris"'):
        text = broken + '\n' + good if broken_first else good + '\n' + broken
        result = parse_tool_calls(text, ['get_time', 'get_weather'])
        names = [call.name for call in result.calls]
        if names == ['get_time']:   # the broken call did not come back: then a refusal says why
            assert result.rejected and all(refusal.reason for refusal in result.rejected), (layout, text)

def test_qwen25_coder_broken_line():
    text = ('<tools>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
            '{"name": "get_time", "arguments": {"tz": "UTC" ]] :}}\n</tools>')
    result = parse_tool_calls(text)
    assert [call.name for call in result.calls] == ['get_weather']
    assert [refusal.name for refusal in result.rejected] == ['get_time']
