"""Tool search with the real openai, anthropic and google-genai SDK clients, over HTTP to a scripted model on 127.0.0.1:
Anthropic's and OpenAI Responses' own deferred loading (the catalog marked `defer_loading`, the provider's search tool,
the found tools read from the reply), and the local BM25 search for Chat Completions, Gemini and Responses without it.
A catalog tool not found yet is refused with words for the model, and never runs."""
import asyncio, json, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
import pytest

openai = pytest.importorskip('openai')
anthropic = pytest.importorskip('anthropic')
genai = pytest.importorskip('google.genai')
pytest.importorskip('bm25s')

sys.path.insert(0, str(Path(__file__).resolve().parent.parent/'examples'))
import fake_provider   # its reply writers: whole replies and their stream events, as the real APIs send them
from toolcall_lib.loop import Chat
from toolcall_lib.tool_search import ToolSearch, ToolSearchError

RAN = []

def get_weather(
    city:str, # City name, e.g. "Paris"
) -> str: # The forecast
    "Get today's weather for a city."
    RAN.append('get_weather')
    return f'Sunny in {city}'

def convert_currency(
    amount:float, # How much money
    source:str, # The currency it is in, e.g. "EUR"
    target:str, # The currency wanted, e.g. "USD"
) -> str: # The amount in the target currency
    "Convert an amount of money from one currency to another at today's exchange rate."
    RAN.append('convert_currency')
    assert isinstance(amount, float)   # coerced from the model's "20", as any call is
    return f'{amount * 1.1:.1f} {target}'

def send_email(
    to:str, # The recipient's address
    subject:str, # The subject line
) -> str: # What happened
    "Send an email message to someone."
    RAN.append('send_email')
    return f'sent to {to}'

def make_tool(index:int):
    def tool(text:str, # Some text
            ) -> str: # The same text
        return text
    tool.__name__, tool.__doc__ = f'inventory_tool_{index}', f'Look up stock level number {index} of the warehouse inventory.'
    return tool

CATALOG = [get_weather, convert_currency, send_email] + [make_tool(n) for n in range(40)]
CONVERT = ('convert_currency', {'amount': '20', 'source': 'EUR', 'target': 'USD'})

# --- the scripted model ---------------------------------------------------------------------------------
def _api(path:str) -> str:
    if path.endswith('/chat/completions'): return 'openai'
    if path.endswith('/responses'): return 'openai-responses'
    if path.endswith('/messages'): return 'anthropic'
    return 'gemini'

def _tools(api:str, body:dict) -> list:
    if api == 'openai': return [tool['function'] for tool in body.get('tools') or []]
    if api == 'gemini': return [d for tool in body.get('tools') or [] for d in tool.get('functionDeclarations') or []]
    return body.get('tools') or []

def _results(api:str, body:dict) -> list:
    "The text of every tool result in the conversation."
    if api == 'openai': return [m['content'] for m in body['messages'] if m.get('role') == 'tool']
    if api == 'openai-responses': return [item['output'] for item in body['input'] if item.get('type') == 'function_call_output']
    if api == 'anthropic':
        blocks = [b for m in body['messages'] if m['role'] == 'user' and isinstance(m['content'], list) for b in m['content']]
        return [b['content'] if isinstance(b['content'], str) else ' '.join(part.get('text', '') for part in b['content'])
                for b in blocks if b.get('type') == 'tool_result']
    responses = [p['functionResponse']['response'] for c in body['contents'] for p in c.get('parts') or [] if 'functionResponse' in p]
    return [response.get('result') or response.get('error') or json.dumps(response) for response in responses]

def _user_text(api:str, body:dict) -> str:
    if api == 'gemini': return body['contents'][0]['parts'][0]['text']
    messages = body['input'] if api == 'openai-responses' else body['messages']
    return next(m['content'] for m in messages if m.get('role') == 'user' and isinstance(m.get('content'), str))

