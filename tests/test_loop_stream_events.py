"""`Chat.stream` / `Chat.astream` with the real openai, anthropic and google-genai clients against
examples/fake_provider.py: one event vocabulary for every provider, in order, for a reply with reasoning, text and two
calls; `eager=True` starts the first tool before the reply ends (the fake paces its events); a stopped stream
cancels the tools still running."""
import asyncio, json, sys, time
from pathlib import Path
import pytest

from sdk_clients import CASES, IDS, get_weather, make_client, server, openai, anthropic, genai  # noqa: F401 (server: a fixture)
from fake_provider import PREFACE, REASONING
from toolcall_lib.loop import Chat



async def collected(events) -> list: return [event async for event in events]

def check_events(events:list):
    "The order every provider's stream must give, whatever the provider cuts its pieces into."
    kinds = [event.kind for event in events]
    first_call = kinds.index('call_started')
    assert kinds[0] == 'reasoning' and ''.join(e.text for e in events[:first_call] if e.kind == 'reasoning') == REASONING, kinds
    assert ''.join(e.text for e in events[:first_call] if e.kind == 'text') == PREFACE
    step = kinds.index('step_end')
    calls = [e for e in events[:step] if e.kind in ('call_started', 'call_finished')]
    for index in (0, 1):   # each call starts before it finishes, and its arguments arrive in between
        started = next(n for n, e in enumerate(events) if e.kind == 'call_started' and e.index == index)
        finished = next(n for n, e in enumerate(events) if e.kind == 'call_finished' and e.index == index)
        arguments = ''.join(e.delta for e in events[started:finished] if e.kind == 'arguments_delta' and e.index == index)
        assert started < finished and json.loads(arguments) == events[finished].call.arguments
    assert [e.call.arguments['city'] for e in events if e.kind == 'call_finished'] == ['Paris', 'Lima']
    assert len(calls) == 4
    results = [e for e in events[:step] if e.kind == 'call_result']
    assert [(e.index, e.result.value) for e in results] == [(0, 'Sunny in Paris'), (1, 'Sunny in Lima')]
    assert kinds[step - 2:step] == ['call_result', 'call_result'] and not events[step].final
    answer = ''.join(e.text for e in events[step:] if e.kind == 'text')
    assert answer.startswith('Results: ') and answer.index('Sunny in Paris') < answer.index('Sunny in Lima'), answer
    assert kinds[-1] == 'step_end' and events[-1].final

@pytest.mark.parametrize('eager', [False, True], ids=['after', 'eager'])
@pytest.mark.parametrize('is_async', [False, True], ids=['sync', 'async'])
@pytest.mark.parametrize('family,api', CASES, ids=IDS)
def test_one_vocabulary_in_order(server, family, api, is_async, eager):
    chat = Chat(make_client(server, family, is_async), [get_weather], model='test-model', api=api)
    prompt = 'Weather in Paris and Lima? think-aloud'
    events = asyncio.run(collected(chat.astream(prompt, eager=eager))) if is_async else list(chat.stream(prompt, eager=eager))
    check_events(events)
    assert len(chat.tool_results) == 2 and chat.messages[-1]   # the conversation is recorded as by chat(prompt)

def timed_tool(started:dict):
    "An async get_weather that notes in `started` when each city's call began."
    async def get_weather(city:str, # City name
                          ) -> str: # The forecast
        "Get today's weather for a city."
        started[city] = time.monotonic()
        return f'Sunny in {city}'
    return get_weather

@pytest.mark.parametrize('family,api', CASES, ids=IDS)
def test_eager_starts_the_first_tool_before_the_reply_ends(server, family, api):
    started = {}
    get_weather = timed_tool(started)
    async def run():
        chat, seen = Chat(make_client(server, family, True), [get_weather], model='test-model', api=api), []
        async for event in chat.astream('Weather in Paris and Lima? pace:40', eager=True): seen.append((time.monotonic(), event))
        return seen
    seen = asyncio.run(run())
    lima_finished = next(at for at, event in seen if event.kind == 'call_finished' and event.index == 1)
    assert started['Paris'] < lima_finished, (started, lima_finished)   # the model was still sending the second call

def test_without_eager_no_tool_starts_before_the_reply_ends(server):
    started = {}
    get_weather = timed_tool(started)
    async def run():
        chat, seen = Chat(make_client(server, 'anthropic', True), [get_weather], model='test-model', approve=lambda call: True), []
        async for event in chat.astream('Weather in Paris and Lima? pace:20', eager=True): seen.append((time.monotonic(), event))
        return seen
    seen = asyncio.run(run())
    last_finished = max(at for at, event in seen if event.kind == 'call_finished')
    assert min(started.values()) > last_finished   # an approve hook: calls wait for the whole reply

@pytest.mark.parametrize('is_async', [False, True], ids=['sync', 'async'])
def test_a_stopped_stream_cancels_running_tools(server, is_async):
    state = {'started': 0, 'cancelled': 0}
    async def get_weather(city:str, # City name
                          ) -> str: # The forecast
        "Get today's weather for a city."
        state['started'] += 1
        try: await asyncio.sleep(30)
        except asyncio.CancelledError: state['cancelled'] += 1; raise
        return 'never'
    chat = Chat(make_client(server, 'anthropic', is_async), [get_weather], model='test-model')
    async def stop_async():
        stream = chat.astream('Weather in Paris and Lima?', eager=True)
        async for event in stream:
            if event.kind == 'call_finished' and event.index == 1: break
        await asyncio.sleep(0.05)   # let the second call start
        await stream.aclose()
        return dict(state)   # before asyncio.run's own clean-up cancels anything left
    if is_async: state = asyncio.run(stop_async())
    else:
        stream = chat.stream('Weather in Paris and Lima?', eager=True)
        for event in stream:
            if event.kind == 'call_finished' and event.index == 1: time.sleep(0.05); break
        stream.close()
    assert state['started'] >= 1 and state['cancelled'] == state['started'], state
