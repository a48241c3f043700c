"""A scripted model behind the four provider APIs, on 127.0.0.1: the official SDKs talk to it as to the real thing.

`FakeProvider` serves OpenAI Chat Completions (`/v1/chat/completions`), OpenAI Responses (`/v1/responses`),
Anthropic Messages (`/v1/messages`) and Gemini (`/v1beta/models/MODEL:generateContent` and
`:streamGenerateContent?alt=sse`), each as plain JSON or, when the request asks for a stream, as server-sent
events cut into small pieces the way the real APIs send them (argument JSON split across chunks, two calls
interleaved). Its "model" is a script, so tests and tutorials can check every byte that went over the wire:

- while the conversation holds no tool results, it calls `get_weather` once per city named in the user's
  last message (Paris, Tokyo, Lima), and any other tool whose name the message contains, with no arguments;
- once results are there, it answers in text: "Results: " and the text of each result, joined by " | ",
  plus "(saw image/png)" for each picture a result carried.

Every request is kept in `requests` as (path, JSON body, headers).

    with FakeProvider() as server:
        client = OpenAI(base_url=server.openai_url, api_key='test')
"""
from __future__ import annotations
import json, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ['FakeProvider', 'CITIES']

CITIES = ('Paris', 'Tokyo', 'Lima')

def _pieces(text:str, size:int=5) -> list:
    "`text` cut every `size` characters (at least one piece, possibly empty)."
    return [text[i:i + size] for i in range(0, len(text), size)] or ['']

# --- what the scripted model decides -------------------------------------------------------------------
def _decide(user_text:str, tool_names:list, results:list) -> tuple:
    "('text', answer) or ('calls', [(name, arguments)]) for a conversation."
    if results:
        texts = [text for text, _ in results]
        seen = [f'(saw {mime})' for _, mimes in results for mime in mimes]
        return 'text', 'Results: ' + ' | '.join(texts) + (' ' + ' '.join(seen) if seen else '')
    calls = []
    if 'get_weather' in tool_names: calls += [('get_weather', {'city': city}) for city in CITIES if city in user_text]
    calls += [(name, {}) for name in tool_names if name != 'get_weather' and name in user_text]
    return ('calls', calls) if calls else ('text', 'No tools needed.')

def _block_text(content) -> tuple:
    "(text, [mime, ...]) of a tool result's content in any provider's shape."
    if isinstance(content, str): return content, []
    if isinstance(content, dict): return json.dumps(content, ensure_ascii=False), []
    texts, mimes = [], []
    for part in content or []:
        kind = part.get('type')
        if kind in ('text', 'input_text'): texts.append(part.get('text', ''))
        elif kind == 'image': mimes.append(part['source']['media_type'])
        elif kind == 'input_image': mimes.append(part['image_url'].split(';')[0].removeprefix('data:'))
    return '\n'.join(texts), mimes

# --- reading each API's request ------------------------------------------------------------------------
def _read_openai(body:dict) -> tuple:
    messages, results = body['messages'], []
    for message in messages:
        if message.get('role') == 'tool': results.append(_block_text(message.get('content')))
        elif message.get('role') == 'user' and isinstance(message.get('content'), list) and results:  # pictures after the tool messages
            results[-1] = (results[-1][0], results[-1][1] + [part['image_url']['url'].split(';')[0].removeprefix('data:')
                                                             for part in message['content'] if part.get('type') == 'image_url'])
    user = [m['content'] for m in messages if m.get('role') == 'user' and isinstance(m.get('content'), str)]
    names = [tool['function']['name'] for tool in body.get('tools') or []]
    return (user[-1] if user else ''), names, results

def _read_responses(body:dict) -> tuple:
    items = body['input'] if isinstance(body['input'], list) else [{'role': 'user', 'content': body['input']}]
    results = [_block_text(item['output']) for item in items if item.get('type') == 'function_call_output']
    user = [item['content'] for item in items if item.get('role') == 'user' and isinstance(item.get('content'), str)]
    return (user[-1] if user else ''), [tool['name'] for tool in body.get('tools') or []], results

def _read_anthropic(body:dict) -> tuple:
    results, user = [], ''
    for message in body['messages']:
        if message['role'] != 'user': continue
        if isinstance(message['content'], str): user = message['content']
        else: results += [_block_text(block.get('content')) for block in message['content'] if block.get('type') == 'tool_result']
    return user, [tool['name'] for tool in body.get('tools') or []], results

def _read_gemini(body:dict) -> tuple:
    results, user = [], ''
    for content in body['contents']:
        for part in content.get('parts') or []:
            if 'functionResponse' in part:
                response = part['functionResponse']
                inline = [p.get('inlineData') or p.get('inline_data') for p in response.get('parts') or []]   # the API reads either spelling
                mimes = [data.get('mimeType') or data.get('mime_type') for data in inline if data]
                results.append((json.dumps(response.get('response'), ensure_ascii=False), mimes))
            elif 'text' in part and content.get('role') == 'user': user = part['text']
    names = [d['name'] for tool in body.get('tools') or [] for d in tool.get('functionDeclarations') or []]
    return user, names, results

