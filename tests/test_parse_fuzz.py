"""Property tests for toolcall_lib.parse: never raises, streaming equals one-shot, no markup leaks into visible text."""
import json, keyword
from hypothesis import given, settings, strategies as st, HealthCheck
from toolcall_lib.parse import (parse_tool_calls, ToolCallStreamParser, TextDelta, ReasoningDelta, CallFinished,
                                ParseResult, CallStarted, ArgumentsDelta, CallAbandoned, CallRejected)

# Pieces that steer random text into the parser's interesting paths.
FRAGMENTS = ['<tool_call>', '</tool_call>', '<tool_calls>', '</tool_calls>', '<function_call>', '</function_call>',
             '<function_calls>', '</function_calls>', '<invoke name="a">', '</invoke>', '<parameter name="x">', '</parameter>',
             '<minimax:tool_call>', '</minimax:tool_call>', '<function=a>', '</function>', '<parameter=x>', '<arg_key>',
             '</arg_key>', '<arg_value>', '</arg_value>', '<think>', '</think>', '```', '```json\n', '[TOOL_CALLS]', '[ARGS]',
             '[CALL_ID]', 'functools', 'function.name: a\n', 'function.arguments: ', '<|python_tag|>', '<|tool_call|>',
             '<|action_start|><|plugin|>', '<|action_end|>', '<|tool_call_start|>', '<|tool_call_end|>',
             '<｜tool▁calls▁begin｜>', '<｜tool▁call▁begin｜>', '<｜tool▁sep｜>', '<｜tool▁call▁end｜>', '<｜tool▁calls▁end｜>',
             '<|tool_calls_section_begin|>', '<|tool_call_begin|>', 'functions.a:0', '<|tool_call_argument_begin|>',
             '<|tool_calls_section_end|>', '<|channel|>', 'analysis', 'commentary to=functions.a ', '<|message|>', '<|call|>',
             '<|end|>', '<|start|>assistant', '<｜DSML｜function_calls>', '<｜DSML｜invoke name="a">', '</｜DSML｜invoke>',
             '{', '}', '[', ']', '(', ')', '"', "'", '\\', ':', ',', ';', ' ', '\n', '{"name": "a", "arguments": {"x": 1}}',
             '"name"', '"arguments"', 'a(x=1)', 'tool_calls', '<', '>', '|', 'True', 'null', 'x', 'é', '\x00',
             # the openers of the newer families and the seed's XML styles
             '<seed:tool_call>', '</seed:tool_call>', '<seed:think>', '</seed:think>', '<｜tool_calls_begin｜>', '<｜tool_calls_end｜>',
             '<steptml:invoke name="a">', '</steptml:invoke>', '<steptml:parameter name="x">', '</steptml:parameter>',
             '<|tools_prefix|>', '<|tools_suffix|>', '[{"a": {"x": 1}}]', '<function name="a">', '>>>', '>>>a\n', '>>>all\n',
             ' to=functions.a', '<｜tool▁calls｜>', 'function<｜tool▁sep｜>a\n', '<|DSML|tool_calls>', '<DSMLinvoke name="a">',
             '</DSMLinvoke>', 'Action:', 'Action: ```json\n', '<tool name="a">', '</tool>', '<tool_use>', '</tool_use>',
             '<function parameter name="x">', '</function parameter>', '<argument name="x">', '</argument>', '<![CDATA[', ']]>',
             '<|inner_prefix|>', '<|inner_suffix|>', "a(x=b'z')", 'a(x=1e999)', 'a(x={1})',
             # the newest families (issue 19)
             '<｜DSML｜ calls>', '</｜DSML｜ calls>', '<｜DSML｜ invoke name="a">', '<｜DSML｜ parameter name="x" string="false">',
             '<｜GCML｜tool_calls>', '<｜GCML｜invoke name="a">', '<｜GCML｜parameter name="x" string="true">', '</｜GCML｜parameter>',
             '<tool_calls:opensource>', '<tool_call:opensource>', '<tool_sep>', '<tool_sep:opensource>', '<arg_key:opensource>',
             '</arg_value:opensource>', '<iquest_tool_call>', '</iquest_tool_call>', '<ifm|tool_calls>', '<ifm|tool_call>',
             '<ifm|arg_key>', '</ifm|arg_value>', '<ifm|think>', '</ifm|tool_calls>', '<|open|>tools<|sep|>', '<|open|>call tool="a" index="1"<|sep|>',
             '<|open|>argument key="x" type="integer"<|sep|>', '<|close|>argument<|sep|>', '<|close|>call<|sep|>', '<|close|>tools<|sep|>',
             '<|open|>think<|sep|>', '<|close|>response<|sep|>', '<param name="x">', '</param>', '&lt;', ']<]minimax[>[',
             ']<]minimax[>[<tool_call>', ']<]minimax[>[<invoke name="a">', '<item>', '</item>', ' to=a<|message|>', ' to=user<|message|>',
             '<atem:function_calls>', '<atem:invoke name="a">', '<atem:parameter name="x">', '<|eom|>', '<|eot|>', '<|tool_call>',
             '<tool_call|>', 'call:a{', '<|"|>', 'x:', "[a(x='1\n2')]",
             # the formats of the serving engines (issue 12): FunctionGemma, LongCat, CWM
             '<start_function_call>', '<end_function_call>', '<escape>', 'call:a{x:<escape>', '<longcat_tool_call>',
             '</longcat_tool_call>', '<tool: ', '<tool: function>\n', '<tool: a>\n', '<tool: a',
             # Olmo 3, MiniCPM 3, MiniMax-M1, Llama 4's python tokens
             '<function_calls>a(x=1)\n', 'b(y=2)\n', '<|thought_start|>', '<|thought_end|>', '```python\n', '<|python_start|>',
             '<|python_end|>', '{"name": "a", "arguments": {}}\n',
             # GigaChat 3, Solar Open 2, Cohere, dots, Nemotron, PLaMo 3, Inkling
             '<|message_sep|>', 'function call<|role_sep|>\n', '<|function_call|>', '<|tool_call:start|>a\n', '<|tool_arg:start|>x',
             '<|tool_arg:value|>', '<|tool_arg:end|>', '<|tool_call:end|>', '<|think:start|>', '<|think:end|>', '<|START_ACTION|>',
             '<|END_ACTION|>', '<|START_THINKING|>', '<|END_THINKING|>', '<|START_RESPONSE|>', '<dots_function_call>',
             '</dots_function_call>', '<TOOLCALL>', '</TOOLCALL>', '<|plamo:begin_tool_requests:plamo|>', '<|plamo:begin_tool_request:plamo|>',
             '<|plamo:begin_tool_name:plamo|>a<|plamo:end_tool_name:plamo|>', '<|plamo:begin_tool_arguments:plamo|>',
             '<|plamo:end_tool_requests:plamo|>', '<|plamo:tag|>', '<|message_model|>', '<|content_invoke_tool_json|>',
             '<|content_thinking|>', '<|end_message|>',
             # Qwen2.5-Coder <tools>, TeleChat 4, Step-Audio 2, Step DeepResearch, IQuest Coder V2, reasoning markers, llama.cpp generic
             '<tools>', '</tools>', '<param_key>', '</param_key>', '<param_value>', '</param_value>', '<tool_call>a{', '<tool_call>function\na\n',
             '<tool_call>a>', '<steptml:toolcall>', '</steptml:toolcall>', '<iquestcoder_tool_call>', '[THINK]', '[/THINK]', '<thinking>',
             '</thinking>', '<|channel>thought', '<channel|>', '[BEGIN FINAL RESPONSE]', '[END FINAL RESPONSE]', '{"tool_call": ',
             # raw Python for Functionary's `python` tool, RWKV's label
             '>>>python\n', '<|python_tag|>import os\n', '<|eom_id|>', '**Tool Call:**\n', '**Tool Call:**\n```json\n', '**',
             '<|tool_call:begin|>0<|tool_call:name|>a<|tool_call:args|>', '<|tool_call:end|>', '<|think|>', '<|begin|>assistant', '<|content|>', '<|calls|>']

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

