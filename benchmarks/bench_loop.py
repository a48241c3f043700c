"""Assembling streamed replies with `collect_stream`, beside the SDKs' own stream accumulators in the same run.

A long streamed reply (two parallel tool calls whose argument JSON arrives 5 characters at a time, about 800
events) is assembled:
- OpenAI Chat Completions chunks: `collect_stream` over dicts, and over the SDK's `ChatCompletionChunk`
  objects (which it dumps to dicts first), beside `openai.lib.streaming.chat.ChatCompletionStreamState`;
- Anthropic events: `collect_stream` over dicts and over SDK event objects, beside the SDK's
  `accumulate_event` (what `client.messages.stream()` uses).
Figures are the best of several interleaved rounds, in microseconds per event; the ratio is ours / the SDK's.

And `Chat.stream` (sync) and `Chat.astream` (async) yielding their events for a long streamed answer (the local fake
provider's `long:N`, over HTTP, through the openai SDK), beside iterating the SDK's own stream of the same answer in
the same run: microseconds per SDK event, both including the HTTP and SSE work they share.

Run: python benchmarks/bench_loop.py"""
import json, time
from toolcall_lib.loop import collect_stream

ARGUMENTS = [json.dumps({'city': f'City number {n}', 'notes': 'x' * 2000}) for n in range(2)]

def openai_chunks() -> list:
    "A Chat Completions stream: two calls, their arguments interleaved in 5-character pieces."
    def chunk(delta, finish=None):
        return {'id': 'c', 'object': 'chat.completion.chunk', 'created': 1, 'model': 'm',
                'choices': [{'index': 0, 'delta': delta, 'finish_reason': finish}]}
    events = [chunk({'role': 'assistant', 'content': ''})]
    events += [chunk({'tool_calls': [{'index': n, 'id': f'call_{n}', 'type': 'function', 'function': {'name': 'get_weather', 'arguments': ''}}]})
               for n in range(2)]
    pieces = [[text[i:i + 5] for i in range(0, len(text), 5)] for text in ARGUMENTS]
    for step in range(max(map(len, pieces))):
        for n, own in enumerate(pieces):
            if step < len(own): events.append(chunk({'tool_calls': [{'index': n, 'function': {'arguments': own[step]}}]}))
    return events + [chunk({}, 'tool_calls')]

def anthropic_events() -> list:
    "A Messages stream: two tool_use blocks whose input JSON arrives in 5-character pieces."
    events = [{'type': 'message_start', 'message': {'id': 'm', 'type': 'message', 'role': 'assistant', 'model': 'm', 'content': [],
                                                    'stop_reason': None, 'stop_sequence': None, 'usage': {'input_tokens': 1, 'output_tokens': 1}}}]
    for n, text in enumerate(ARGUMENTS):
        events.append({'type': 'content_block_start', 'index': n, 'content_block': {'type': 'tool_use', 'id': f't{n}', 'name': 'get_weather', 'input': {}}})
        events += [{'type': 'content_block_delta', 'index': n, 'delta': {'type': 'input_json_delta', 'partial_json': text[i:i + 5]}}
                   for i in range(0, len(text), 5)]
        events.append({'type': 'content_block_stop', 'index': n})
    return events + [{'type': 'message_delta', 'delta': {'stop_reason': 'tool_use', 'stop_sequence': None}, 'usage': {'output_tokens': 9}},
                     {'type': 'message_stop'}]

def best_us_per_event(action, events:int, rounds:int) -> float:
    best = float('inf')
    for _ in range(rounds):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best / events * 1e6

def run(rounds:int=7) -> list:
    "One row per stream: ours over dicts and over SDK objects, the SDK's accumulator, and the ratios."
    from openai.types.chat import ChatCompletionChunk
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from anthropic.types import RawMessageStreamEvent
    from anthropic.lib.streaming._messages import accumulate_event
    from pydantic import TypeAdapter
    rows = []

    chunks = openai_chunks()
    chunk_objects = [ChatCompletionChunk.model_validate(chunk) for chunk in chunks]
    def openai_sdk():
        state = ChatCompletionStreamState()
        for chunk in chunk_objects: state.handle_chunk(chunk)
        return state.get_final_completion()
    ours = collect_stream(chunks)['choices'][0]['message']['tool_calls']
    theirs = openai_sdk().choices[0].message.tool_calls
    assert [call['function']['arguments'] for call in ours] == [call.function.arguments for call in theirs] == ARGUMENTS
    rows.append(_row('OpenAI chat chunks', len(chunks), rounds, lambda: collect_stream(chunks),
                     lambda: collect_stream(chunk_objects), openai_sdk, 'ChatCompletionStreamState'))

    events = anthropic_events()
    event_objects = [TypeAdapter(RawMessageStreamEvent).validate_python(event) for event in events]
    def anthropic_sdk():
        snapshot, buffers = None, {}
        for event in event_objects: snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
        return snapshot
    assert [block['input'] for block in collect_stream(events)['content']] == [block.input for block in anthropic_sdk().content] \
        == [json.loads(text) for text in ARGUMENTS]
    rows.append(_row('Anthropic events', len(events), rounds, lambda: collect_stream(events),
                     lambda: collect_stream(event_objects), anthropic_sdk, 'accumulate_event'))
    return rows

