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