# --- writing each API's reply: whole, and as a list of stream events ----------------------------------
def _openai_reply(kind, payload, model) -> tuple:
    calls = [{'id': f'call_{n}', 'type': 'function', 'function': {'name': name, 'arguments': json.dumps(arguments)}}
             for n, (name, arguments) in enumerate(payload)] if kind == 'calls' else []
    message = {'role': 'assistant', 'content': payload if kind == 'text' else None} | ({'tool_calls': calls} if calls else {})
    finish = 'tool_calls' if calls else 'stop'
    whole = {'id': 'chatcmpl-fake', 'object': 'chat.completion', 'created': 1700000000, 'model': model,
             'choices': [{'index': 0, 'message': message, 'finish_reason': finish, 'logprobs': None}],
             'usage': {'prompt_tokens': 10, 'completion_tokens': 5, 'total_tokens': 15}}
    def chunk(delta, finish_reason=None, choices=True):
        return {'id': 'chatcmpl-fake', 'object': 'chat.completion.chunk', 'created': 1700000000, 'model': model,
                'choices': [{'index': 0, 'delta': delta, 'finish_reason': finish_reason}] if choices else []}
    events = [chunk({'role': 'assistant', 'content': ''})]
    if kind == 'text': events += [chunk({'content': piece}) for piece in _pieces(payload, 4)]
    pending = [[n, call, _pieces(call['function']['arguments'])] for n, call in enumerate(calls)]
    for n, call, _ in pending:
        events.append(chunk({'tool_calls': [{'index': n, 'id': call['id'], 'type': 'function',
                                             'function': {'name': call['function']['name'], 'arguments': ''}}]}))
    while any(pieces for _, _, pieces in pending):   # the calls' argument pieces interleaved, as parallel calls may arrive
        for n, _, pieces in pending:
            if pieces: events.append(chunk({'tool_calls': [{'index': n, 'function': {'arguments': pieces.pop(0)}}]}))
    events.append(chunk({}, finish))
    events.append(chunk({}, choices=False) | {'usage': whole['usage']})
    return whole, events

def _responses_reply(kind, payload, model) -> tuple:
    if kind == 'text':
        output = [{'type': 'message', 'id': 'msg_fake', 'status': 'completed', 'role': 'assistant',
                   'content': [{'type': 'output_text', 'text': payload, 'annotations': []}]}]
    else:
        output = [{'type': 'function_call', 'id': f'fc_{n}', 'call_id': f'call_{n}', 'name': name,
                   'arguments': json.dumps(arguments), 'status': 'completed'} for n, (name, arguments) in enumerate(payload)]
    base = {'id': 'resp_fake', 'object': 'response', 'created_at': 1700000000, 'model': model, 'tools': [],
            'parallel_tool_calls': True, 'tool_choice': 'auto'}
    whole = base | {'status': 'completed', 'output': output, 'usage': {'input_tokens': 10, 'output_tokens': 5, 'total_tokens': 15,
                    'input_tokens_details': {'cached_tokens': 0}, 'output_tokens_details': {'reasoning_tokens': 0}}}
    events = [{'type': 'response.created', 'response': base | {'status': 'in_progress', 'output': []}}]
    for index, item in enumerate(output):
        if item['type'] == 'function_call':
            events.append({'type': 'response.output_item.added', 'output_index': index, 'item': item | {'arguments': '', 'status': 'in_progress'}})
            events += [{'type': 'response.function_call_arguments.delta', 'output_index': index, 'item_id': item['id'], 'delta': piece}
                       for piece in _pieces(item['arguments'])]
            events.append({'type': 'response.function_call_arguments.done', 'output_index': index, 'item_id': item['id'], 'arguments': item['arguments']})
        else:
            events.append({'type': 'response.output_item.added', 'output_index': index, 'item': item | {'content': [], 'status': 'in_progress'}})
            events.append({'type': 'response.content_part.added', 'output_index': index, 'item_id': item['id'], 'content_index': 0,
                           'part': {'type': 'output_text', 'text': '', 'annotations': []}})
            events += [{'type': 'response.output_text.delta', 'output_index': index, 'item_id': item['id'], 'content_index': 0, 'delta': piece}
                       for piece in _pieces(payload, 4)]
            events.append({'type': 'response.output_text.done', 'output_index': index, 'item_id': item['id'], 'content_index': 0, 'text': payload})
        events.append({'type': 'response.output_item.done', 'output_index': index, 'item': item})
    events.append({'type': 'response.completed', 'response': whole})
    return whole, [event | {'sequence_number': number} for number, event in enumerate(events)]

