"""`Chat` does each piece of work once per step: a reply's format is checked once (not again by each helper it passes
through), and a result is turned into text once. Counted by wrapping the module's own functions."""
import json
import toolcall_lib.content as content
import toolcall_lib.loop as loop
from toolcall_lib.dispatch import CallResult
from toolcall_lib.interp import Image, RunResult
from toolcall_lib.loop import Chat

def get_weather(city:str, # City name
               ) -> str: # The forecast
    "The weather in a city."
    return f'Sunny in {city}'

def counting(monkeypatch, name:str, module=loop) -> list:
    "Wrap `module.<name>` (the loop's by default) so each call is noted; the list of calls."
    calls, original = [], getattr(module, name)
    def wrapper(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)
    monkeypatch.setattr(module, name, wrapper)
    return calls

REPLIES = {
    'openai': [{'role': 'assistant', 'content': None, 'tool_calls': [
                   {'id': 'c1', 'type': 'function', 'function': {'name': 'get_weather', 'arguments': json.dumps({'city': 'Lima'})}}]},
               {'role': 'assistant', 'content': 'Sunny.'}],
    'anthropic': [{'type': 'message', 'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 't1', 'name': 'get_weather', 'input': {'city': 'Lima'}}]},
                  {'type': 'message', 'role': 'assistant', 'content': [{'type': 'text', 'text': 'Sunny.'}]}],
    'text': ['<tool_call>{"name": "get_weather", "arguments": {"city": "Lima"}}</tool_call>', 'Sunny.'],
}

def test_each_step_checks_the_reply_format_once(monkeypatch):
    for provider, replies in REPLIES.items():
        detections = counting(monkeypatch, 'detect_provider')
        queue = iter(replies)
        answer = Chat(lambda messages, tools: next(queue), [get_weather], provider=provider)('Weather in Lima?')
        assert answer == 'Sunny.' and len(detections) == 2, (provider, len(detections))   # two steps, one check each
        monkeypatch.undo()

def test_a_result_becomes_text_once_for_a_text_model(monkeypatch):
    plot = RunResult(output='plotted\n', images=(Image('image/png', 'aGk=', 1, 1),))
    results = [CallResult('get_weather', value='Sunny', id='1'), CallResult('python', value=plot, id='2')]
    conversions = counting(monkeypatch, 'tool_result_text', content)   # rendering is content's
    messages = loop.result_messages(results, 'text')
    assert [message['content'] for message in messages][0] == 'Sunny'
    assert messages[1]['content'].startswith('plotted\n') and messages[1]['content'].endswith('\n[1 image(s), which this model cannot be shown]')
    assert len(conversions) == 2, len(conversions)   # one per result
