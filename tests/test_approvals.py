"""Approvals that survive a restart, in one process, through `Chat` with the real openai, anthropic and google-genai
clients talking to the scripted provider (examples/fake_provider.py) on 127.0.0.1: `approve` answering `LATER` stops
the run, `Chat.resume` carries it on; only an explicit approval bound to the call and its exact arguments runs it,
once. tests/test_approvals_restart.py does the same across killed and new processes."""
import asyncio, dataclasses, json, threading
import pytest

from sdk_clients import CASES, IDS, make_client, server   # noqa: F401 (server is a fixture)
from toolcall_lib.approvals import (LATER, ApprovalError, ApprovalStore, Decision, PausedRun, RunAlreadyResumed, RunPaused,
                                    WaitingCall)
from toolcall_lib.loop import Chat, SettingError, run_tools

class Tools:
    "The tools, counting their calls."
    def __init__(self): self.weather, self.orders, self.lock = [], [], threading.Lock()
    def functions(self):
        def get_weather(
            city:str, # City name, e.g. "Paris"
        ) -> str: # The forecast
            "Get today's weather for a city."
            with self.lock: self.weather.append(city)
            return f'Sunny in {city}'
        def place_order(
        ) -> str: # The order number
            "Order an umbrella."
            with self.lock: self.orders.append('umbrella')
            return f'order-{len(self.orders)}'
        return [get_weather, place_order]

ORDER_LATER = lambda call: LATER if call.name == 'place_order' else True
PROMPT = 'Weather in Paris? If it rains, place_order'

def chat_for(server, family, api, tools:Tools, store=None, approve=ORDER_LATER, is_async=False):
    return Chat(make_client(server, family, is_async), tools.functions(), model='m', api=api, approve=approve, approvals=store)

def paused(chat, prompt=PROMPT) -> PausedRun:
    with pytest.raises(RunPaused) as stopped: chat(prompt)
    return stopped.value.state

@pytest.mark.parametrize('family,api', CASES, ids=IDS)
def test_a_paused_run_resumes_in_a_new_chat_and_each_call_runs_once(server, family, api, tmp_path):
    tools, store = Tools(), ApprovalStore(tmp_path/'approvals.db')
    state = paused(chat_for(server, family, api, tools, store))
    assert [call.name for call in state.waiting] == ['place_order'] and [r.name for r in state.results] == ['get_weather']
    assert tools.weather == ['Paris'] and tools.orders == []   # the approved call ran before the stop; the order waits
    saved = store.load(state.run_id)
    assert saved == state and PausedRun.from_json(saved.to_json()) == state
    later = chat_for(server, family, api, tools, ApprovalStore(tmp_path/'approvals.db'))   # as another process would
    answer = later.resume(state.run_id, [call.approve() for call in saved.waiting])
    assert answer.startswith('Results: ') and 'Sunny in Paris' in answer and 'order-1' in answer, answer
    assert tools.weather == ['Paris'] and tools.orders == ['umbrella']
    with pytest.raises(RunAlreadyResumed): later.resume(state.run_id, [call.approve() for call in saved.waiting])
    assert tools.orders == ['umbrella'] and store.waiting() == []

def refused_text(chat) -> str:
    return ' '.join(str(result) for result in chat.tool_results)

@pytest.mark.parametrize('family,api', CASES, ids=IDS)
def test_a_refusal_goes_back_to_the_model(server, family, api):
    tools = Tools()
    chat = chat_for(server, family, api, tools)
    state = paused(chat)
    answer = chat.resume(state, [state.waiting[0].refuse('Orders need a manager.')])
    assert 'Orders need a manager.' in answer and tools.orders == []

def test_a_forged_decision_refuses(server):
    tools = Tools()
    chat = chat_for(server, 'openai', None, tools)
    state = paused(chat)
    forged = Decision(state.waiting[0].call_id, 'f' * 64, True)
    answer = chat.resume(state, [forged])
    assert 'another call or other arguments' in answer and tools.orders == []

def test_a_decision_replayed_on_another_run_refuses(server, tmp_path):
    "The scripted model's call ids repeat (call_0, call_1): a decision for the same id in another run still approves nothing."
    tools, store = Tools(), ApprovalStore(tmp_path/'approvals.db')
    first = paused(chat_for(server, 'openai', None, tools, store))
    decisions = [call.approve() for call in first.waiting]
    chat_for(server, 'openai', None, tools, store).resume(first.run_id, decisions)
    assert tools.orders == ['umbrella']
    second = paused(chat_for(server, 'openai', None, tools, store))
    assert [call.call_id for call in second.waiting] == [call.call_id for call in first.waiting]   # same id, other run
    chat = chat_for(server, 'openai', None, tools, store)
    answer = chat.resume(second.run_id, decisions)
    assert 'another call or other arguments' in answer and tools.orders == ['umbrella']