def render(fmt, name, arguments):
    "One call written the way a model of family `fmt` writes it."
    as_json = json.dumps(arguments)
    if fmt == 'hermes': return f'<tool_call>\n{json.dumps({"name": name, "arguments": arguments})}\n</tool_call>'
    if fmt == 'mistral': return f'[TOOL_CALLS]{name}[ARGS]{as_json}'
    if fmt == 'mistral_list': return f'[TOOL_CALLS] [{json.dumps({"name": name, "arguments": arguments})}]'
    if fmt == 'granite': return f'<|tool_call|>[{json.dumps({"name": name, "arguments": arguments})}]'
    if fmt == 'phi4_mini': return f'functools[{json.dumps({"name": name, "arguments": arguments})}]'
    if fmt == 'internlm': return f'<|action_start|><|plugin|>\n{json.dumps({"name": name, "parameters": arguments})}<|action_end|>'
    if fmt == 'llama3_json': return f'<|python_tag|>{json.dumps({"name": name, "parameters": arguments})}'
    if fmt == 'json': return json.dumps({"name": name, "arguments": arguments})
    if fmt == 'pythonic': return '[' + name + '(' + ', '.join(f'{k}={v!r}' for k, v in arguments.items()) + ')]'
    if fmt == 'lfm2': return '<|tool_call_start|>' + render('pythonic', name, arguments) + '<|tool_call_end|>'
    if fmt == 'qwen3_coder':
        parameters = ''.join(f'<parameter={k}>\n{v}\n</parameter>\n' for k, v in arguments.items())
        return f'<tool_call>\n<function={name}>\n{parameters}</function>\n</tool_call>'
    if fmt == 'glm45':
        pairs = ''.join(f'<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n' for k, v in arguments.items())
        return f'<tool_call>{name}\n{pairs}</tool_call>'
    if fmt in ('minimax', 'invoke', 'dsml'):
        prefix = '｜DSML｜' if fmt == 'dsml' else ''
        parameters = ''.join(f'<{prefix}parameter name="{k}" string="true">{v}</{prefix}parameter>\n' for k, v in arguments.items())
        invoke = f'<{prefix}invoke name="{name}">\n{parameters}</{prefix}invoke>'
        wrapper = {'minimax': 'minimax:tool_call', 'invoke': 'function_calls', 'dsml': '｜DSML｜function_calls'}[fmt]
        return f'<{wrapper}>\n{invoke}\n</{wrapper}>'
    if fmt == 'deepseek_v3':
        return (f'<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{as_json}\n```'
                '<｜tool▁call▁end｜><｜tool▁calls▁end｜>')
    if fmt == 'deepseek_v31':
        return f'<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{as_json}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    if fmt == 'kimi_k2':
        return (f'<|tool_calls_section_begin|><|tool_call_begin|>functions.{name}:0<|tool_call_argument_begin|>{as_json}'
                '<|tool_call_end|><|tool_calls_section_end|>')
    if fmt == 'harmony':
        return f'<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{as_json}<|call|>'
    if fmt == 'text_kv': return f'function.name: {name}\nfunction.arguments: {as_json}'
    parameters = ''.join(f'<parameter={k}>{v}</parameter>\n' for k, v in arguments.items())
    if fmt == 'seed_oss': return f'<seed:tool_call>\n<function={name}>\n{parameters}</function>\n</seed:tool_call>'
    if fmt == 'qwen3_coder_bare': return f'<function={name}>\n{parameters}</function>'
    if fmt == 'functionary_v31': return f'<function={name}>{as_json}</function>'
    if fmt == 'functionary_named': return f'<function name="{name}">{as_json}</function>'
    if fmt == 'functionary_v32': return f'>>>{name}\n{as_json}'
    if fmt == 'step3':
        steptml = ''.join(f'<steptml:parameter name="{k}">{v}</steptml:parameter>' for k, v in arguments.items())
        return (f'<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="{name}">{steptml}</steptml:invoke>'
                '<｜tool_call_end｜><｜tool_calls_end｜>')
    if fmt == 'apertus': return f'<|tools_prefix|>[{json.dumps({name: arguments})}]<|tools_suffix|>'
    if fmt == 'harmony_recipient_first':
        return f'<|start|>assistant to=functions.{name}<|channel|>commentary json<|message|>{as_json}<|call|>'
    if fmt == 'deepseek_r1_short': return f'<｜tool▁calls｜>function<｜tool▁sep｜>{name}\n```json\n{as_json}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    if fmt in ('dsml_ascii', 'dsml_bare'):
        prefix = '|DSML|' if fmt == 'dsml_ascii' else 'DSML'
        dsml = ''.join(f'<{prefix}parameter name="{k}" string="true">{v}</{prefix}parameter>' for k, v in arguments.items())
        return f'<{prefix}tool_calls><{prefix}invoke name="{name}">{dsml}</{prefix}invoke></{prefix}tool_calls>'
    if fmt == 'command_r': return f'Action: ```json\n{json.dumps([{"tool_name": name, "parameters": arguments}])}\n```'
    if fmt == 'seed_arguments':
        return f'<function_call name="{name}">' + ''.join(f'<argument name="{k}">{v}</argument>' for k, v in arguments.items()) + '</function_call>'
    if fmt == 'seed_tool': return f'<tool name="{name}">' + ''.join(f'<{k}>{v}</{k}>' for k, v in arguments.items()) + '</tool>'
    if fmt == 'seed_name_then_parameters':
        return f'<function_call>{name}</function_call>' + ''.join(f'<function parameter name="{k}">{v}</function parameter>' for k, v in arguments.items())
    if fmt == 'seed_invoke_json': return f'<function_calls><invoke name="{name}">{as_json}</invoke></function_calls>'
    if fmt in ('dsml_spaced', 'gcml'):
        prefix = '｜DSML｜ ' if fmt == 'dsml_spaced' else '｜GCML｜'
        wrapper = 'calls' if fmt == 'dsml_spaced' else 'tool_calls'
        values = ''.join(f'<{prefix}parameter name="{k}" string="true">{v}</{prefix}parameter>\n' for k, v in arguments.items())
        return f'<{prefix}{wrapper}>\n<{prefix}invoke name="{name}">\n{values}</{prefix}invoke>\n</{prefix}{wrapper}>'
    if fmt in ('hunyuan', 'hunyuan_hy4', 'hunyuan_shipping'):
        suffix = ':opensource' if fmt == 'hunyuan_shipping' else ''
        separator = '' if fmt == 'hunyuan_hy4' else f'<tool_sep{suffix}>'
        pairs = ''.join(f'<arg_key{suffix}>{k}</arg_key{suffix}>\n<arg_value{suffix}>{v}</arg_value{suffix}>\n' for k, v in arguments.items())
        return f'<tool_calls{suffix}>\n<tool_call{suffix}>{name}{separator}\n{pairs}</tool_call{suffix}>\n</tool_calls{suffix}>'
    if fmt == 'iquest':
        return f'<iquest_tool_call>{name}' + ''.join(f'<arg_key>{k}</arg_key><arg_value>{v}</arg_value>' for k, v in arguments.items()) + '</iquest_tool_call>'
    if fmt == 'k2_horizon':
        pairs = ''.join(f'<ifm|arg_key>{k}</ifm|arg_key><ifm|arg_value>{v}</ifm|arg_value>' for k, v in arguments.items())
        return f'<ifm|tool_calls><ifm|tool_call>{name}{pairs}</ifm|tool_call></ifm|tool_calls>'
    if fmt == 'k2_horizon_json': return f'<ifm|tool_calls><ifm|tool_call>{json.dumps({"name": name, "arguments": arguments})}</ifm|tool_call></ifm|tool_calls>'
    if fmt == 'kimi_k3':
        values = ''.join(f'<|open|>argument key="{k}" type="string"<|sep|>{v}<|close|>argument<|sep|>' for k, v in arguments.items())
        return f'<|open|>tools<|sep|><|open|>call tool="{name}" index="1"<|sep|>{values}<|close|>call<|sep|><|close|>tools<|sep|>'
    if fmt == 'minicpm5': return f'<function name="{name}">' + ''.join(f'<param name="{k}">{v}</param>' for k, v in arguments.items()) + '</function>'
    if fmt == 'minimax_m3':
        ns = ']<]minimax[>['
        values = ''.join(f'{ns}<{k}>{v}{ns}</{k}>\n' for k, v in arguments.items())
        return f'{ns}<tool_call>\n{ns}<invoke name="{name}">\n{values}{ns}</invoke>\n{ns}</tool_call>'
    if fmt == 'muse_glimmer':
        values = ''.join(f'<atem:parameter name="{k}">{v}</atem:parameter>\n' for k, v in arguments.items())
        return f'<|start|>assistant to={name}<|message|><atem:function_calls>\n<atem:invoke name="{name}">\n{values}</atem:invoke>\n</atem:function_calls><|eom|>'
    if fmt == 'gemma4':
        return '<|tool_call>call:' + name + '{' + ','.join(f'{k}:<|"|>{v}<|"|>' for k, v in arguments.items()) + '}<tool_call|>'
    if fmt == 'functiongemma':
        return '<start_function_call>call:' + name + '{' + ','.join(f'{k}:<escape>{v}<escape>' for k, v in arguments.items()) + '}<end_function_call>'
    if fmt == 'longcat': return f'<longcat_tool_call>\n{json.dumps({"name": name, "arguments": arguments})}\n</longcat_tool_call>'
    if fmt == 'cwm': return f'<tool: {name}>\n{as_json}\n</tool>'
    call = name + '(' + ', '.join(f'{k}={v!r}' for k, v in arguments.items()) + ')'
    if fmt == 'olmo3': return f'<function_calls>{call}</function_calls>'
    if fmt == 'minicpm3': return f'<|tool_call_start|>\n```python\n{call}\n```\n<|tool_call_end|>'
    if fmt == 'minimax_m1': return f'<tool_calls>\n{json.dumps({"name": name, "arguments": arguments})}\n</tool_calls>'
    if fmt == 'llama4': return f'<|python_start|>[{call}]<|python_end|>'
    if fmt == 'gigachat3': return f'<|message_sep|>\n\nfunction call<|role_sep|>\n{json.dumps({"name": name, "arguments": arguments})}'
    if fmt == 'solar_open':
        pairs = ''.join(f'<|tool_arg:start|>{k}<|tool_arg:value|>{v}<|tool_arg:end|>\n' for k, v in arguments.items())
        return f'<|tool_call:start|>{name}\n{pairs}<|tool_call:end|>'
    if fmt == 'cohere': return f'<|START_ACTION|>{json.dumps([{"tool_call_id": "0", "tool_name": name, "parameters": arguments}])}<|END_ACTION|>'
    if fmt == 'dots':
        parameters = ''.join(f'<parameter name="{k}">{v}</parameter>' for k, v in arguments.items())
        return f'<dots_function_call><invoke name="{name}">{parameters}</invoke></dots_function_call>'
    if fmt == 'nemotron': return f'<TOOLCALL>{json.dumps([{"name": name, "arguments": arguments}])}</TOOLCALL>'
    if fmt == 'plamo3':
        return ('<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>' + name
                + '<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>' + as_json
                + '<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>')
    if fmt == 'inkling': return f'<|message_model|><|content_invoke_tool_json|>{json.dumps({"name": name, "args": arguments})}<|end_message|>'
    if fmt == 'qwen25_coder': return f'<tools>\n{json.dumps({"name": name, "arguments": arguments})}\n</tools>'
    if fmt == 'telechat4':
        return f'<tool_call>{name}' + ''.join(f'<param_key>{k}</param_key><param_value>{v}</param_value>' for k, v in arguments.items()) + '</tool_call>'
    if fmt == 'telechat4_json': return f'<tool_call>{name}{as_json}</tool_call>'
    if fmt == 'step_audio2': return f'<tool_call>function\n{name}\n{as_json}</tool_call>'
    if fmt == 'step_deepresearch':
        steptml = ''.join(f'<steptml:parameter name="{k}">{v}</steptml:parameter>' for k, v in arguments.items())
        return f'<steptml:toolcall><steptml:invoke name="{name}">{steptml}</steptml:invoke></steptml:toolcall>'
    if fmt == 'iquest_coder_v2':
        return f'<iquestcoder_tool_call>{name}' + ''.join(f'<arg_key>{k}</arg_key><arg_value>{v}</arg_value>' for k, v in arguments.items()) + '</iquestcoder_tool_call>'
    if fmt == 'llamacpp_generic': return json.dumps({'tool_call': {'name': name, 'arguments': arguments}})
    if fmt == 'solar_open_100b': return f'<|tool_calls|><|tool_call:begin|>0<|tool_call:name|>{name}<|tool_call:args|>{as_json}<|tool_call:end|><|calls|>'
    if fmt == 'rwkv': return f'**Tool Call:**\n```json\n{json.dumps({"name": name, "arguments": arguments}, indent=2)}\n```'
    raise ValueError(fmt)

