"""The real openai, anthropic and google-genai clients pointed at examples/fake_provider.py, and the one tool the
loop's SDK tests offer: shared by test_loop_answers, test_loop_rescue and test_loop_stream_events."""
import sys
from pathlib import Path
import pytest

openai = pytest.importorskip('openai')
anthropic = pytest.importorskip('anthropic')
genai = pytest.importorskip('google.genai')

sys.path.insert(0, str(Path(__file__).resolve().parent.parent/'examples'))
from fake_provider import FakeProvider

# (client family, api) for the four provider APIs, and their test ids
CASES = [('openai', None), ('openai', 'responses'), ('anthropic', None), ('gemini', None)]
IDS = ['chat-completions', 'responses', 'anthropic', 'gemini']

def get_weather(
    city:str, # City name, e.g. "Paris"
) -> str: # The forecast
    "Get today's weather for a city."
    return f'Sunny in {city}'

@pytest.fixture(scope='module')
def server():
    "A fake provider on 127.0.0.1 for the module's tests."
    with FakeProvider() as running: yield running

def make_client(server, family:str, is_async:bool=False):
    "The real SDK client of `family` ('openai', 'anthropic', 'gemini') talking to `server`."
    if family == 'openai': return (openai.AsyncOpenAI if is_async else openai.OpenAI)(base_url=server.openai_url, api_key='test', max_retries=0)
    if family == 'anthropic': return (anthropic.AsyncAnthropic if is_async else anthropic.Anthropic)(base_url=server.url, api_key='test', max_retries=0)
    client = genai.Client(api_key='test', http_options={'base_url': server.url})
    return client.aio if is_async else client