def _anthropic_reply(kind, payload, model) -> tuple:
    if kind == 'text': content = [{'type': 'text', 'text': payload}]
    else: content = [{'type': 'tool_use', 'id': f'toolu_{n}', 'name': name, 'input': arguments} for n, (name, arguments) in enumerate(payload)]
    stop = 'end_turn' if kind == 'text' else 'tool_use'
    whole = {'id': 'msg_fake', 'type': 'message', 'role': 'assistant', 'model': model, 'content': content,
             'stop_reason': stop, 'stop_sequence': None, 'usage': {'input_tokens': 10, 'output_tokens': 5}}
    events = [{'type': 'message_start', 'message': whole | {'content': [], 'stop_reason': None, 'usage': {'input_tokens': 10, 'output_tokens': 1}}}]
    for index, block in enumerate(content):
        if block['type'] == 'text':
            events.append({'type': 'content_block_start', 'index': index, 'content_block': {'type': 'text', 'text': ''}})
            events += [{'type': 'content_block_delta', 'index': index, 'delta': {'type': 'text_delta', 'text': piece}} for piece in _pieces(payload, 4)]
        else:
            events.append({'type': 'content_block_start', 'index': index, 'content_block': block | {'input': {}}})
            events += [{'type': 'content_block_delta', 'index': index, 'delta': {'type': 'input_json_delta', 'partial_json': piece}}
                       for piece in _pieces(json.dumps(block['input']))]
        events.append({'type': 'ping'})
        events.append({'type': 'content_block_stop', 'index': index})
    events.append({'type': 'message_delta', 'delta': {'stop_reason': stop, 'stop_sequence': None}, 'usage': {'output_tokens': 5}})
    events.append({'type': 'message_stop'})
    return whole, events

def _gemini_reply(kind, payload, model) -> tuple:
    if kind == 'text': parts = [{'text': payload}]
    else: parts = [{'functionCall': {'id': f'fc_{n}', 'name': name, 'args': arguments}} for n, (name, arguments) in enumerate(payload)]
    usage = {'promptTokenCount': 10, 'candidatesTokenCount': 5, 'totalTokenCount': 15}
    whole = {'candidates': [{'content': {'role': 'model', 'parts': parts}, 'finishReason': 'STOP', 'index': 0}],
             'usageMetadata': usage, 'modelVersion': model, 'responseId': 'fake'}
    pieces = [{'text': piece} for piece in _pieces(payload, 4)] if kind == 'text' else parts
    events = [{'candidates': [{'content': {'role': 'model', 'parts': [part]}, 'index': 0}], 'modelVersion': model} for part in pieces]
    events[-1]['candidates'][0]['finishReason'] = 'STOP'
    events[-1]['usageMetadata'] = usage
    return whole, events

# --- the server ----------------------------------------------------------------------------------------
_ROUTES = {'openai': (_read_openai, _openai_reply), 'openai-responses': (_read_responses, _responses_reply),
           'anthropic': (_read_anthropic, _anthropic_reply), 'gemini': (_read_gemini, _gemini_reply)}

def _route(path:str) -> str|None:
    if path.endswith('/chat/completions'): return 'openai'
    if path.endswith('/responses'): return 'openai-responses'
    if path.endswith('/messages'): return 'anthropic'
    if ':generateContent' in path or ':streamGenerateContent' in path: return 'gemini'
    return None

class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args): pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get('Content-Length') or 0)) or b'{}')
        self.server.owner.requests.append((self.path, body, dict(self.headers)))
        api = _route(self.path.split('?')[0])
        if api is None: return self._send(404, {'error': {'message': f'no route {self.path}'}})
        read, write = _ROUTES[api]
        model = body.get('model') or self.path.split('/models/')[-1].split(':')[0]
        whole, events = write(*_decide(*read(body)), model)
        streaming = body.get('stream') is True or ':streamGenerateContent' in self.path
        if not streaming: return self._send(200, whole)
        self.send_response(200)
        self.send_header('Content-Type', 'text/event-stream')
        self.end_headers()
        for event in events:
            name = f"event: {event['type']}\n" if api in ('anthropic', 'openai-responses') else ''
            self.wfile.write(f'{name}data: {json.dumps(event)}\n\n'.encode())
        if api == 'openai': self.wfile.write(b'data: [DONE]\n\n')

    def _send(self, status:int, payload:dict):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

class FakeProvider:
    "The scripted model served on 127.0.0.1 in a background thread; a context manager."
    def __init__(self):
        self.requests = []
        self.httpd = ThreadingHTTPServer(('127.0.0.1', 0), _Handler)
        self.httpd.owner = self
        self.url = f'http://127.0.0.1:{self.httpd.server_address[1]}'
        self.openai_url = self.url + '/v1'   # OpenAI's base_url includes the version
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self): return self
    def __exit__(self, *exc): self.close()