def _native_reply(api:str, query:str, found:list, call, model:str) -> dict:
    "The provider's own search ran: it found `found`, and the model calls `call` in the same reply."
    name, arguments = call
    if api == 'anthropic':
        content = [{'type': 'server_tool_use', 'id': 'srvtoolu_0', 'name': 'tool_search_tool_bm25', 'input': {'query': query}},
                   {'type': 'tool_search_tool_result', 'tool_use_id': 'srvtoolu_0',
                    'content': {'type': 'tool_search_tool_search_result', 'tool_references': [{'type': 'tool_reference', 'tool_name': n} for n in found]}},
                   {'type': 'tool_use', 'id': 'toolu_0', 'name': name, 'input': arguments}]
        return {'id': 'msg_fake', 'type': 'message', 'role': 'assistant', 'model': model, 'content': content,
                'stop_reason': 'tool_use', 'stop_sequence': None, 'usage': {'input_tokens': 10, 'output_tokens': 5}}
    output = [{'type': 'tool_search_call', 'id': 'tsc_0', 'call_id': None, 'execution': 'server', 'status': 'completed', 'arguments': {'query': query}},
              {'type': 'tool_search_output', 'id': 'tso_0', 'call_id': None, 'execution': 'server', 'status': 'completed', 'tools': found},
              {'type': 'function_call', 'id': 'fc_0', 'call_id': 'call_0', 'name': name, 'arguments': json.dumps(arguments), 'status': 'completed'}]
    return {'id': 'resp_fake', 'object': 'response', 'created_at': 1700000000, 'model': model, 'tools': [], 'parallel_tool_calls': True,
            'tool_choice': 'auto', 'status': 'completed', 'output': output,
            'usage': {'input_tokens': 10, 'output_tokens': 5, 'total_tokens': 15, 'input_tokens_details': {'cached_tokens': 0},
                      'output_tokens_details': {'reasoning_tokens': 0}}}

def _anthropic_events(whole:dict) -> list:
    "A whole Anthropic message as its stream: each block started, a call's input sent as JSON pieces, stopped."
    events = [{'type': 'message_start', 'message': whole | {'content': [], 'stop_reason': None}}]
    for index, block in enumerate(whole['content']):
        if 'input' in block:
            events.append({'type': 'content_block_start', 'index': index, 'content_block': block | {'input': {}}})
            events += [{'type': 'content_block_delta', 'index': index, 'delta': {'type': 'input_json_delta', 'partial_json': piece}}
                       for piece in fake_provider._pieces(json.dumps(block['input']))]
        else: events.append({'type': 'content_block_start', 'index': index, 'content_block': block})
        events.append({'type': 'content_block_stop', 'index': index})
    return events + [{'type': 'message_delta', 'delta': {'stop_reason': whole['stop_reason'], 'stop_sequence': None}, 'usage': {'output_tokens': 5}},
                     {'type': 'message_stop'}]

def decide(api:str, body:dict, model:str) -> tuple:
    "(whole reply, its stream events or None): search, call what was found, then answer with the results."
    tools, results, user = _tools(api, body), _results(api, body), _user_text(api, body)
    offered = {tool.get('name') for tool in tools if not tool.get('defer_loading')}
    deferred = [tool for tool in tools if tool.get('defer_loading')]
    native = any(str(tool.get('type', '')).startswith(('tool_search_tool_', 'tool_search')) for tool in tools)
    searched = bool(results) and 'can be called from your next step' in results[-1]
    if results and not (searched and 'convert_currency' in offered):
        return fake_provider._ROUTES[api][1]('text', 'Results: ' + ' | '.join(results), model)
    if 'skip-search' in user: return fake_provider._ROUTES[api][1]('calls', [CONVERT], model)   # calls a tool it never found
    if native:
        found = [tool for tool in deferred if tool['name'] == 'convert_currency']
        whole = _native_reply(api, 'currency exchange', [t['name'] for t in found] if api == 'anthropic' else found, CONVERT, model)
        return whole, _anthropic_events(whole) if api == 'anthropic' else None
    if 'convert_currency' in offered: return fake_provider._ROUTES[api][1]('calls', [CONVERT], model)
    return fake_provider._ROUTES[api][1]('calls', [('tool_search', {'query': 'convert money between currencies'})], model)

class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args): pass
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get('Content-Length') or 0)) or b'{}')
        self.server.requests.append((self.path, body))
        api = _api(self.path.split('?')[0])
        whole, events = decide(api, body, body.get('model') or 'gemini-x')
        if body.get('stream') is True or ':streamGenerateContent' in self.path:
            self.send_response(200)
            self.send_header('Content-Type', 'text/event-stream')
            self.end_headers()
            for event in events:
                name = f"event: {event['type']}\n" if api in ('anthropic', 'openai-responses') else ''
                self.wfile.write(f'{name}data: {json.dumps(event)}\n\n'.encode())
            if api == 'openai': self.wfile.write(b'data: [DONE]\n\n')
            return
        data = json.dumps(whole).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