def _row(case, events, rounds, ours_dicts, ours_objects, sdk, sdk_name) -> dict:
    timings = {'dicts': float('inf'), 'objects': float('inf'), 'sdk': float('inf')}
    for _ in range(rounds):   # interleaved, so all three see the same machine load
        for key, action in (('dicts', ours_dicts), ('objects', ours_objects), ('sdk', sdk)):
            timings[key] = min(timings[key], best_us_per_event(action, events, 1))
    return dict(case=case, events=events, ours_dicts_us=round(timings['dicts'], 3), ours_objects_us=round(timings['objects'], 3),
                sdk_us=round(timings['sdk'], 3), sdk=sdk_name, ratio_dicts=round(timings['dicts'] / timings['sdk'], 2),
                ratio_objects=round(timings['objects'] / timings['sdk'], 2))

def stream_rows(rounds:int=5, words:int=1500) -> list:
    "`Chat.stream` and `Chat.astream` beside iterating the openai SDK's stream, same answer, same run; µs per SDK event."
    import asyncio, sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent/'examples'))
    from fake_provider import FakeProvider
    from openai import AsyncOpenAI, OpenAI
    from toolcall_lib.loop import Chat
    prompt, asked = f'long:{words}', [{'role': 'user', 'content': f'long:{words}'}]
    with FakeProvider() as server:
        client = OpenAI(base_url=server.openai_url, api_key='test', max_retries=0)
        def sdk(): return sum(1 for _ in client.chat.completions.create(model='m', messages=asked, stream=True))
        def ours(): return sum(1 for _ in Chat(client, [], model='m').stream(prompt))
        async def async_sdk():
            aclient = AsyncOpenAI(base_url=server.openai_url, api_key='test', max_retries=0)
            return sum([1 async for _ in await aclient.chat.completions.create(model='m', messages=asked, stream=True)])
        async def async_ours():
            aclient = AsyncOpenAI(base_url=server.openai_url, api_key='test', max_retries=0)
            return sum([1 async for _ in Chat(aclient, [], model='m').astream(prompt)])
        events = sdk()
        cases = {'sdk': sdk, 'ours': ours, 'async_sdk': lambda: asyncio.run(async_sdk()), 'async_ours': lambda: asyncio.run(async_ours())}
        timings = dict.fromkeys(cases, float('inf'))
        for _ in range(rounds):   # interleaved, so all four see the same machine load
            for key, action in cases.items(): timings[key] = min(timings[key], best_us_per_event(action, events, 1))
    return [dict(kind='stream', case=f'Chat.{name} ({events} SDK events)', events=events, ours_us=round(timings[ours_key], 2),
                 sdk_us=round(timings[sdk_key], 2), overhead_us=round(timings[ours_key] - timings[sdk_key], 2),
                 ratio=round(timings[ours_key] / timings[sdk_key], 2), sdk=sdk_name)
            for name, ours_key, sdk_key, sdk_name in (('stream', 'ours', 'sdk', 'for chunk in OpenAI stream'),
                                                      ('astream', 'async_ours', 'async_sdk', 'async for chunk in AsyncOpenAI stream'))]

def main(rounds:int=7) -> list: return run(rounds) + stream_rows()

if __name__ == '__main__':
    print(f"{'stream':22} {'events':>7} {'ours, dicts':>12} {'ours, SDK objects':>18} {'SDK accumulator':>16}  {'ratios (dicts, objects)':>24}")
    for r in run():
        print(f"{r['case']:22} {r['events']:7} {r['ours_dicts_us']:10.2f}µs {r['ours_objects_us']:16.2f}µs {r['sdk_us']:14.2f}µs"
              f"  {r['ratio_dicts']:>11} {r['ratio_objects']:>11}   ({r['sdk']})")
    print('µs per event, best of interleaved rounds; ratio = ours / the SDK accumulator, measured in the same run')
    print()
    for r in stream_rows():
        print(f"{r['case']:34} {r['ours_us']:8.2f}µs/event  SDK alone {r['sdk_us']:8.2f}µs/event  overhead {r['overhead_us']:6.2f}µs"
              f"  ratio {r['ratio']} (goal <= 2)   ({r['sdk']})")