def test_a_decision_replayed_as_json_after_the_resume_runs_nothing(server):
    tools = Tools()
    chat = chat_for(server, 'openai', None, tools)
    state = paused(chat)
    sent = [json.loads(json.dumps(call.approve().to_dict())) for call in state.waiting]   # as a web page would send it
    chat.resume(PausedRun.from_json(state.to_json()), sent)
    with pytest.raises(RunAlreadyResumed): chat.resume(PausedRun.from_json(state.to_json()), sent)   # no store: claimed in this process
    assert tools.orders == ['umbrella']

def test_changed_arguments_refuse(server, tmp_path):
    "The person approved Paris; the stored state is edited to Tokyo before the resume: nothing runs."
    tools, store = Tools(), ApprovalStore(tmp_path/'approvals.db')
    state = paused(chat_for(server, 'anthropic', None, tools, store, approve=lambda call: LATER), 'Weather in Paris?')
    approved = [call.approve() for call in state.waiting]
    assert state.waiting[0].shown == {'city': 'Paris'} and tools.weather == []
    edited = dataclasses.replace(state, slots=tuple(dataclasses.replace(slot, arguments={'city': 'Tokyo'})
                                                    if isinstance(slot, WaitingCall) else slot for slot in state.slots))
    store.save(edited)
    answer = chat_for(server, 'anthropic', None, tools, store).resume(state.run_id, approved)
    assert 'another call or other arguments' in answer and tools.weather == []

def test_the_digest_is_over_the_coerced_arguments(server):
    "A decision is bound to the arguments as they will run: '2' for an int reads as 2, and another number does not match."
    from toolcall_lib.approvals import call_digest
    state = paused(chat_for(server, 'openai', None, Tools(), approve=lambda call: LATER), 'Weather in Lima?')
    call = state.waiting[0]
    assert call.digest == call_digest(state.run_id, state.pause, position=0, call_id=call.call_id, name='get_weather', arguments={'city': 'Lima'})

@pytest.mark.parametrize('answer', [1, 'yes', None, [True], {'approved': True}, 'true'], ids=repr)
def test_only_true_approves(server, answer):
    tools = Tools()
    chat = chat_for(server, 'openai', None, tools, approve=lambda call: answer)
    chat('Weather in Paris?')
    assert tools.weather == [], f'{answer!r} ran the call'

def test_a_raising_approve_refuses(server):
    tools = Tools()
    def broken(call): raise ConnectionError('the approvals service is down')
    chat = chat_for(server, 'gemini', None, tools, approve=broken)
    answer = chat('Weather in Paris? place_order')
    assert tools.weather == [] and tools.orders == [] and 'the check that approves calls failed (ConnectionError)' in answer

def test_a_decision_that_is_not_exactly_true_refuses(server):
    tools = Tools()
    chat = chat_for(server, 'openai', None, tools)
    state = paused(chat)
    call = state.waiting[0]
    answer = chat.resume(state, [{'call_id': call.call_id, 'digest': call.digest, 'approved': 'true'}])
    assert 'did not allow' in answer and tools.orders == []

def test_a_decision_for_no_waiting_call_raises_before_claiming(server):
    tools = Tools()
    chat = chat_for(server, 'openai', None, tools)
    state = paused(chat)
    with pytest.raises(ApprovalError, match='do not wait'): chat.resume(state, [Decision('call_9', 'x', True)])
    chat.resume(state, [call.approve() for call in state.waiting])   # not claimed by the mistake
    assert tools.orders == ['umbrella']

def test_two_concurrent_resumes_run_the_call_once(server, tmp_path):
    tools, store = Tools(), ApprovalStore(tmp_path/'approvals.db')
    state = paused(chat_for(server, 'openai', None, tools, store))
    decisions = [call.approve() for call in state.waiting]
    outcomes, start = [], threading.Barrier(4)
    def resume():
        chat = chat_for(server, 'openai', None, tools, ApprovalStore(tmp_path/'approvals.db'))   # a connection each
        start.wait()
        try: outcomes.append(chat.resume(state.run_id, decisions))
        except RunAlreadyResumed: outcomes.append('already')
    threads = [threading.Thread(target=resume) for _ in range(4)]
    for thread in threads: thread.start()
    for thread in threads: thread.join(60)
    assert sorted(outcome == 'already' for outcome in outcomes) == [False, True, True, True], outcomes
    assert tools.orders == ['umbrella']

def test_async_resumes_at_once_run_the_call_once(server):
    tools = Tools()
    store = ApprovalStore()
    state = paused(chat_for(server, 'anthropic', None, tools, store))
    decisions = [call.approve() for call in state.waiting]
    async def both():
        chats = [chat_for(server, 'anthropic', None, tools, store, is_async=True) for _ in range(2)]
        return await asyncio.gather(*(chat.aresume(state.run_id, decisions) for chat in chats), return_exceptions=True)
    outcomes = asyncio.run(both())
    assert sum(isinstance(outcome, RunAlreadyResumed) for outcome in outcomes) == 1, outcomes
    assert tools.orders == ['umbrella']

