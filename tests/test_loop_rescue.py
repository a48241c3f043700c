"""Rescue of tool calls a server left in a reply's text, and repair of broken argument JSON, with the real openai,
anthropic and google-genai clients against examples/fake_provider.py. The fake refuses (HTTP 400), as the real APIs
do, a tool result that answers no call the provider issued: the rescued results must come back in a shape it accepts."""
import asyncio, json, sys
from pathlib import Path
import pytest

from sdk_clients import CASES, IDS, get_weather, make_client, server, openai, anthropic, genai  # noqa: F401 (server: a fixture)
from toolcall_lib.loop import Chat, run_tools


FORMATS = ['hermes', 'qwen3_coder', 'mistral']

@pytest.mark.parametrize('stream', [False, True], ids=['json', 'sse'])
@pytest.mark.parametrize('leak', FORMATS)
@pytest.mark.parametrize('family,api', CASES, ids=IDS)
def test_a_leaked_call_is_rescued_and_its_result_accepted(server, family, api, leak, stream):
    steps = []
    chat = Chat(make_client(server, family), [get_weather], model='test-model', api=api, stream=stream,
                on_step=lambda step: steps.append((step.kind, getattr(step.data, 'rescued_from', None))))
    answer = chat(f'Weather in Paris and Lima? leak:{leak}')
    assert answer.startswith('Results: ') and 'Sunny in Paris' in answer and 'Sunny in Lima' in answer, answer
    assert [step for step in steps if step[0] == 'rescue'] == [('rescue', leak), ('rescue', leak)]
    assert len(server.requests) >= 2 and 'leak:' in json.dumps(server.requests[-2][1])

def test_the_wrong_answer_is_refused_by_the_fake(server):
    "A tool message for a call the provider never issued is what the real API refuses; the fake does too, so the test above means something."
    client = make_client(server, 'openai')
    with pytest.raises(openai.BadRequestError, match='tool_call_id'):
        client.chat.completions.create(model='m', messages=[
            {'role': 'user', 'content': 'Weather in Paris?'}, {'role': 'assistant', 'content': '<tool_call>{}</tool_call>'},
            {'role': 'tool', 'tool_call_id': 'rescued_0', 'content': 'Sunny'}])

@pytest.mark.parametrize('family,api', CASES, ids=IDS)
def test_with_rescue_off_the_leaked_text_is_the_answer(server, family, api):
    chat = Chat(make_client(server, family), [get_weather], model='test-model', api=api, rescue=False)
    answer = chat('Weather in Paris? leak:hermes')
    assert '<tool_call>' in answer and chat.tool_results == []

@pytest.mark.parametrize('family,api', CASES, ids=IDS)
def test_async_clients_rescue_too(server, family, api):
    chat = Chat(make_client(server, family, is_async=True), [get_weather], model='test-model', api=api)
    assert 'Sunny in Tokyo' in asyncio.run(chat.acall('Weather in Tokyo? leak:qwen3_coder'))

@pytest.mark.parametrize('stream', [False, True], ids=['json', 'sse'])
@pytest.mark.parametrize('api', [None, 'responses'], ids=['chat-completions', 'responses'])
def test_broken_argument_json_is_repaired_and_recorded_canonical(server, api, stream):
    chat = Chat(make_client(server, 'openai'), [get_weather], model='test-model', api=api, stream=stream)
    answer = chat('Weather in Paris? broken-json')
    assert answer == 'Results: Sunny in Paris', answer
    sent = server.requests[-1][1]
    arguments = [call['function']['arguments'] for message in sent.get('messages') or [] for call in message.get('tool_calls') or []]
    arguments += [item['arguments'] for item in sent.get('input') or [] if isinstance(item, dict) and item.get('type') == 'function_call']
    assert arguments == ['{"city": "Paris"}'], arguments   # what went back to the provider is canonical JSON

def test_a_repair_that_does_not_fit_the_schema_is_not_made():
    reply = {'role': 'assistant', 'content': None, 'tool_calls': [
        {'id': 'c1', 'type': 'function', 'function': {'name': 'get_weather', 'arguments': '{"town": "Paris",}'}}]}
    [message] = run_tools(reply, [get_weather])
    assert message['tool_call_id'] == 'c1' and 'Sunny' not in message['content']   # dispatch reports the broken JSON
