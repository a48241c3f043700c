"""`Chat`, `SDKClient` and `collect_stream` with the real SDK packages (openai, anthropic, google-genai), talking
over HTTP to the scripted provider in examples/fake_provider.py on 127.0.0.1: plain JSON and server-sent events."""
import asyncio, base64, json, sys
from pathlib import Path
import pytest

openai = pytest.importorskip('openai')   # the dev extra installs all three SDKs
anthropic = pytest.importorskip('anthropic')
genai = pytest.importorskip('google.genai')

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT/'examples'))
from fake_provider import FakeProvider
from toolcall_lib.loop import Chat, SDKClient, collect_stream, sdk_provider, RecordingClient, check_recording

PNG = base64.b64decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==')

def get_weather(
    city:str, # City name, e.g. "Paris"
) -> dict: # Temperature and conditions
    "Get today's weather for a city."
    return {'city': city, 'temperature_c': {'Paris': 18.5, 'Tokyo': 24.0, 'Lima': 16.0}[city]}

def snapshot() -> bytes: # A PNG picture
    "Take a snapshot of the weather radar."
    return PNG

@pytest.fixture(scope='module')
def server():
    with FakeProvider() as running: yield running

def make_client(server, family:str, is_async:bool):
    if family == 'openai': return (openai.AsyncOpenAI if is_async else openai.OpenAI)(base_url=server.openai_url, api_key='test', max_retries=0)
    if family == 'anthropic': return (anthropic.AsyncAnthropic if is_async else anthropic.Anthropic)(base_url=server.url, api_key='test', max_retries=0)
    client = genai.Client(api_key='test', http_options={'base_url': server.url})
    return client.aio if is_async else client

CASES = [(family, api) for family, api in [('openai', None), ('openai', 'responses'), ('anthropic', None), ('gemini', None)]]
IDS = ['chat-completions', 'responses', 'anthropic', 'gemini']

def last_body(server) -> dict: return server.requests[-1][1]

@pytest.mark.parametrize('stream', [False, True], ids=['json', 'sse'])
@pytest.mark.parametrize('is_async', [False, True], ids=['sync', 'async'])
@pytest.mark.parametrize('family,api', CASES, ids=IDS)
def test_chat_runs_parallel_calls_through_the_sdk(server, family, api, is_async, stream):
    client = make_client(server, family, is_async)
    chat = Chat(client, [get_weather], model='test-model', api=api, stream=stream)
    question = 'Weather in Paris and Tokyo?'
    answer = asyncio.run(chat.acall(question)) if is_async else chat(question)
    assert answer.startswith('Results: ')
    for city, temperature in (('Paris', 18.5), ('Tokyo', 24.0)): assert f'"city": "{city}"' in answer and str(temperature) in answer
    assert len(chat.tool_results) == 2
    first = server.requests[-2][1]
    assert first.get('stream', False) is stream or family == 'gemini'
    if family == 'gemini': assert server.requests[-1][0].endswith(':streamGenerateContent?alt=sse' if stream else ':generateContent')

@pytest.mark.parametrize('family,api,tool_key', [('openai', None, 'function'), ('openai', 'responses', 'parameters'),
                                                 ('anthropic', None, 'input_schema'), ('gemini', None, 'parametersJsonSchema')], ids=IDS)
def test_the_request_carries_the_rendered_tools_and_system_prompt(server, family, api, tool_key):
    Chat(make_client(server, family, False), [get_weather], model='test-model', api=api, system='Be brief.')('Weather in Lima?')
    body = server.requests[-2][1]
    tools = body['tools'] if family != 'gemini' else body['tools'][0]['functionDeclarations']
    assert tool_key in tools[0] or family == 'gemini' and 'parameters_json_schema' in tools[0]   # google-genai writes the field in snake_case
    assert (tools[0]['function'] if 'function' in tools[0] else tools[0])['name'] == 'get_weather'
    if family == 'anthropic': assert body['system'] == 'Be brief.' and body['max_tokens'] == 4096
    elif family == 'gemini': assert body['systemInstruction']['parts'][0]['text'] == 'Be brief.'
    elif api == 'responses': assert body['input'][0] == {'role': 'system', 'content': 'Be brief.'}
    else: assert body['messages'][0] == {'role': 'system', 'content': 'Be brief.'}