def test_a_resumed_run_may_pause_again_under_its_run_id(server):
    tools, store = Tools(), ApprovalStore()
    asked = []
    def every_call_later(call): asked.append(call.name); return LATER
    state = paused(chat_for(server, 'openai', None, tools, store, approve=every_call_later), 'Weather in Paris?')
    chat = Chat(lambda messages, tools: {'role': 'assistant', 'content': None, 'tool_calls': [
                    {'id': 'call_0', 'type': 'function', 'function': {'name': 'place_order', 'arguments': '{}'}}]}
                if messages[-1].get('role') == 'tool' and 'order' not in str(messages[-1]['content']) else
                {'role': 'assistant', 'content': 'Done.'},
                tools.functions(), approve=every_call_later, approvals=store)
    with pytest.raises(RunPaused) as again: chat.resume(state.run_id, [call.approve() for call in state.waiting])
    second = again.value.state
    assert (second.run_id, second.pause, [c.name for c in second.waiting]) == (state.run_id, 2, ['place_order'])
    assert tools.weather == ['Paris'] and tools.orders == []
    # the first pause's decision, replayed on the second (same call id, call_0), approves nothing
    first_decision = Decision('call_0', state.waiting[0].digest, True)
    assert chat.resume(state.run_id, [first_decision]) == 'Done.' and tools.orders == []

def test_run_tools_cannot_wait_and_says_so():
    tools = Tools()
    reply = {'role': 'assistant', 'content': None, 'tool_calls': [
        {'id': 'a', 'type': 'function', 'function': {'name': 'get_weather', 'arguments': '{"city": "Paris"}'}},
        {'id': 'b', 'type': 'function', 'function': {'name': 'place_order', 'arguments': '{}'}}]}
    with pytest.raises(SettingError, match='keeps no conversation'): run_tools(reply, tools.functions(), approve=ORDER_LATER)
    assert tools.weather == [] and tools.orders == []   # nothing ran

def test_a_state_of_another_format_is_refused_clearly(server):
    chat = chat_for(server, 'openai', None, Tools())
    state = paused(chat)
    with pytest.raises(SettingError, match='paused in the openai format'):
        chat_for(server, 'anthropic', None, Tools()).resume(state, [])
    with pytest.raises(SettingError, match='approvals=ApprovalStore'): chat.resume('some-run-id', [])
    with pytest.raises(ApprovalError, match='not a paused run'): PausedRun.from_json('{"format": "x"}')

def test_calls_rescued_from_the_text_pause_and_resume(server):
    "A server that left the calls in the reply's text (leak:hermes): they pause alike, and their results go back in one message."
    tools = Tools()
    chat = chat_for(server, 'openai', None, tools)
    state = paused(chat, 'Weather in Paris? place_order leak:hermes')
    assert state.rescued and [call.name for call in state.waiting] == ['place_order'] and tools.weather == ['Paris']
    answer = chat.resume(PausedRun.from_json(state.to_json()), [call.approve() for call in state.waiting])
    assert 'order-1' in answer and tools.orders == ['umbrella'], answer

def test_a_raw_text_model_pauses_and_resumes():
    from toolcall_lib.loop import ReplayClient
    tools = Tools()
    model = ReplayClient(['<tool_call>{"name": "get_weather", "arguments": {"city": "Lima"}}</tool_call>'
                          '<tool_call>{"name": "place_order", "arguments": {}}</tool_call>', 'Ordered.'])
    chat = Chat(model, tools.functions(), provider='text', approve=ORDER_LATER)
    state = paused(chat)
    assert [call.call_id for call in state.waiting] == ['call_1'] and tools.weather == ['Lima']
    assert chat.resume(state, [call.approve() for call in state.waiting]) == 'Ordered.'
    assert tools.orders == ['umbrella'] and [m['role'] for m in model.requests[1]['messages']] == ['user', 'assistant', 'tool', 'tool']

def test_a_stream_stops_with_the_run(server):
    tools = Tools()
    chat = chat_for(server, 'anthropic', None, tools)
    kinds = []
    with pytest.raises(RunPaused) as stopped:
        for event in chat.stream(PROMPT): kinds.append(event.kind)
    assert 'call_finished' in kinds and 'call_result' not in kinds and tools.weather == ['Paris']
    state = stopped.value.state
    assert 'order-1' in chat.resume(state, [call.approve() for call in state.waiting]) and tools.orders == ['umbrella']

def test_a_store_that_fails_to_save_still_hands_over_the_state(server):
    "The calls approved in the reply have run: when the store cannot keep the state, RunPaused still carries it, unsaved."
    from toolcall_lib.toolset import InMemoryBackend
    class Broken(InMemoryBackend):
        def put(self, key, value, tags, now): raise ConnectionError('the database is away')
    tools = Tools()
    chat = chat_for(server, 'openai', None, tools, ApprovalStore(backend=Broken()))
    with pytest.raises(RunPaused, match='not saved anywhere') as stopped: chat(PROMPT)
    assert not stopped.value.saved and isinstance(stopped.value.__cause__, ConnectionError) and tools.weather == ['Paris']
    state = stopped.value.state
    assert 'order-1' in chat_for(server, 'openai', None, tools).resume(state, [call.approve() for call in state.waiting])
