"""`collect_stream` property: however a provider cuts a reply into stream events, the assembled reply is the one
the non-streamed API returns (hypothesis chooses the cuts, the texts and the arguments)."""
import json
from hypothesis import given, settings, strategies as st
from toolcall_lib.loop import collect_stream, acollect_stream, extract_calls, reply_text
import asyncio

texts = st.text(st.characters(blacklist_categories=('Cs',)), max_size=40)
arguments = st.dictionaries(st.text(min_size=1, max_size=8), st.one_of(st.integers(), texts, st.booleans(), st.none()), max_size=4)

def cut(text:str, points:list) -> list:
    "`text` cut at the given fractions (sorted, deduplicated positions)."
    positions = sorted({int(p * len(text)) for p in points} | {0, len(text)})
    return [text[a:b] for a, b in zip(positions, positions[1:])] or ['']

cuts = st.lists(st.floats(0, 1), max_size=6)

@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(arguments, cuts), min_size=1, max_size=3), texts, cuts, st.randoms())
def test_openai_chunks_any_cut_any_interleaving(calls, text, text_cuts, random):
    pending = []
    for index, (args, points) in enumerate(calls):
        pieces = cut(json.dumps(args), points)
        pending.append([{'index': index, 'id': f'call_{index}', 'type': 'function', 'function': {'name': f'tool_{index}', 'arguments': pieces[0]}}]
                       + [{'index': index, 'function': {'arguments': piece}} for piece in pieces[1:]])
    events = [{'object': 'chat.completion.chunk', 'choices': [{'index': 0, 'delta': {'content': piece}}]} for piece in cut(text, text_cuts) if piece]
    while any(pending):   # the calls' pieces interleaved at random, each call's own pieces in order
        queue = random.choice([q for q in pending if q])
        events.append({'object': 'chat.completion.chunk', 'choices': [{'index': 0, 'delta': {'tool_calls': [queue.pop(0)]}}]})
    message = collect_stream(events)['choices'][0]['message']
    assert message.get('content') == (text or None)
    assert [(c.name, json.loads(c.arguments), c.call_id) for c in extract_calls(message)] == \
           [(f'tool_{i}', args, f'call_{i}') for i, (args, _) in enumerate(calls)]

@settings(max_examples=150, deadline=None)
@given(arguments, cuts, texts, cuts)
def test_anthropic_events_any_cut(args, points, text, text_points):
    events = [{'type': 'message_start', 'message': {'id': 'm', 'type': 'message', 'role': 'assistant', 'content': []}},
              {'type': 'content_block_start', 'index': 0, 'content_block': {'type': 'text', 'text': ''}}]
    events += [{'type': 'content_block_delta', 'index': 0, 'delta': {'type': 'text_delta', 'text': piece}} for piece in cut(text, text_points)]
    events += [{'type': 'content_block_stop', 'index': 0},
               {'type': 'content_block_start', 'index': 1, 'content_block': {'type': 'tool_use', 'id': 't', 'name': 'tool', 'input': {}}}]
    events += [{'type': 'content_block_delta', 'index': 1, 'delta': {'type': 'input_json_delta', 'partial_json': piece}}
               for piece in cut(json.dumps(args), points)]
    events += [{'type': 'content_block_stop', 'index': 1}, {'type': 'message_stop'}]
    message = collect_stream(events)
    assert message['content'] == [{'type': 'text', 'text': text}, {'type': 'tool_use', 'id': 't', 'name': 'tool', 'input': args}]
    async def stream():
        for event in events: yield event
    assert asyncio.run(acollect_stream(stream())) == message

@settings(max_examples=150, deadline=None)
@given(arguments, cuts, texts, cuts)
def test_responses_events_any_cut_without_the_final_event(args, points, text, text_points):
    events = [{'type': 'response.created', 'response': {'id': 'r', 'object': 'response', 'output': []}},
              {'type': 'response.output_item.added', 'output_index': 0, 'item': {'type': 'message', 'role': 'assistant', 'content': []}},
              {'type': 'response.content_part.added', 'output_index': 0, 'content_index': 0, 'part': {'type': 'output_text', 'text': ''}}]
    events += [{'type': 'response.output_text.delta', 'output_index': 0, 'content_index': 0, 'delta': piece} for piece in cut(text, text_points)]
    events.append({'type': 'response.output_item.added', 'output_index': 1, 'item': {'type': 'function_call', 'call_id': 'c', 'name': 'tool', 'arguments': ''}})
    events += [{'type': 'response.function_call_arguments.delta', 'output_index': 1, 'delta': piece} for piece in cut(json.dumps(args), points)]
    reply = collect_stream(events)
    assert reply_text(reply) == text
    assert [(c.name, json.loads(c.arguments)) for c in extract_calls(reply)] == [('tool', args)]

