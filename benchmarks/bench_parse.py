"""Benchmark toolcall_lib.parse against json.loads on the same bytes, at two sizes per case.

Run: python benchmarks/bench_parse.py [all|messages|hostile] [PART]   (one table, and only the rows whose name holds PART)

Baseline: `json.loads` of the same payload in the same run. For the Hermes message that is the JSON inside the
<tool_call> tags (what any parser must at least decode); for the other inputs, which hold no valid call, it is
`json.loads` of the whole text written as a JSON string literal: one C-speed pass over the same characters.
Each case runs at two sizes: if time grows by ~2x when the input doubles, work is linear.
The same text is also streamed through `ToolCallStreamParser`, in 64-character chunks and in one single chunk, with
the one-shot parse as its peer: both must stay linear too (a stream never re-reads its whole buffer per chunk, and
one large chunk costs no more per segment than one-shot parsing).
Goals (issues 5 and 12): prose >= 50 MB/s; the 1 KB Hermes message within 10x of json.loads on its payload, and
within 5x with an allow-list of tool schemas (the policy built from `tools=` is cached per list); chat text with
calls streamed in 64-character chunks >= 20 MB/s; every 1 MB adversarial input under 0.5 s of CPU time, for every family's
opener (the table grew: Seed-OSS, Step-3, Functionary, Command R, the XML styles of the original specification and
the newest open models' formats each get a hostile shape).

Every figure is what a caller gets by default: at most `max_calls` (1,000) calls are read from one text, and the block
that passes the limit is refused with the rest of the text, unread. The hostile table prints, beside a row whose text
holds more calls than that, its 1 MB figure with no limit (`max_calls=None`), for the record.

Issue 27 adds: a 1 KB Hermes message whose arguments are one long string (json.loads at its cheapest, so the scanner's
own cost shows; goal: with an allow-list within 5x json.loads and faster than SGLang's Hermes detector), chat text with
a short call after every ~1.5 KB of prose (goal: streamed in 64-character chunks at least 2x SGLang's streaming
detector), and a table of every shape of the notebook's hostile section as pure repetition at 0.5 MB and 1 MB (goal:
under 0.5 s of CPU at 1 MB, growth at most 2.2x). Text that repeats one unit is read once per unit and its copies are
taken as read (`_repeat` in 02_core): the repeated table measures that path. Its "(numbered)" rows repeat every shape
with a counter in each copy (in its first name slot, `name="a17"`, or after it, `<tool_call>17`), and its "(varied)"
rows with random names or bodies: no two copies are alike, so every copy is read (the same goal).

Peer (issue 19): SGLang's tool-call detectors, from the `llm-router-utils` package, measured in the same run when it
is importable. That package pins torch and transformers (about 6 GB), so it is in no extra of this project; its
detectors only import a few packages, so install it with
    pip install --no-deps llm-router-utils && pip install orjson partial-json-parser msgspec jinja2 openai
Goals against it: the 1 KB Hermes message with an allow-list faster than SGLang's Hermes detector; chat text with
calls streamed in 64-character chunks at least 2x SGLang's streaming Hermes detector on the same text; on hostile
input both columns are printed at 50 KB and 100 KB (and ours alone at 0.5 MB and 1 MB): ours must stay linear.

Timing on a shared machine: each figure is the best of several rounds, the columns of a row take turns within each
round (so a burst of load hits them alike), and every goal is judged on CPU time (`time.process_time`), printed beside
the wall-clock figure: time spent waiting for a core is the machine's load, not the parser's cost.
"""
import json, logging, random, re, time
from toolcall_lib.parse import MAX_CALLS, parse_tool_calls, ToolCallStreamParser

logging.getLogger('llm_router_utils').setLevel(logging.CRITICAL)   # SGLang logs every call to a tool it was not given

SGLANG_HINT = ('SGLang column skipped: llm-router-utils is not importable. To add it: '
               'pip install --no-deps llm-router-utils && pip install orjson partial-json-parser msgspec jinja2 openai')

def sglang_detector(parser_name:str):
    "A fresh SGLang detector for `parser_name` (its registry name), or None without the package (or that name)."
    try: from llm_router_utils.sglang.srt.function_call.function_call_parser import FunctionCallParser
    except ImportError: return None
    detector_class = FunctionCallParser.ToolCallParserEnum.get(parser_name)
    return detector_class() if detector_class is not None else None

