"""What `approve` and `on_step` raising does, through `Chat` with each provider's wire format: a broken `approve` refuses
its call (fails closed) and the chat goes on; an `on_step` that raises stops the chat with its own exception, noted with
where it came from, and leaves a conversation the chat can carry on from."""
import json, sys
import pytest
from toolcall_lib.loop import Chat, ReplayClient

ran = []
def place_order(item:str, # What to buy
               ) -> str: # The order number
    "Order an item."
    ran.append(item)
    return 'order-1'

def turns(provider):
    "(a reply calling place_order, a final answer) in `provider`'s format."
    if provider == 'openai':
        return ({'role': 'assistant', 'content': None, 'tool_calls': [
                    {'id': 'o1', 'type': 'function', 'function': {'name': 'place_order', 'arguments': json.dumps({'item': 'umbrella'})}}]},
                {'role': 'assistant', 'content': 'Done.'})
    if provider == 'anthropic':
        return ({'type': 'message', 'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 'o1', 'name': 'place_order', 'input': {'item': 'umbrella'}}]},
                {'type': 'message', 'role': 'assistant', 'content': [{'type': 'text', 'text': 'Done.'}]})
    return ({'role': 'model', 'parts': [{'functionCall': {'name': 'place_order', 'args': {'item': 'umbrella'}}}]},
            {'role': 'model', 'parts': [{'text': 'Done.'}]})

PROVIDERS = ['openai', 'anthropic', 'gemini']

class Stop(Exception): pass

@pytest.mark.parametrize('provider', PROVIDERS)
def test_an_approve_that_raises_refuses_the_call(provider):
    ran.clear()
    def broken(call): raise KeyError('policy')
    chat = Chat(ReplayClient(list(turns(provider))), [place_order], provider=provider, approve=broken)
    assert chat('Buy an umbrella') == 'Done.' and ran == []
    assert 'the check that approves calls failed (KeyError), so it was refused' in json.dumps(chat.tool_results)

@pytest.mark.parametrize('provider', PROVIDERS)
@pytest.mark.parametrize('kind', ['reply', 'call', 'result'])
def test_an_on_step_that_raises_stops_the_chat_and_leaves_it_whole(provider, kind):
    ran.clear()
    def on_step(step):
        if step.kind == kind: raise Stop(kind)
    call, final = turns(provider)
    model = ReplayClient([call, final] if kind == 'result' else [call, call, final])   # before any tool ran, the model is asked again
    chat = Chat(model, [place_order], provider=provider, on_step=on_step)
    with pytest.raises(Stop) as caught: chat('Buy an umbrella')
    if sys.version_info >= (3, 11): assert caught.value.__notes__[0].startswith(f"raised by on_step at the '{kind}' step of model call 1"), caught.value.__notes__
    assert ran == ([] if kind != 'result' else ['umbrella'])
    assert len(chat.messages) == (1 if kind != 'result' else 3)   # the prompt; or the prompt, the reply and its result
    chat.on_step = None
    assert chat() == 'Done.'
    assert ran == ['umbrella'] and not model.replies   # the order was placed once, and every reply was used