@pytest.fixture(scope='module')
def server():
    httpd = ThreadingHTTPServer(('127.0.0.1', 0), _Handler)
    httpd.requests, httpd.url = [], f'http://127.0.0.1:{httpd.server_address[1]}'
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()

def make_client(server, family:str, is_async:bool=False):
    if family == 'openai': return (openai.AsyncOpenAI if is_async else openai.OpenAI)(base_url=server.url + '/v1', api_key='test', max_retries=0)
    if family == 'anthropic': return (anthropic.AsyncAnthropic if is_async else anthropic.Anthropic)(base_url=server.url, api_key='test', max_retries=0)
    client = genai.Client(api_key='test', http_options={'base_url': server.url})
    return client.aio if is_async else client

def sent_names(api:str, body:dict) -> list:
    return [tool.get('name') or tool.get('type') for tool in _tools(api, body)]

def run(server, family, api, prompt, is_async=False, stream=False, **search):
    RAN.clear()
    start = len(server.requests)
    chat = Chat(make_client(server, family, is_async), CATALOG, model='test-model', api=api, stream=stream,
                tool_search=ToolSearch(pinned=['get_weather'], **search))
    answer = asyncio.run(chat.acall(prompt)) if is_async else chat(prompt)
    return chat, answer, [body for _, body in server.requests[start:]]

# --- the provider's own search ------------------------------------------------------------------------
@pytest.mark.parametrize('stream', [False, True], ids=['json', 'sse'])
@pytest.mark.parametrize('is_async', [False, True], ids=['sync', 'async'])
def test_anthropic_defers_the_catalog_to_its_own_tool_search(server, is_async, stream):
    chat, answer, bodies = run(server, 'anthropic', None, 'How much is 20 EUR in dollars?', is_async, stream)
    assert answer == 'Results: 22.0 USD' and RAN == ['convert_currency']
    tools = bodies[0]['tools']
    assert tools[0]['name'] == 'get_weather' and 'defer_loading' not in tools[0]   # pinned: always in the model's context
    assert tools[1] == {'type': 'tool_search_tool_bm25_20251119', 'name': 'tool_search_tool_bm25'}
    assert len(tools) == 2 + len(CATALOG) - 1 and all(tool['defer_loading'] is True for tool in tools[2:])
    assert bodies[1]['tools'] == tools   # the same request each step: the provider keeps what its search loaded
    history = [block['type'] for block in bodies[1]['messages'][1]['content']]
    assert history == ['server_tool_use', 'tool_search_tool_result', 'tool_use']   # the search goes back as it came
    assert list(chat.tool_search.found) == ['convert_currency']

def test_anthropic_regex_search_tool(server):
    _, answer, bodies = run(server, 'anthropic', None, 'How much is 20 EUR in dollars?', anthropic_search='regex')
    assert {'type': 'tool_search_tool_regex_20251119', 'name': 'tool_search_tool_regex'} in bodies[0]['tools'] and answer.endswith('22.0 USD')

def test_responses_defers_the_catalog_to_its_own_tool_search(server):
    chat, answer, bodies = run(server, 'openai', 'responses', 'How much is 20 EUR in dollars?')
    assert answer == 'Results: 22.0 USD' and RAN == ['convert_currency']
    tools = bodies[0]['tools']
    assert tools[0]['name'] == 'get_weather' and tools[1] == {'type': 'tool_search'}
    assert all(tool['defer_loading'] is True and tool['type'] == 'function' for tool in tools[2:])
    kinds = [item.get('type') for item in bodies[1]['input']]
    assert kinds[1:] == ['tool_search_call', 'tool_search_output', 'function_call', 'function_call_output']

@pytest.mark.parametrize('family,api', [('anthropic', None), ('openai', 'responses')], ids=['anthropic', 'responses'])
def test_a_deferred_tool_the_search_did_not_find_is_refused(server, family, api):
    chat, answer, _ = run(server, family, api, 'Convert 20 EUR, skip-search')
    assert RAN == [] and "The tool 'convert_currency' is not loaded yet, so it was not run: find it with the tool search first" in answer

# --- the local search ----------------------------------------------------------------------------------
LOCAL = [('openai', None, {}), ('gemini', None, {}), ('openai', 'responses', {'native': False}), ('anthropic', None, {'native': False})]

