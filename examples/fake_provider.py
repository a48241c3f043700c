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

A user message holding `leak:FORMAT` makes the model leak its calls into the reply's text, the way a server whose
tool-call parser failed does: `leak:hermes` (`<tool_call>{json}</tool_call>`), `leak:qwen3_coder` (Qwen3-Coder's XML
with its opening `<tool_call>` missing), `leak:mistral` (`[TOOL_CALLS]name[ARGS]{json}`); `broken-json` makes
its structured calls' argument JSON invalid (a trailing comma). Asked for a typed answer (a `final_answer` tool offered,
or OpenAI's `response_format` / Responses' `text.format` with a JSON schema), once results are in it answers with
values made up from the schema (strings 'Paris', numbers 18.5, integers 3); with `answer-invalid-first` in the
conversation its first answer is `{}`, until the conversation holds the words "does not fit". In a stream,
`think-aloud` puts reasoning ("Two cities.") and text ("Checking both. ") before the calls, and `pace:MS` waits MS
milliseconds before each event, so a test can see what happens while the reply is still arriving; `long:N` answers
with N words (in 4-character pieces when streamed), for measuring streams. Like the real APIs, it refuses (HTTP 400) a tool result
that answers no call of the turn before it; results of leaked calls come back as the user message that follows.

Every request is kept in `requests` as (path, JSON body, headers).

    with FakeProvider() as server:
        client = OpenAI(base_url=server.openai_url, api_key='test')