FORMATS = ['hermes', 'mistral', 'mistral_list', 'granite', 'phi4_mini', 'internlm', 'llama3_json', 'json', 'pythonic', 'lfm2',
           'qwen3_coder', 'glm45', 'minimax', 'invoke', 'dsml', 'deepseek_v3', 'deepseek_v31', 'kimi_k2', 'harmony', 'text_kv',
           'seed_oss', 'qwen3_coder_bare', 'functionary_v31', 'functionary_named', 'functionary_v32', 'step3', 'apertus',
           'harmony_recipient_first', 'deepseek_r1_short', 'dsml_ascii', 'dsml_bare', 'command_r', 'seed_arguments', 'seed_tool',
           'seed_name_then_parameters', 'seed_invoke_json', 'dsml_spaced', 'gcml', 'hunyuan', 'hunyuan_hy4', 'hunyuan_shipping', 'iquest',
           'k2_horizon', 'k2_horizon_json', 'kimi_k3', 'minicpm5', 'minimax_m3', 'muse_glimmer', 'gemma4',
           'functiongemma', 'longcat', 'cwm', 'olmo3', 'minicpm3', 'minimax_m1', 'llama4', 'gigachat3', 'solar_open', 'cohere', 'dots',
           'nemotron', 'plamo3', 'inkling', 'qwen25_coder', 'telechat4', 'telechat4_json', 'step_audio2', 'step_deepresearch', 'iquest_coder_v2',
           'llamacpp_generic', 'rwkv', 'solar_open_100b']

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