@pytest.mark.parametrize('stream', [False, True], ids=['json', 'sse'])
@pytest.mark.parametrize('family,api,search', LOCAL, ids=['chat-completions', 'gemini', 'responses-local', 'anthropic-local'])
def test_the_local_search_offers_what_it_found(server, family, api, search, stream):
    chat, answer, bodies = run(server, family, api, 'How much is 20 EUR in dollars?', stream=stream, **search)
    wire = {'openai': 'openai-responses' if api else 'openai', 'gemini': 'gemini', 'anthropic': 'anthropic'}[family]
    assert RAN == ['convert_currency'] and answer.endswith('| 22.0 USD'), answer
    assert 'convert_currency' in answer.split('|')[0]   # the search's answer names what it found
    assert sent_names(wire, bodies[0]) == ['get_weather', 'tool_search']   # 2 definitions, not 43
    assert sent_names(wire, bodies[1])[:3] == ['get_weather', 'tool_search', 'convert_currency']
    assert not any(tool.get('defer_loading') for tool in _tools(wire, bodies[0]))

@pytest.mark.parametrize('family,api', [('openai', None), ('gemini', None)], ids=['chat-completions', 'gemini'])
def test_a_tool_not_found_yet_is_refused_with_words_to_search(server, family, api):
    _, answer, _ = run(server, family, api, 'Convert 20 EUR, skip-search', is_async=True)
    assert RAN == [] and "is not loaded yet, so it was not run: call tool_search with a few words for what you want to do" in answer

def test_the_index_is_built_once_per_tool_set(server):
    client = make_client(server, 'openai')
    first, second = (Chat(client, CATALOG, model='m', tool_search=True) for _ in range(2))
    assert first.tool_search.index is second.tool_search.index
    assert Chat(client, CATALOG[:-1], model='m', tool_search=True).tool_search.index is not first.tool_search.index

def test_settings_that_cannot_work_are_errors(server):
    client = make_client(server, 'openai')
    with pytest.raises(ToolSearchError, match='pinned tools not in the catalog: nope'):
        Chat(client, CATALOG, model='m', tool_search=ToolSearch(pinned=['nope']))
    with pytest.raises(ToolSearchError, match='tool_search must be True or a ToolSearch'): Chat(client, CATALOG, model='m', tool_search='yes')
    with pytest.raises(ToolSearchError, match='limit'): ToolSearch(limit=0)
    def tool_search(query:str, # A query
                   ) -> str: # Found
        return query
    with pytest.raises(ToolSearchError, match='rename it'): Chat(client, [tool_search], model='m', tool_search=True)

@pytest.mark.parametrize('family,api', [('anthropic', None), ('openai', None)], ids=['anthropic-native', 'chat-completions-local'])
def test_an_eager_stream_runs_what_the_search_found(server, family, api):
    "A tool found by the provider's search in the very reply that calls it runs when the reply ends; one found before starts early."
    RAN.clear()
    chat = Chat(make_client(server, family), CATALOG, model='m', api=api, tool_search=ToolSearch(pinned=['get_weather']))
    events = list(chat.stream('How much is 20 EUR in dollars?', eager=True))
    assert RAN == ['convert_currency'] and chat.tool_results[-1] in ('22.0 USD', [{'type': 'text', 'text': '22.0 USD'}])
    assert type(events[-1]).__name__ == 'StepEnd' and events[-1].final

# --- with approvals: a paused run resumed elsewhere keeps what the search had found -------------------
def test_a_resumed_run_can_call_the_tool_its_search_found(server, tmp_path):
    "The search finds convert_currency, `approve` leaves its call for later; a new Chat (as in another process) resumes."
    from toolcall_lib.approvals import LATER, ApprovalStore, RunPaused
    RAN.clear()
    later = lambda call: LATER if call.name == 'convert_currency' else True
    def chat(): return Chat(make_client(server, 'openai'), CATALOG, model='test-model', tool_search=ToolSearch(pinned=['get_weather']),
                            approve=later, approvals=ApprovalStore(tmp_path/'approvals.db'))
    with pytest.raises(RunPaused) as stopped: chat()('How much is 20 EUR in dollars?')
    state = stopped.value.state
    assert [call.name for call in state.waiting] == ['convert_currency'] and RAN == []
    fresh = chat()
    assert fresh.tool_search.found == {}   # nothing found yet in this chat
    answer = fresh.resume(state.run_id, [call.approve() for call in state.waiting])
    assert RAN == ['convert_currency'] and answer.endswith('| 22.0 USD'), answer