"""
from __future__ import annotations
import json, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ['FakeProvider', 'CITIES']

CITIES = ('Paris', 'Tokyo', 'Lima')

def _pieces(text:str, size:int=5) -> list:
    "`text` cut every `size` characters (at least one piece, possibly empty)."
    return [text[i:i + size] for i in range(0, len(text), size)] or ['']

# --- what the scripted model decides -------------------------------------------------------------------
def _decide(user_text:str, tool_names:list, results:list) -> tuple:
    "('text', answer) or ('calls', [(name, arguments)]) for a conversation; calls to leak come back as ('text', markup)."
    if results:
        texts = [text for text, _ in results]
        seen = [f'(saw {mime})' for _, mimes in results for mime in mimes]
        return 'text', 'Results: ' + ' | '.join(texts) + (' ' + ' '.join(seen) if seen else '')
    if 'long:' in user_text:   # a long answer, for measuring streams: `long:N` is N words
        return 'text', ' '.join(f'word{n}' for n in range(int(user_text.split('long:')[1].split()[0])))
    calls = []
    if 'get_weather' in tool_names: calls += [('get_weather', {'city': city}) for city in CITIES if city in user_text]
    calls += [(name, {}) for name in tool_names if name != 'get_weather' and name in user_text]
    if not calls: return 'text', 'No tools needed.'
    leak = next((name for name in _LEAKS if f'leak:{name}' in user_text), None)
    if leak: return 'text', 'Let me check. ' + ''.join(_LEAKS[leak](name, arguments) for name, arguments in calls)
    return ('broken', calls) if 'broken-json' in user_text else ('calls', calls)

def _made_up(schema:dict):
    "A value that fits `schema`, made up from its types."
    kind = schema.get('type')
    if kind == 'object' or 'properties' in schema: return {key: _made_up(value) for key, value in (schema.get('properties') or {}).items()}
    if kind == 'array': return [_made_up(schema.get('items') or {})]
    return {'string': 'Paris', 'number': 18.5, 'integer': 3, 'boolean': True}.get(kind, 'Paris')

def _answer_schema(api:str, body:dict) -> tuple:
    "('tool' or 'native', the answer's schema) when the request asks for a typed answer, else (None, None)."
    if api == 'openai' and (body.get('response_format') or {}).get('type') == 'json_schema':
        return 'native', body['response_format']['json_schema']['schema']
    if api == 'openai-responses' and ((body.get('text') or {}).get('format') or {}).get('type') == 'json_schema':
        return 'native', body['text']['format']['schema']
    for tool in body.get('tools') or []:
        for declared in tool.get('functionDeclarations') or [tool.get('function') or tool]:
            if declared.get('name') == 'final_answer':
                return 'tool', (declared.get('parameters') or declared.get('input_schema') or declared.get('parametersJsonSchema')
                                or declared.get('parameters_json_schema'))
    return None, None

def _typed_answer(api:str, body:dict, decided:tuple) -> tuple:
    "`decided`, or the typed answer in place of the text answer when one was asked for."
    how, schema = _answer_schema(api, body)
    if how is None or decided[0] != 'text' or not decided[1].startswith('Results: '): return decided
    seen = json.dumps(body)
    answer = {} if 'answer-invalid-first' in seen and 'does not fit' not in seen else _made_up(schema)
    return ('text', json.dumps(answer)) if how == 'native' else ('calls', [('final_answer', answer)])

def _qwen3_coder(name:str, arguments:dict) -> str:
    body = ''.join(f'<parameter={key}>\n{value}\n</parameter>\n' for key, value in arguments.items())
    return f'<function={name}>\n{body}</function>\n</tool_call>\n'   # the opening <tool_call> is missing, as servers lose it

_LEAKS = {'hermes': lambda name, arguments: f'<tool_call>\n{json.dumps({"name": name, "arguments": arguments})}\n</tool_call>\n',
          'qwen3_coder': _qwen3_coder,
          'mistral': lambda name, arguments: f'[TOOL_CALLS]{name}[ARGS]{json.dumps(arguments)}'}
_LEAK_MARKS = ('<tool_call>', '</tool_call>', '[TOOL_CALLS]')

def _leaked(text) -> bool: return isinstance(text, str) and any(mark in text for mark in _LEAK_MARKS)

def _arguments_json(kind:str, arguments:dict) -> str:
    "A call's argument JSON; a 'broken' reply's has a trailing comma, which JSON does not allow."
    text = json.dumps(arguments)
    return text[:-1] + ',}' if kind == 'broken' and text.endswith('}') else text

class _Refused(Exception):
    "A request the real API would refuse with HTTP 400."

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
    messages, results, called = body['messages'], [], set()
    for number, message in enumerate(messages):
        called |= {call['id'] for call in message.get('tool_calls') or []}
        if message.get('role') == 'tool':
            if message.get('tool_call_id') not in called: raise _Refused(f"tool message for unknown tool_call_id {message.get('tool_call_id')!r}")
            results.append(_block_text(message.get('content')))
        elif message.get('role') == 'user' and number and _leaked(messages[number - 1].get('content')):
            results.append(_block_text(message.get('content')))
        elif message.get('role') == 'user' and isinstance(message.get('content'), list) and results:  # pictures after the tool messages
            results[-1] = (results[-1][0], results[-1][1] + [part['image_url']['url'].split(';')[0].removeprefix('data:')
                                                             for part in message['content'] if part.get('type') == 'image_url'])
    user = [m['content'] for m in messages if m.get('role') == 'user' and isinstance(m.get('content'), str)]
    names = [tool['function']['name'] for tool in body.get('tools') or []]
    return (user[-1] if user else ''), names, results

def _read_responses(body:dict) -> tuple:
    items = body['input'] if isinstance(body['input'], list) else [{'role': 'user', 'content': body['input']}]
    called, results = {item['call_id'] for item in items if item.get('type') == 'function_call'}, []
    for number, item in enumerate(items):
        if item.get('type') == 'function_call_output':
            if item.get('call_id') not in called: raise _Refused(f"No tool call found for function call output with call_id {item.get('call_id')}")
            results.append(_block_text(item['output']))
        elif item.get('role') == 'user' and number and _leaked(''.join(part.get('text') or '' for part in items[number - 1].get('content') or []
                                                                        if isinstance(part, dict))):
            results.append(_block_text(item.get('content')))
    user = [item['content'] for item in items if item.get('role') == 'user' and isinstance(item.get('content'), str)]
    return (user[-1] if user else ''), [tool['name'] for tool in body.get('tools') or []], results

def _read_anthropic(body:dict) -> tuple:
    results, user, previous = [], '', []
    for message in body['messages']:
        blocks = message['content'] if isinstance(message['content'], list) else [{'type': 'text', 'text': message['content']}]
        if message['role'] != 'user': previous = blocks; continue
        asked = {block['id'] for block in previous if block.get('type') == 'tool_use'}
        answered = [block for block in blocks if block.get('type') == 'tool_result']
        if any(block.get('tool_use_id') not in asked for block in answered):
            raise _Refused('messages: tool_result blocks must answer a tool_use block of the previous message')
        if _leaked(''.join(block.get('text') or '' for block in previous if block.get('type') == 'text')): results.append(_block_text(blocks))
        elif isinstance(message['content'], str): user = message['content']
        else: results += [_block_text(block.get('content')) for block in answered]
        previous = blocks
    return user, [tool['name'] for tool in body.get('tools') or []], results

def _read_gemini(body:dict) -> tuple:
    results, user, previous = [], '', []
    for content in body['contents']:
        parts = content.get('parts') or []
        answered = sum('functionResponse' in part for part in parts)
        if answered and answered != sum('functionCall' in part for part in previous):
            raise _Refused('the number of function response parts must equal the number of function call parts of the function call turn')
        if content.get('role') == 'user' and _leaked(''.join(part.get('text') or '' for part in previous)):
            texts = '\n'.join(part['text'] for part in parts if 'text' in part)
            results.append((texts, [(part.get('inlineData') or {}).get('mimeType') for part in parts if 'inlineData' in part]))
            previous = parts; continue
        previous = parts
        for part in parts:
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
    calls = [{'id': f'call_{n}', 'type': 'function', 'function': {'name': name, 'arguments': _arguments_json(kind, arguments)}}
             for n, (name, arguments) in enumerate(payload)] if kind != 'text' else []
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
                   'arguments': _arguments_json(kind, arguments), 'status': 'completed'} for n, (name, arguments) in enumerate(payload)]
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

# --- streams that think aloud first -------------------------------------------------------------------
REASONING, PREFACE = 'Two cities.', 'Checking both. '

def _openai_aloud(events:list) -> list:
    first = events[0]
    def like(delta): return first | {'choices': [{'index': 0, 'delta': delta, 'finish_reason': None}]}
    return events[:1] + [like({'reasoning_content': REASONING}), like({'content': PREFACE})] + events[1:]

def _anthropic_aloud(events:list) -> list:
    shifted = [event | {'index': event['index'] + 2} if 'index' in event else event for event in events[1:]]
    thinking = [{'type': 'content_block_start', 'index': 0, 'content_block': {'type': 'thinking', 'thinking': '', 'signature': ''}},
                {'type': 'content_block_delta', 'index': 0, 'delta': {'type': 'thinking_delta', 'thinking': REASONING}},
                {'type': 'content_block_delta', 'index': 0, 'delta': {'type': 'signature_delta', 'signature': 'c2lnbmVk'}},
                {'type': 'content_block_stop', 'index': 0},
                {'type': 'content_block_start', 'index': 1, 'content_block': {'type': 'text', 'text': ''}},
                {'type': 'content_block_delta', 'index': 1, 'delta': {'type': 'text_delta', 'text': PREFACE}},
                {'type': 'content_block_stop', 'index': 1}]
    return events[:1] + thinking + shifted

def _responses_aloud(events:list) -> list:
    shifted = [event | {'output_index': event['output_index'] + 2} if 'output_index' in event else event for event in events[1:]]
    reasoning = {'type': 'reasoning', 'id': 'rs_0', 'summary': []}
    message = {'type': 'message', 'id': 'msg_0', 'status': 'in_progress', 'role': 'assistant', 'content': []}
    done = message | {'status': 'completed', 'content': [{'type': 'output_text', 'text': PREFACE, 'annotations': []}]}
    aloud = [{'type': 'response.output_item.added', 'output_index': 0, 'item': reasoning},
             {'type': 'response.reasoning_summary_text.delta', 'output_index': 0, 'item_id': 'rs_0', 'summary_index': 0, 'delta': REASONING},
             {'type': 'response.output_item.done', 'output_index': 0, 'item': reasoning | {'summary': [{'type': 'summary_text', 'text': REASONING}]}},
             {'type': 'response.output_item.added', 'output_index': 1, 'item': message},
             {'type': 'response.content_part.added', 'output_index': 1, 'item_id': 'msg_0', 'content_index': 0,
              'part': {'type': 'output_text', 'text': '', 'annotations': []}},
             {'type': 'response.output_text.delta', 'output_index': 1, 'item_id': 'msg_0', 'content_index': 0, 'delta': PREFACE, 'logprobs': []},
             {'type': 'response.output_item.done', 'output_index': 1, 'item': done}]
    events = events[:1] + aloud + [event for event in shifted if event['type'] != 'response.completed']   # its output lacks the two
    return [event | {'sequence_number': number} for number, event in enumerate(events)]

def _gemini_aloud(events:list) -> list:
    def part(content): return {'candidates': [{'content': {'role': 'model', 'parts': [content]}, 'index': 0}]}
    return [part({'text': REASONING, 'thought': True}), part({'text': PREFACE})] + events

_ALOUD = {'openai': _openai_aloud, 'anthropic': _anthropic_aloud, 'openai-responses': _responses_aloud, 'gemini': _gemini_aloud}

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
        try: decided = _typed_answer(api, body, _decide(*read(body)))
        except _Refused as error: return self._send(400, {'error': {'type': 'invalid_request_error', 'message': str(error)}})
        if decided[0] == 'broken' and api in ('anthropic', 'gemini'): decided = ('calls', decided[1])   # their calls carry objects, not JSON text
        whole, events = write(*decided, model)
        streaming = body.get('stream') is True or ':streamGenerateContent' in self.path
        if not streaming: return self._send(200, whole)
        self.send_response(200)
        self.send_header('Content-Type', 'text/event-stream')
        self.end_headers()
        seen = json.dumps(body)
        if 'think-aloud' in seen and decided[0] == 'calls': events = _ALOUD[api](events)
        pace = float(seen.split('pace:')[1].split('"')[0].split()[0].strip('\\')) / 1000 if 'pace:' in seen else 0
        for event in events:
            if pace: time.sleep(pace)
            name = f"event: {event['type']}\n" if api in ('anthropic', 'openai-responses') else ''
            self.wfile.write(f'{name}data: {json.dumps(event)}\n\n'.encode())
            self.wfile.flush()
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
