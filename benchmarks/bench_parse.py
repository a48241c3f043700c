"""Benchmark toolcall_lib.parse against json.loads on the same bytes, at two sizes per case.

Run: python benchmarks/bench_parse.py

Baseline: `json.loads` of the same payload in the same run. For the Hermes message that is the JSON inside the
<tool_call> tags (what any parser must at least decode); for the other inputs, which hold no valid call, it is
`json.loads` of the whole text written as a JSON string literal: one C-speed pass over the same characters.
Each case runs at two sizes: if time grows by ~2x when the input doubles, work is linear.
The same text is also streamed through `ToolCallStreamParser`, in 64-character chunks and in one single chunk, with
the one-shot parse as its peer: both must stay linear too (a stream never re-reads its whole buffer per chunk, and
one large chunk costs no more per segment than one-shot parsing).
Goals (issues 5 and 12): prose >= 50 MB/s; the 1 KB Hermes message within 10x of json.loads on its payload, and
within 5x with an allow-list of tool schemas (the policy built from `tools=` is cached per list); chat text with
calls streamed in 64-character chunks >= 20 MB/s; every 1 MB adversarial input under 0.5 s, for every family's
opener (the table grew: Seed-OSS, Step-3, Functionary, Command R, the seed's XML styles each get a hostile shape).
"""
import json, time
from toolcall_lib.parse import parse_tool_calls, ToolCallStreamParser

def best_time(function, repeat:int, number:int=1) -> float:
    "Best wall-clock seconds per call over `repeat` rounds of `number` calls."
    best = float('inf')
    for _ in range(repeat):
        started = time.perf_counter()
        for _ in range(number): function()
        best = min(best, (time.perf_counter() - started) / number)
    return best

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