def test_request_options_reach_the_create_method(server):
    Chat(make_client(server, 'anthropic', False), [get_weather], model='claude-x', max_tokens=321, stop_sequences=['END'])('Weather in Lima?')
    assert (last_body(server)['max_tokens'], last_body(server)['stop_sequences'], last_body(server)['model']) == (321, ['END'], 'claude-x')
    Chat(make_client(server, 'gemini', False), [get_weather], model='gemini-x', temperature=0.5)('Weather in Lima?')
    assert last_body(server)['generationConfig']['temperature'] == 0.5
    Chat(make_client(server, 'gemini', False), [get_weather], model='gemini-x', config={'tools': [{'googleSearch': {}}]})('Weather in Lima?')
    sent_tools = server.requests[-2][1]['tools']
    assert len(sent_tools) == 2 and sent_tools[1]['functionDeclarations'][0]['name'] == 'get_weather'   # beside the built-in tool
    Chat(make_client(server, 'openai', False), [], model='gpt-x')('Hello')
    assert 'tools' not in last_body(server)   # OpenAI rejects an empty tool list

@pytest.mark.parametrize('family,api', CASES, ids=IDS)
def test_an_image_result_reaches_the_model_as_an_image(server, family, api):
    answer = Chat(make_client(server, family, False), [snapshot], model='test-model', api=api)('Show me the snapshot')
    assert answer.endswith('(saw image/png)'), answer
    if family == 'openai' and api is None:
        messages = last_body(server)['messages']
        assert [m['role'] for m in messages][-2:] == ['tool', 'user'] and messages[-1]['content'][1]['type'] == 'image_url'

@pytest.mark.parametrize('family,api', CASES, ids=IDS)
def test_a_collected_sdk_stream_equals_the_non_streamed_reply(server, family, api):
    sync_client = make_client(server, family, False)
    for stream_client in (SDKClient(sync_client, 'test-model', api, stream=True), SDKClient(make_client(server, family, True), 'test-model', api, stream=True)):
        whole = SDKClient(sync_client, 'test-model', api)
        messages = ([{'role': 'user', 'parts': [{'text': 'Weather in Paris and Tokyo?'}]}] if family == 'gemini'
                    else [{'role': 'user', 'content': 'Weather in Paris and Tokyo?'}])
        tools = Chat(sync_client, [get_weather], model='m', api=api).tools
        expected = whole(messages, tools).model_dump(mode='json', by_alias=True, exclude_none=True)
        streamed = stream_client(messages, tools)
        if stream_client.is_async: streamed = asyncio.run(streamed)
        if family == 'openai' and api is None:
            assert streamed['choices'][0]['message'] == expected['choices'][0]['message'] | {'content': None}
            assert streamed['choices'][0]['finish_reason'] == 'tool_calls' and streamed['usage'] == expected['usage']
        elif api == 'responses': assert streamed['output'] == expected['output']
        elif family == 'anthropic':
            assert streamed['content'] == expected['content'] and streamed['stop_reason'] == expected['stop_reason']
        else: assert streamed['candidates'][0]['content'] == expected['candidates'][0]['content']

def test_collect_stream_takes_the_sdk_stream_object(server):
    client = make_client(server, 'anthropic', False)
    events = client.messages.create(model='m', max_tokens=10, stream=True, messages=[{'role': 'user', 'content': 'Weather in Lima?'}],
                                    tools=[{'name': 'get_weather', 'input_schema': {'type': 'object'}}])
    seen = []
    message = collect_stream(events, on_event=lambda event: seen.append(event['type']))
    assert message['content'][0]['input'] == {'city': 'Lima'} and seen[0] == 'message_start' and seen[-1] == 'message_stop'