@settings(max_examples=150, deadline=None)
@given(texts, cuts, arguments)
def test_gemini_chunks_any_cut(text, points, args):
    chunks = [{'candidates': [{'content': {'role': 'model', 'parts': [{'text': piece}]}, 'index': 0}]} for piece in cut(text, points)]
    chunks.append({'candidates': [{'content': {'role': 'model', 'parts': [{'functionCall': {'name': 'tool', 'args': args}}]}, 'index': 0,
                                   'finishReason': 'STOP'}]})
    reply = collect_stream(chunks)
    assert reply['candidates'][0]['content']['parts'] == [{'text': text}, {'functionCall': {'name': 'tool', 'args': args}}]

# A stream damaged on the way (events lost, indexes changed to anything JSON can hold) is assembled or refused with a
# ValueError naming the event: never a KeyError, TypeError or IndexError from inside a collector, never a hang.
json_values = st.recursive(st.none() | st.booleans() | st.integers(-3, 2**40) | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2), max_leaves=4)
INDEX_KEYS = ('index', 'output_index', 'content_index')

def damage(event, data):
    "`event` with its index fields (at any depth) replaced by whatever hypothesis draws."
    if isinstance(event, list): return [damage(item, data) for item in event]
    if not isinstance(event, dict): return event
    return {key: data.draw(json_values | st.integers(0, 3)) if key in INDEX_KEYS and data.draw(st.booleans()) else damage(value, data)
            for key, value in event.items()}

def sample_streams():
    "One whole stream per provider, each with a call whose arguments come in pieces."
    chat = [{'object': 'chat.completion.chunk', 'choices': [{'index': 0, 'delta': {'tool_calls': [
                {'index': 0, 'id': 'c', 'type': 'function', 'function': {'name': 'tool', 'arguments': piece}}]}}]} for piece in ('{"a"', ': 1}')]
    anthropic = [{'type': 'message_start', 'message': {'id': 'm', 'type': 'message', 'role': 'assistant', 'content': []}},
                 {'type': 'content_block_start', 'index': 0, 'content_block': {'type': 'text', 'text': ''}},
                 {'type': 'content_block_delta', 'index': 0, 'delta': {'type': 'text_delta', 'text': 'Hi'}},
                 {'type': 'content_block_stop', 'index': 0},
                 {'type': 'content_block_start', 'index': 1, 'content_block': {'type': 'tool_use', 'id': 't', 'name': 'tool', 'input': {}}},
                 {'type': 'content_block_delta', 'index': 1, 'delta': {'type': 'input_json_delta', 'partial_json': '{"a": 1}'}},
                 {'type': 'content_block_stop', 'index': 1}, {'type': 'message_stop'}]
    responses = [{'type': 'response.created', 'response': {'id': 'r', 'object': 'response', 'output': []}},
                 {'type': 'response.output_item.added', 'output_index': 0, 'item': {'type': 'message', 'role': 'assistant', 'content': []}},
                 {'type': 'response.content_part.added', 'output_index': 0, 'content_index': 0, 'part': {'type': 'output_text', 'text': ''}},
                 {'type': 'response.output_text.delta', 'output_index': 0, 'content_index': 0, 'delta': 'Hi'},
                 {'type': 'response.output_text.done', 'output_index': 0, 'content_index': 0, 'text': 'Hi'},
                 {'type': 'response.output_item.added', 'output_index': 1, 'item': {'type': 'function_call', 'call_id': 'c', 'name': 'tool', 'arguments': ''}},
                 {'type': 'response.function_call_arguments.delta', 'output_index': 1, 'delta': '{"a": 1}'},
                 {'type': 'response.function_call_arguments.done', 'output_index': 1, 'arguments': '{"a": 1}'}]
    gemini = [{'candidates': [{'index': 0, 'content': {'role': 'model', 'parts': [{'text': piece}]}}]} for piece in ('H', 'i')]
    return {'openai': chat, 'anthropic': anthropic, 'openai-responses': responses, 'gemini': gemini}

@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(sample_streams())), st.data())
def test_a_damaged_stream_is_a_value_error_or_a_reply(provider, data):
    events = sample_streams()[provider]
    kept = [event for event in events if data.draw(st.booleans())] or events[:1]
    damaged = [damage(event, data) for event in kept]
    try: collect_stream(damaged, provider)
    except ValueError: pass
    async def stream():
        for event in damaged: yield event
    try: asyncio.run(acollect_stream(stream(), provider))
    except ValueError: pass

def test_an_event_for_a_block_never_opened_names_the_event():
    start = {'type': 'message_start', 'message': {'id': 'm', 'type': 'message', 'role': 'assistant', 'content': []}}
    lost = {'type': 'content_block_delta', 'index': 2, 'delta': {'type': 'text_delta', 'text': 'x'}}
    for run in (lambda: collect_stream([start, lost]), lambda: asyncio.run(acollect_stream(_aiter([start, lost])))):
        try: run()
        except ValueError as error: assert 'content block 2 was never opened' in str(error) and '"content_block_delta"' in str(error), error
        else: raise AssertionError('an event for a block never opened was accepted')

async def _aiter(items):
    for item in items: yield item