def sglang_tools(tools):
    "`tools` (OpenAI-shaped dicts) as SGLang's `Tool` objects; SGLang needs a list, so 'a' stands in when there is none."
    from llm_router_utils.sglang.srt.entrypoints.openai.protocol import Tool
    tools = tools or [{'type': 'function', 'function': {'name': 'a', 'parameters': {'type': 'object', 'properties': {'x': {'type': 'string'}}}}}]
    return [Tool(**tool) for tool in tools]

def sglang_parse(parser_name:str, text:str, tools):
    "One-shot parse with SGLang's detector."
    return sglang_detector(parser_name).detect_and_parse(text, tools)

def sglang_stream(parser_name:str, text:str, chunk:int, tools):
    "Feed `text` to a fresh SGLang detector in pieces of `chunk` characters."
    detector = sglang_detector(parser_name)
    for start in range(0, len(text), chunk): detector.parse_streaming_increment(text[start:start + chunk], tools)

def best_time(function, repeat:int, number:int=1) -> float:
    "Best wall-clock seconds per call over `repeat` rounds of `number` calls."
    return best_times({'f': function}, repeat, number)['f'][0]

def best_times(functions:dict, repeat:int, number:int=1) -> dict:
    """name -> (best wall-clock seconds, best CPU seconds) per call over `repeat` rounds of `number` calls, the functions
    taking turns within each round: on a shared machine a burst of load then hits every column alike, not just one.
    CPU time (`time.process_time`) leaves out the time the process waited for a core; the goals are judged on it."""
    best = {name: [float('inf'), float('inf')] for name in functions}
    for _ in range(repeat):
        for name, function in functions.items():
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(number): function()
            wall, cpu = (time.perf_counter() - wall) / number, (time.process_time() - cpu) / number
            best[name] = [min(best[name][0], wall), min(best[name][1], cpu)]
    return {name: tuple(times) for name, times in best.items()}

TOOLS = [{'type': 'function', 'function': {'name': name, 'parameters': {'type': 'object', 'properties': {
    'path': {'type': 'string'}, 'recursive': {'type': 'boolean'}, 'max_results': {'type': 'integer'}, 'patterns': {'type': 'array'}}}}}
    for name in ('search_files', 'read_file', 'write_file', 'list_dir', 'run_tests', 'get_weather', 'get_time', 'send_email')]

def stream(text:str, chunk:int, tools=None):
    "Feed `text` to a fresh stream parser in pieces of `chunk` characters, then close it."
    parser = ToolCallStreamParser(tools)
    for start in range(0, len(text), chunk): parser.feed(text[start:start + chunk])
    parser.close()

def hermes_message(size:int) -> tuple:
    "A Hermes message of about `size` characters: prose, then one <tool_call> whose arguments fill the rest."
    words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu'.split()
    arguments = {'path': 'src/app/main.py', 'recursive': True, 'max_results': 25, 'patterns': []}
    payload = json.dumps({'name': 'search_files', 'arguments': arguments})
    while len(payload) < size - 80:
        arguments['patterns'].append({'glob': '*.' + words[len(arguments['patterns']) % len(words)], 'weight': 0.5})
        payload = json.dumps({'name': 'search_files', 'arguments': arguments})
    return f'I will search the project first.\n<tool_call>\n{payload}\n</tool_call>', payload