def test_async_hooks_see_every_step_and_can_refuse(server):
    steps = []
    async def trace(step): steps.append((step.kind, step.number))
    async def no_tokyo(call): return call.arguments['city'] != 'Tokyo' or 'Tokyo is closed.'   # arguments decoded from OpenAI's JSON text
    chat = Chat(make_client(server, 'openai', True), [get_weather], model='m', on_step=trace, approve=no_tokyo)
    answer = asyncio.run(chat.acall('Weather in Paris and Tokyo?'))
    assert '"city": "Paris"' in answer and 'Tokyo is closed.' in answer
    assert steps == [('reply', 1), ('call', 1), ('call', 1), ('result', 1), ('result', 1), ('reply', 2)]

def test_the_provider_comes_from_the_client_and_a_contradiction_is_an_error(server):
    assert sdk_provider(make_client(server, 'gemini', True)) == ('gemini', True)
    assert sdk_provider(lambda messages, tools: None) is None
    assert Chat(make_client(server, 'anthropic', False), model='m').provider == 'anthropic'
    assert Chat(make_client(server, 'openai', False), model='m', provider='openai-responses').provider == 'openai-responses'
    with pytest.raises(ValueError, match="provider='anthropic', but the client speaks openai"):
        Chat(make_client(server, 'openai', False), model='m', provider='anthropic')
    with pytest.raises(ValueError, match='pass model='): Chat(make_client(server, 'openai', False))
    with pytest.raises(ValueError, match="api='responses' is OpenAI's"): Chat(make_client(server, 'anthropic', False), model='m', api='responses')
    with pytest.raises(TypeError, match='only apply to an OpenAI, Anthropic or google-genai client'):
        Chat(lambda messages, tools: {}, model='m', temperature=0)

def test_a_plain_callable_may_return_a_stream():
    def streaming_model(messages, tools):
        if isinstance(messages[-1]['content'], str):
            yield {'type': 'message_start', 'message': {'id': 'm', 'type': 'message', 'role': 'assistant', 'content': []}}
            yield {'type': 'content_block_start', 'index': 0, 'content_block': {'type': 'tool_use', 'id': 't1', 'name': 'get_weather', 'input': {}}}
            for piece in ('{"ci', 'ty": "Li', 'ma"}'): yield {'type': 'content_block_delta', 'index': 0, 'delta': {'type': 'input_json_delta', 'partial_json': piece}}
            yield {'type': 'content_block_stop', 'index': 0}
        else:
            yield {'type': 'message_start', 'message': {'id': 'm', 'type': 'message', 'role': 'assistant', 'content': []}}
            yield {'type': 'content_block_start', 'index': 0, 'content_block': {'type': 'text', 'text': ''}}
            yield {'type': 'content_block_delta', 'index': 0, 'delta': {'type': 'text_delta', 'text': messages[-1]['content'][0]['content']}}
    assert json.loads(Chat(streaming_model, [get_weather], provider='anthropic')('Lima?')) == {'city': 'Lima', 'temperature_c': 16.0}

def test_a_wrong_format_reply_is_an_error_naming_both():
    def anthropic_model(messages, tools):
        return {'type': 'message', 'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 't', 'name': 'get_weather', 'input': {'city': 'Lima'}}]}
    with pytest.raises(ValueError, match='expected a reply in openai format, got one in anthropic format'):
        Chat(anthropic_model, [get_weather])('Lima?')
    gemini_model = lambda messages, tools: {'candidates': [{'content': {'role': 'model', 'parts': [{'text': 'Sunny.'}]}}]}
    with pytest.raises(ValueError, match='got one in gemini format'): Chat(gemini_model, [get_weather], provider='openai-responses')('Lima?')

@pytest.mark.parametrize('family,api', CASES, ids=IDS)
def test_a_recording_of_an_sdk_conversation_replays(server, family, api, tmp_path):
    recorder = RecordingClient(make_client(server, family, False), model='test-model', api=api, stream=True)
    program = lambda client, prompt: (lambda chat: (chat(prompt), chat)[1])(Chat(client, [get_weather], provider=recorder.provider))
    chat = program(recorder, 'Weather in Paris and Tokyo?')
    path = tmp_path/'recording.json'
    path.write_text(json.dumps(recorder.recording(chat, 'Weather in Paris and Tokyo?')))
    replayed = check_recording(path, program)
    assert replayed.tool_results == chat.tool_results and len(json.loads(path.read_text())['replies']) == 2