def chat(size:int) -> str:
    "Chat text with calls: paragraphs of prose, each followed by a 1 KB Hermes call, about `size` characters."
    message = hermes_message(1_000)[0]
    piece = prose(2_000) + message + '\n'
    return piece * max(1, size // len(piece))

def cases():
    "(name, small and large inputs, payload for json.loads of each, goal, tools) per benchmark case."
    rows = []
    small, large = hermes_message(1_000), hermes_message(2_000)
    rows.append(('Hermes message, 1 call', [small, large], 'within 10x of json.loads'))
    rows.append(('Hermes 1 KB, allow-list', [small, large], 'within 5x of json.loads', TOOLS))
    rows.append(('prose, no calls', [(prose(100_000), None), (prose(200_000), None)], '>= 50 MB/s'))
    rows.append(('chat with calls', [(chat(100_000), None), (chat(200_000), None)], 'stream/64 >= 20 MB/s'))
    MB = 1_000_000
    rows.append(('unclosed <tool_call> tags', [(filled('<tool_call>', 5_000, MB // 2), None), (filled('<tool_call>', 10_000, MB), None)], '< 0.5 s at 1 MB'))
    rows.append(('"{" openers (key: value)', [(filled('{"k": ', 25_000, MB // 2), None), (filled('{"k": ', 50_000, MB), None)], '< 0.5 s at 1 MB'))
    opening = 'Saving.\n<tool_call>{"name": "write_file", "arguments": {"path": "a.txt", "content": "'
    rows.append(('unterminated string', [(opening + prose(MB // 2), None), (opening + prose(MB), None)], '< 0.5 s at 1 MB'))
    mention = 'The reply carries "tool_calls": [] and a tool_calls field. '
    rows.append(('mentions of tool_calls', [(filled(mention, 5_000, MB // 2), None), (filled(mention, 10_000, MB), None)], '< 0.5 s at 1 MB'))
    for name, unit in (('unclosed <seed:tool_call>', '<seed:tool_call><function=a><parameter=x>'),
                       ('bare <function=...> spam', '<function=a>{"x": '),
                       ('Functionary >>> spam', '>>>a\n{"x": ['),
                       ('Command R Action: spam', 'Action: ```json\n[{"tool_name": '),
                       ('Harmony to= spam', ' to=functions.a<|channel|>'),
                       ('name-then-parameters spam', '<function_call>a</function_call><function parameter name="x">'),
                       ('unclosed CDATA values', '<tool_call><invoke name="a"><parameter name="x"><![CDATA['),
                       ('DSML without bars', '<DSMLtool_calls><DSMLinvoke name="a"><DSMLparameter name="x" string="false">{'),
                       ('Step-3 / DeepSeek tokens', '<｜tool_calls_begin｜><steptml:invoke name="a"><｜tool▁calls｜>function<｜tool▁sep｜>'),
                       ('keyless objects in a call', '<tool_call>{"name": "a", "arguments": {"x": {"y": 1}, {')):
        rows.append((name, [(filled(unit, 5_000, MB // 2), None), (filled(unit, 10_000, MB), None)], '< 0.5 s at 1 MB'))
    return rows

def run() -> list:
    "Measure every case at both sizes; return one dict per measurement."
    results = []
    for name, inputs, goal, *extra in cases():
        tools = extra[0] if extra else None
        for text, payload in inputs:
            baseline_input = payload if payload is not None else json.dumps(text)
            number = 200 if len(text) < 10_000 else 1
            repeat = 7 if len(text) < 10_000 else 3
            parse_seconds = best_time(lambda: parse_tool_calls(text, tools), repeat, number)
            json_seconds = best_time(lambda: json.loads(baseline_input), repeat, number)
            stream_seconds = best_time(lambda: stream(text, 64, tools), repeat, max(1, number // 10))
            one_feed_seconds = best_time(lambda: stream(text, len(text), tools), repeat, number)
            megabytes_per_second = len(text) / parse_seconds / 1e6
            if goal.startswith('within'): met = parse_seconds <= int(goal.split()[1][:-1]) * json_seconds
            elif goal.startswith('stream/64'): met = len(text) / stream_seconds / 1e6 >= 20
            elif goal.startswith('>='): met = megabytes_per_second >= 50
            else: met = parse_seconds < 0.5 or len(text) < 900_000
            results.append({'case': name, 'chars': len(text), 'parse_ms': parse_seconds * 1e3, 'json_loads_ms': json_seconds * 1e3,
                            'ratio': parse_seconds / json_seconds, 'mb_per_s': megabytes_per_second, 'goal': goal, 'met': met,
                            'stream_64_ms': stream_seconds * 1e3, 'stream_64_mb_per_s': len(text) / stream_seconds / 1e6,
                            'stream_one_feed_ms': one_feed_seconds * 1e3,
                            'stream_64_vs_parse': stream_seconds / parse_seconds, 'stream_one_feed_vs_parse': one_feed_seconds / parse_seconds,
                            'calls': len(parse_tool_calls(text, tools).calls)})
    return results

def main():
    rows = run()
    header = (f"{'case':28} {'chars':>9} {'parse ms':>10} {'json.loads ms':>14} {'ratio':>7} {'MB/s':>7} {'calls':>5}"
              f" {'stream/64 ms':>13} {'MB/s':>6} {'vs parse':>8} {'1 feed ms':>10} {'vs parse':>8}  goal")
    print(header); print('-' * len(header))
    for row in rows:
        print(f"{row['case']:28} {row['chars']:>9,} {row['parse_ms']:>10.3f} {row['json_loads_ms']:>14.3f} {row['ratio']:>6.1f}x "
              f"{row['mb_per_s']:>7.1f} {row['calls']:>5} {row['stream_64_ms']:>13.3f} {row['stream_64_mb_per_s']:>6.1f} {row['stream_64_vs_parse']:>7.1f}x "
              f"{row['stream_one_feed_ms']:>10.3f} {row['stream_one_feed_vs_parse']:>7.1f}x  {row['goal']} {'ok' if row['met'] else 'MISSED'}")
    return rows

if __name__ == '__main__': main()