def prose(size:int) -> str:
    "Ordinary answer text with Markdown: parentheses, inline code, links, lists; no tool calls."
    paragraph = ('The parser walks the text once (left to right) and hands each format to a small reader. '
                 'See [the docs](https://example.org/docs) or run `pytest -q` for details; numbers like 3.14 and '
                 'lists such as:\n- one item, with a comma\n- another item (with notes)\n\n')
    return (paragraph * (size // len(paragraph) + 1))[:size]

def filled(unit:str, count:int, size:int) -> str:
    "`count` copies of `unit`, each padded with prose so the whole is `size` characters."
    piece = unit + ('and then some words ' * 20)[:max(0, size // count - len(unit))]
    return (piece * count)[:size]

def hermes_long_string(size:int) -> tuple:
    "A Hermes message of `size` characters whose arguments are one long string: json.loads is at its cheapest."
    head, tail = 'Writing the file.\n<tool_call>\n', '\n</tool_call>'
    empty = json.dumps({'name': 'write_file', 'arguments': {'path': 'notes.txt', 'content': ''}})
    fill = size - len(head) - len(tail) - len(empty)
    content = ('the quick brown fox jumps over the lazy dog ' * (fill // 44 + 1))[:fill]
    payload = json.dumps({'name': 'write_file', 'arguments': {'path': 'notes.txt', 'content': content}})
    return head + payload + tail, payload

def chat_short_calls(size:int) -> str:
    "Chat text with a short Hermes call after every ~1.5 KB of prose, about `size` characters."
    call = '<tool_call>\n{"name": "get_weather", "arguments": {"path": "Paris"}}\n</tool_call>'
    piece = prose(1_500) + call + '\n'
    return piece * max(1, size // len(piece))

def chat(size:int) -> str:
    "Chat text with calls: paragraphs of prose, each followed by a 1 KB Hermes call, about `size` characters."
    message = hermes_message(1_000)[0]
    piece = prose(2_000) + message + '\n'
    return piece * max(1, size // len(piece))

# Hostile shapes: (name, repeated unit, SGLang parser name or None when SGLang has no detector for that format).
HOSTILE = [('unclosed <tool_call> tags', '<tool_call>', 'hermes'),
           ('"{" openers (key: value)', '{"k": ', 'hermes'),
           ('mentions of tool_calls', 'The reply carries "tool_calls": [] and a tool_calls field. ', 'hermes'),
           ('unclosed <seed:tool_call>', '<seed:tool_call><function=a><parameter=x>', None),
           ('bare <function=...> spam', '<function=a>{"x": ', None),
           ('Functionary >>> spam', '>>>a\n{"x": [', None),
           ('Command R Action: spam', 'Action: ```json\n[{"tool_name": ', None),
           ('Harmony to= spam', ' to=functions.a<|channel|>', 'gpt-oss'),
           ('name-then-parameters spam', '<function_call>a</function_call><function parameter name="x">', None),
           ('unclosed CDATA values', '<tool_call><invoke name="a"><parameter name="x"><![CDATA[', None),
           ('DSML without bars', '<DSMLtool_calls><DSMLinvoke name="a"><DSMLparameter name="x" string="false">{', None),
           ('Step-3 / DeepSeek tokens', '<｜tool_calls_begin｜><steptml:invoke name="a"><｜tool▁calls｜>function<｜tool▁sep｜>', 'step3'),
           ('keyless objects in a call', '<tool_call>{"name": "a", "arguments": {"x": {"y": 1}, {', 'hermes'),
           ('unclosed Qwen3-Coder call', '<tool_call>\n<function=a>\n<parameter=x>\n', 'qwen3_coder'),
           ('unclosed GLM-4.5 call', '<tool_call>a\n<arg_key>x</arg_key>\n<arg_value>', 'glm45'),
           ('unclosed Kimi K2 call', '<|tool_calls_section_begin|><|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{"x": ', 'kimi_k2'),
           ('Pythonic spam', '[a(x=1), a(y=', 'pythonic'),
           ('DeepSeek V4.1 spaced DSML', '<｜DSML｜ calls><｜DSML｜ invoke name="a"><｜DSML｜ parameter name="x" string="false">{', 'deepseekv41'),
           ('GigaChat 3.5 GCML', '<｜GCML｜tool_calls><｜GCML｜invoke name="a"><｜GCML｜parameter name="x" string="true">', 'gigachat35'),
           ('Hunyuan :opensource tags', '<tool_calls:opensource><tool_call:opensource>a<tool_sep:opensource><arg_key:opensource>x</arg_key:opensource><arg_value:opensource>', 'hunyuan'),
           ('IQuest Q1 calls', '<iquest_tool_call>a<arg_key>x</arg_key><arg_value>', 'iquest_q1'),
           ('K2 Horizon calls', '<ifm|tool_calls><ifm|tool_call>a<ifm|arg_key>x</ifm|arg_key><ifm|arg_value>', 'k2_horizon'),
           ('Kimi K3 XTML', '<|open|>tools<|sep|><|open|>call tool="a" index="1"<|sep|><|open|>argument key="x" type="object"<|sep|>{', 'kimi_k3'),
           ('MiniCPM 5 params', '<function name="a"><param name="x">', 'minicpm5'),
           ('MiniMax M3 elements', ']<]minimax[>[<tool_call>]<]minimax[>[<invoke name="a">]<]minimax[>[<x>', 'minimax-m3'),
           ('Muse Glimmer channels', ' to=a<|message|><atem:function_calls><atem:invoke name="a"><atem:parameter name="x">', 'muse'),
           ('Gemma 4 strings', '<|tool_call>call:a{x:<|"|>', 'gemma4'),
           ('Gemma 4 nesting', '<|tool_call>call:a{x:{y:[{z:', 'gemma4'),
           # the formats of the serving engines (issue 12)
           ('FunctionGemma strings', '<start_function_call>call:a{x:<escape>', None),
           ('unclosed LongCat calls', '<longcat_tool_call>{"name": "a", "arguments": {"x": ', None),
           ('CWM tool blocks', '<tool: a>\n{"x": ', None),
           ('Olmo 3 call lines', '<function_calls>a(x=1)\nb(y=[', None),
           ('MiniCPM 3 fenced calls', '<|tool_call_start|>```python\na(x=1)\nb(y=', None),
           ('MiniMax-M1 JSON lines', '<tool_calls>\n{"name": "a", "arguments": {"x": 1}}\n{"name": ', None),
           ('Llama 4 python tokens', '<|python_start|>[a(x=', None),
           ('GigaChat 3 call headers', '<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "a", "arguments": {"x": ', 'gigachat3'),
           ('Solar Open 2 arguments', '<|tool_call:start|>a\n<|tool_arg:start|>x<|tool_arg:value|>', None),
           ('Cohere actions', '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "a", "parameters": {', 'cohere_command4'),
           ('dots invokes', '<dots_function_call><invoke name="a"><parameter name="x">', 'dots'),
           ('Nemotron TOOLCALL', '<TOOLCALL>[{"name": "a", "arguments": {"x": ', None),
           ('PLaMo 3 requests', '<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>a'
                                '<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>{', None),
           ('Inkling blocks', '<|message_model|>a<|content_invoke_tool_json|>{"name": "a", "args": {', 'inkling'),
           ('Qwen2.5-Coder <tools>', '<tools>\n{"name": "a", "arguments": {"x": ', None),
           ('TeleChat 4 param keys', '<tool_call>a<param_key>x</param_key><param_value>', None),
           ('a name then JSON in <tool_call>', '<tool_call>function\na\n{"x": [', None),
           ('Step DeepResearch toolcalls', '<steptml:toolcall><steptml:invoke name="a"><steptml:parameter name="x">', None),
           ('reasoning markers', '[THINK]<thinking><|channel>thought[/THINK]', None),
           ('llama.cpp generic objects', '{"tool_call": {"name": "a", "arguments": {"x": ', None),
           ('raw Python after <|python_tag|>', '<|python_tag|>x = [', None),
           ('raw Python after >>>python', '>>>python\nx = (', None),
           ('RWKV tool-call labels', '**Tool Call:**\n```json\n{"name": "a", "arguments": {', None),
           ('Solar Open 100B calls', '<|tool_call:begin|>0<|tool_call:name|>a<|tool_call:args|>{"x": [', None)]

# The hostile section of nbs/03_parse/02_core.ipynb, each shape as pure repetition (no prose between copies): (name,
# prefix, repeated unit, suffix). Issue 27: each under 0.5 s of CPU at 1 MB, and at most 2.2x the time of 0.5 MB.
HOSTILE_REPEATED = [
    ('<tool_call>', '', '<tool_call>', ''), ('{', '', '{', ''), ('unterminated string', '{"a": "', 'x', ''),
    ('tool_calls words', '', 'tool_calls ', ''), ('[{', '', '[{', ''), ('{"', '', '{"', ''),
    ('<tool_call> of "{ "', '', '<tool_call>' + '{ ' * 3_000 + '</tool_call>', ''),
    ('<tool_call> of "x, "', '', '<tool_call>{"a": ' + 'x, ' * 2_600 + '</tool_call>', ''),
    ('Seed-OSS openers', '', '<seed:tool_call><function=a><parameter=x>', ''), ('>>>a {', '', '>>>a\n{', ''),
    ('Action: ```json [', '', 'Action: ```json\n[', ''), ('DSML invokes', '', '<DSMLtool_calls><DSMLinvoke name="a">', ''),
    ('to=functions', '', ' to=functions.a<|channel|>', ''), ('<![CDATA[', '', '<![CDATA[', ''),
    ('name-then-parameters', '', '<function_call>a</function_call><function parameter name="x">', ''),
    ('<tool name><x>', '', '<tool name="a"><x>', ''),
    ('spaced DSML', '', '<｜DSML｜ calls><｜DSML｜ invoke name="a"><｜DSML｜ parameter name="x" string="false">{', ''),
    ('GCML invokes', '', '<｜GCML｜tool_calls><｜GCML｜invoke name="a">', ''),
    (':opensource tags', '', '<tool_calls:opensource><tool_call:opensource>a<arg_key:opensource>', ''),
    ('IQuest arg keys', '', '<iquest_tool_call>a<arg_key>', ''), ('ifm| tags', '', '<ifm|tool_calls><ifm|tool_call>a<ifm|arg_key>', ''),
    ('Kimi K3 XTML', '', '<|open|>tools<|sep|><|open|>call tool="a"<|sep|><|open|>argument key="x" type="object"<|sep|>{', ''),
    ('<function><param>', '', '<function name="a"><param name="x">', ''),
    ('MiniMax M3 elements', '', ']<]minimax[>[<tool_call>]<]minimax[>[<invoke name="a"><x>', ''),
    ('Muse channels', '', ' to=a<|message|><atem:function_calls><atem:invoke name="a">', ''), (' to=a', '', ' to=a', ''),
    ('Gemma 4 strings', '', '<|tool_call>call:a{x:<|"|>', ''), ('Gemma 4 nesting', '<|tool_call>call:a', '{x:', ''),
    ("[a(x='", '', "[a(x='\n", ''), ('FunctionGemma strings', '', '<start_function_call>call:a{x:<escape>', ''),
    ('CWM tool blocks', '', '<tool: a>\n{"x": ', ''), ('Olmo 3 call lines', '', '<function_calls>a(x=1)\nb(y=[', ''),
    ('MiniMax-M1 JSON lines', '', '<tool_calls>\n{"name": "a", "arguments": {}}\n{"name": ', ''),
    ('Solar Open 2 arguments', '', '<|tool_call:start|>a\n<|tool_arg:start|>x<|tool_arg:value|>', ''),
    ('Inkling blocks', '', '<|message_model|>a<|content_invoke_tool_json|>{"name": "a", "args": {', ''),
    ('Qwen2.5-Coder <tools>', '', '<tools>\n{"name": "a", "arguments": {"x": ', ''),
    ('TeleChat 4 param keys', '', '<tool_call>a<param_key>x</param_key><param_value>', ''),
    ('a name then JSON', '', '<tool_call>function\na\n{"x": [', ''), ('RWKV labels', '', '**Tool Call:**\n```json\n{', ''),
    ('<invoke><parameter>', '', '<invoke name="x"><parameter name="a">', ''),
    ('<tool_call><invoke><parameter>', '', '<tool_call><invoke name="x"><parameter name="a">', ''),
    ('<|end|> then brackets', '', 'a<|end|>', '{' * 450)]

def repeated(prefix:str, unit:str, suffix:str, size:int) -> str:
    "`unit` repeated between `prefix` and `suffix`, about `size` characters in all."
    return prefix + unit * max(1, (size - len(prefix) - len(suffix)) // len(unit)) + suffix

# The same openers with copies that differ (a counter in each): no unit repeats, so every copy is read. Printed for the
# record: it is the scanner's own cost per opener.
HOSTILE_VARIED = [('<tool_call> + counter', lambda number: f'<tool_call>{number}'),
                  ('<invoke><parameter> + counter', lambda number: f'<invoke name="x{number}"><parameter name="a">'),
                  # issue 27's shapes: random names in both tags, and a bare <tool_call> with a random short body
                  ('<invoke><parameter> + random names', lambda number: (lambda draw: f'<invoke name="x{draw.randint(0, 10**9)}">'
                      f'<parameter name="a{draw.randint(0, 10**9)}">')(random.Random(number))),
                  ('<tool_call> + random "", " ", "x", "{"', lambda number: '<tool_call>' + random.Random(number).choice(['', ' ', 'x', '{'])),
                  ('<tool_call>{"name": + counter', lambda number: f'<tool_call>{{"name": "f{number}", ')]

_NAME_SLOT = re.compile(r'(?<![A-Za-z_])a(?![A-Za-z_])')   # the first lone `a` of a unit: a name or key slot

def numbered(unit:str):
    """`make(number)` for the copies of a repeated hostile shape that differ (issue 27): the counter goes into the unit's
    first name slot (`name="a17"`, `<function=a17>`, `call:a17`), or after the unit when it has none (`<tool_call>17`)."""
    slot = _NAME_SLOT.search(unit)
    if slot is None: return lambda number: f'{unit}{number}'
    head, tail = unit[:slot.end()], unit[slot.end():]
    return lambda number: f'{head}{number}{tail}'

def varied(make, size:int) -> str:
    "`make(0) + make(1) + ...`, about `size` characters."
    parts, total = [], 0
    while total < size: parts.append(make(len(parts))); total += len(parts[-1])
    return ''.join(parts)

def run_hostile_repeated(only:str='') -> list:
    """Each repeated hostile shape at 0.5 MB and 1 MB, one-shot: best CPU time of 3, and the growth between the sizes;
    `only`: just the shapes whose name holds it."""
    rows = []
    shapes = [(name, lambda size, shape=shape: repeated(*shape, size)) for name, *shape in HOSTILE_REPEATED]
    shapes += [(name + ' (varied)', lambda size, make=make: varied(make, size)) for name, make in HOSTILE_VARIED]
    shapes += [(name + ' (numbered)', lambda size, prefix=prefix, make=numbered(unit), suffix=suffix:
                prefix + varied(make, size - len(prefix) - len(suffix)) + suffix) for name, prefix, unit, suffix in HOSTILE_REPEATED]
    for name, make in shapes:
        if only not in name: continue
        half, full = make(500_000), make(1_000_000)
        times = best_times({'half': lambda: parse_tool_calls(half), 'full': lambda: parse_tool_calls(full)}, 3)
        half_cpu, full_cpu = times['half'][1], times['full'][1]
        growth = full_cpu / half_cpu * len(half) / len(full) * 2 if half_cpu else 0.0   # as if exactly doubled
        # where the text holds more than `max_calls` calls, the parser stops at the block that passes it: that row is
        # timed again with no limit, for the record (the goal is judged on what a caller gets by default)
        limited = any('(max_calls)' in refusal.reason for refusal in parse_tool_calls(full).rejected)
        unlimited = best_times({'full': lambda: parse_tool_calls(full, max_calls=None)}, 3)['full'][1] * 1e3 if limited else None
        rows.append({'case': name, 'half_cpu_ms': half_cpu * 1e3, 'full_cpu_ms': full_cpu * 1e3, 'full_ms': times['full'][0] * 1e3,
                     'growth': growth, 'met': full_cpu < 0.5 and growth <= 2.2, 'no_limit_cpu_ms': unlimited})
    return rows

def cases():
    "(name, small and large inputs, payload for json.loads of each, goal, tools, SGLang parser name) per benchmark case."
    rows = []
    small, large = hermes_message(1_000), hermes_message(2_000)
    rows.append(('Hermes message, 1 call', [small, large], 'within 10x of json.loads', None, 'hermes'))
    rows.append(('Hermes 1 KB, allow-list', [small, large], 'within 5x of json.loads, < SGLang', TOOLS, 'hermes'))
    rows.append(('Hermes 1 KB long string', [hermes_long_string(1_000), hermes_long_string(2_000)],
                 'within 5x of json.loads, < SGLang', TOOLS, 'hermes'))
    rows.append(('prose, no calls', [(prose(100_000), None), (prose(200_000), None)], '>= 50 MB/s', None, 'hermes'))
    rows.append(('chat with calls', [(chat(100_000), None), (chat(200_000), None)], 'stream/64 >= 20 MB/s, >= 2x SGLang', None, 'hermes'))
    rows.append(('chat, a short call per 1.5 KB', [(chat_short_calls(100_000), None), (chat_short_calls(200_000), None)],
                 'stream/64 >= 20 MB/s, >= 2x SGLang', TOOLS, 'hermes'))
    MB = 1_000_000
    opening = 'Saving.\n<tool_call>{"name": "write_file", "arguments": {"path": "a.txt", "content": "'
    rows.append(('unterminated string', [(opening + prose(MB // 2), None), (opening + prose(MB), None)], '< 0.5 s at 1 MB', None, None))
    for name, unit, _ in HOSTILE:
        rows.append((name, [(filled(unit, 5_000, MB // 2), None), (filled(unit, 10_000, MB), None)], '< 0.5 s at 1 MB', None, None))
    return rows

def run(only:str='') -> list:
    "Measure every case (or those whose name holds `only`) at both sizes; return one dict per measurement."
    results, peer = [], sglang_detector('hermes') is not None
    for name, inputs, goal, tools, sglang_name in cases():
        if only not in name: continue
        peer_tools = sglang_tools(tools or TOOLS) if peer and sglang_name else None   # SGLang drops calls to tools it was not given
        for text, payload in inputs:
            baseline_input = payload if payload is not None else json.dumps(text)
            number = 200 if len(text) < 10_000 else 1
            repeat = 7 if len(text) < 10_000 else 3
            whole = {'parse': lambda: parse_tool_calls(text, tools), 'json': lambda: json.loads(baseline_input),
                     'one_feed': lambda: stream(text, len(text), tools)}
            chunked = {'stream': lambda: stream(text, 64, tools)}
            if peer_tools is not None:
                whole['sglang'] = lambda: sglang_parse(sglang_name, text, peer_tools)
                chunked['sglang_stream'] = lambda: sglang_stream(sglang_name, text, 64, peer_tools)
            timings = best_times(whole, repeat, number) | best_times(chunked, repeat, max(1, number // 10))
            (parse_seconds, parse_cpu), (json_seconds, json_cpu) = timings['parse'], timings['json']
            (stream_seconds, stream_cpu), one_feed_seconds = timings['stream'], timings['one_feed'][0]
            sglang_seconds, sglang_cpu = timings.get('sglang', (None, None))
            sglang_stream_seconds, sglang_stream_cpu = timings.get('sglang_stream', (None, None))
            megabytes_per_second = len(text) / parse_seconds / 1e6
            if goal.startswith('within'):   # goals on CPU time: what the parser costs, whatever else the machine runs
                met = parse_cpu <= int(goal.split()[1][:-1]) * json_cpu
                if 'SGLang' in goal and sglang_cpu is not None: met = met and parse_cpu < sglang_cpu
            elif goal.startswith('stream/64'):
                met = len(text) / stream_cpu / 1e6 >= 20
                if sglang_stream_cpu is not None: met = met and sglang_stream_cpu >= 2 * stream_cpu
            elif goal.startswith('>='): met = len(text) / parse_cpu / 1e6 >= 50
            else: met = parse_cpu < 0.5 or len(text) < 900_000
            results.append({'case': name, 'chars': len(text), 'parse_ms': parse_seconds * 1e3, 'json_loads_ms': json_seconds * 1e3,
                            'parse_cpu_ms': parse_cpu * 1e3, 'json_loads_cpu_ms': json_cpu * 1e3, 'stream_64_cpu_mb_per_s': len(text) / stream_cpu / 1e6,
                            'sglang_cpu_ms': None if sglang_cpu is None else sglang_cpu * 1e3,
                            'ratio': parse_cpu / json_cpu, 'mb_per_s': megabytes_per_second, 'goal': goal, 'met': met,
                            'stream_64_ms': stream_seconds * 1e3, 'stream_64_mb_per_s': len(text) / stream_seconds / 1e6,
                            'stream_one_feed_ms': one_feed_seconds * 1e3,
                            'stream_64_vs_parse': stream_seconds / parse_seconds, 'stream_one_feed_vs_parse': one_feed_seconds / parse_seconds,
                            'sglang_ms': None if sglang_seconds is None else sglang_seconds * 1e3,
                            'sglang_stream_64_ms': None if sglang_stream_seconds is None else sglang_stream_seconds * 1e3,
                            'calls': len(parse_tool_calls(text, tools).calls)})
    return results

PEER_BUDGET = 10.0   # seconds: a peer that takes longer than this at 50 KB is not run at 100 KB

def run_hostile_side_by_side(only:str='') -> list:
    "Each hostile shape at 50 KB and 100 KB, one-shot and streamed in 64-character chunks, ours beside SGLang's detector."
    results = []
    for name, unit, sglang_name in HOSTILE:
        if only not in name or sglang_name is None or sglang_detector(sglang_name) is None: continue
        peer_tools, over_budget = sglang_tools(None), False
        for size in (50_000, 100_000):
            text = filled(unit, size // 100, size)
            ours = best_times({'parse': lambda: parse_tool_calls(text), 'stream': lambda: stream(text, 64)}, 3)
            row = {'case': name, 'chars': len(text), 'parser': sglang_name,
                   'parse_ms': ours['parse'][0] * 1e3, 'parse_cpu_ms': ours['parse'][1] * 1e3,
                   'stream_64_ms': ours['stream'][0] * 1e3, 'stream_64_cpu_ms': ours['stream'][1] * 1e3}
            for key, function in (('sglang_ms', lambda: sglang_parse(sglang_name, text, peer_tools)),
                                  ('sglang_stream_64_ms', lambda: sglang_stream(sglang_name, text, 64, peer_tools))):
                if over_budget: row[key] = None; continue
                try: row[key] = best_time(function, 1) * 1e3
                except Exception as error: row[key] = f'{type(error).__name__}'
                if isinstance(row[key], float) and row[key] > PEER_BUDGET * 1e3: over_budget = True
            results.append(row)
    return results

def _ms(value) -> str:
    if value is None: return '—'
    return value if isinstance(value, str) else f'{value:.1f}' if value >= 100 else f'{value:.3f}'

def print_hostile_repeated(only:str=''):
    "The repeated and varied hostile table; `only`: just the rows whose name holds it."
    print('\nHostile input repeated (the hostile section of nbs/03_parse/02_core.ipynb, each copy right after the last;'
          ' "(varied)" and "(numbered)": each copy differs), one-shot, best of 3')
    print(f'"no limit": the same 1 MB with max_calls=None, where the text holds more than max_calls ({MAX_CALLS}) calls')
    header = (f"{'case':44} {'0.5 MB CPU ms':>14} {'1 MB CPU ms':>12} {'1 MB wall ms':>13} {'growth':>7} {'no limit':>9}"
              f"  goal (CPU at 1 MB, growth)")
    print(header); print('-' * len(header))
    rows = run_hostile_repeated(only)
    for row in rows:
        print(f"{row['case']:44} {row['half_cpu_ms']:>14.1f} {row['full_cpu_ms']:>12.1f} {row['full_ms']:>13.1f} {row['growth']:>6.2f}x"
              f" {_ms(row['no_limit_cpu_ms']):>9}  < 500 ms, <= 2.2x {'ok' if row['met'] else 'MISSED'}")
    return rows

def main(section:str='all', only:str=''):
    """`section`: 'all', 'messages' (the first table, and the side-by-side one with SGLang) or 'hostile' (the repeated
    and varied hostile table); `only`: just the rows whose name holds it."""
    if section == 'hostile': return print_hostile_repeated(only)
    rows = run(only)
    peer = any(row['sglang_ms'] is not None for row in rows)
    header = (f"{'case':28} {'chars':>9} {'parse ms':>10} {'CPU ms':>9} {'json.loads ms':>14} {'CPU ratio':>9} {'MB/s':>7} {'calls':>5}"
              f" {'stream/64 ms':>13} {'MB/s':>6} {'CPU MB/s':>8} {'vs parse':>8} {'1 feed ms':>10} {'vs parse':>8} {'SGLang ms':>10} {'CPU ms':>8}"
              f" {'SGL/64 ms':>10}  goal (judged on CPU time)")
    print(header); print('-' * len(header))
    for row in rows:
        print(f"{row['case']:28} {row['chars']:>9,} {row['parse_ms']:>10.3f} {row['parse_cpu_ms']:>9.3f} {row['json_loads_ms']:>14.3f} {row['ratio']:>8.1f}x "
              f"{row['mb_per_s']:>7.1f} {row['calls']:>5} {row['stream_64_ms']:>13.3f} {row['stream_64_mb_per_s']:>6.1f} {row['stream_64_cpu_mb_per_s']:>8.1f}"
              f" {row['stream_64_vs_parse']:>7.1f}x {row['stream_one_feed_ms']:>10.3f} {row['stream_one_feed_vs_parse']:>7.1f}x {_ms(row['sglang_ms']):>10}"
              f" {_ms(row['sglang_cpu_ms']):>8} {_ms(row['sglang_stream_64_ms']):>10}"
              f"  {row['goal']} {'ok' if row['met'] else 'MISSED'}")
    if section == 'all': print_hostile_repeated(only)
    if not peer:
        print('\n' + SGLANG_HINT)
        return rows
    print('\nHostile input side by side (ours: best of 3, wall and CPU time; SGLang: the detector for that format, one run each;'
          ' "—": over budget at 50 KB)')
    header = (f"{'case':28} {'SGLang parser':>13} {'chars':>8} {'ours ms':>9} {'CPU ms':>8} {'ours /64 ms':>11} {'CPU ms':>8}"
              f" {'SGLang ms':>10} {'SGLang /64 ms':>13}")
    print(header); print('-' * len(header))
    side = run_hostile_side_by_side(only)
    for row in side:
        print(f"{row['case']:28} {row['parser']:>13} {row['chars']:>8,} {row['parse_ms']:>9.2f} {row['parse_cpu_ms']:>8.2f}"
              f" {row['stream_64_ms']:>11.2f} {row['stream_64_cpu_ms']:>8.2f} "
              f"{_ms(row['sglang_ms']):>10} {_ms(row['sglang_stream_64_ms']):>13}")
    return rows, side

if __name__ == '__main__':
    import sys
    main(*sys.argv[1:3])
