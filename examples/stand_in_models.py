"""Stand-in models for the tutorials: small functions that answer the way a real model does on the wire, so the
tutorials run offline. A model client is any function `client(messages, tools) -> reply`; these are such clients.
"""
import json

__all__ = ['weather_model']

CITIES = ('Paris', 'Tokyo', 'Lima')

def _completion(message:dict) -> dict:
    "A Chat Completions response body around one assistant `message`."
    return {'object': 'chat.completion', 'choices': [{'index': 0, 'message': {'role': 'assistant', **message},
            'finish_reason': 'tool_calls' if message.get('tool_calls') else 'stop'}]}

def weather_model(messages:list, tools:list) -> dict:
    """In OpenAI's Chat Completions format: asks for `get_weather` in each city the question names, then answers
    from the tool results. Like a real model, it can only call a tool it was sent."""
    assert 'get_weather' in [tool['function']['name'] for tool in tools], 'weather_model needs the get_weather tool'
    if messages[-1]['role'] == 'user':
        cities = [city for city in CITIES if city in messages[-1]['content']]
        calls = [{'id': f'call_{number}', 'type': 'function',
                  'function': {'name': 'get_weather', 'arguments': json.dumps({'city': city})}}
                 for number, city in enumerate(cities)]
        return _completion({'content': None, 'tool_calls': calls})
    reports = [json.loads(message['content']) for message in messages if message['role'] == 'tool']
    return _completion({'content': ' '.join(f"{r['city']}: {r['temperature_c']:g}°C, {r['conditions']}." for r in reports)})
