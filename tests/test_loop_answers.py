"""Typed answers (`Chat(...)(prompt, output=T)`) with the real openai, anthropic and google-genai clients against
examples/fake_provider.py: native structured output for OpenAI's two APIs, the final-answer tool elsewhere, for a
pydantic model, a dataclass, a TypedDict and a list, each with one retry after an invalid answer."""
import asyncio, json, sys
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict
import pytest
from pydantic import BaseModel

from sdk_clients import CASES, IDS, get_weather, make_client, server, openai, anthropic, genai  # noqa: F401 (server: a fixture)
from toolcall_lib.loop import AnswerError, Chat


class ForecastModel(BaseModel):
    city: str # The city
    celsius: float # Today's high

@dataclass
class ForecastData:
    city: str # The city
    celsius: float # Today's high

class ForecastDict(TypedDict):
    city: str # The city
    celsius: float # Today's high

EXPECTED = {ForecastModel: ForecastModel(city='Paris', celsius=18.5), ForecastData: ForecastData('Paris', 18.5),
            ForecastDict: {'city': 'Paris', 'celsius': 18.5}, list[ForecastData]: [ForecastData('Paris', 18.5)]}
TYPES = list(EXPECTED)


@pytest.mark.parametrize('output', TYPES, ids=['pydantic', 'dataclass', 'typeddict', 'list'])
@pytest.mark.parametrize('family,api', CASES, ids=IDS)
def test_a_typed_answer_after_one_invalid_one(server, family, api, output):
    chat = Chat(make_client(server, family), [get_weather], model='test-model', api=api)
    before = len(server.requests)
    assert chat('Weather in Paris? answer-invalid-first', output=output) == EXPECTED[output]
    bodies = [body for _, body, _ in server.requests[before:]]
    native = family == 'openai'
    asked = [('response_format' in body or 'text' in body) if native else 'final_answer' in json.dumps(body.get('tools')) for body in bodies]
    assert all(asked), asked
    assert 'does not fit' in json.dumps(bodies[-1])   # the retry told the model what was wrong

@pytest.mark.parametrize('family,api', CASES, ids=IDS)
def test_async_clients_give_typed_answers(server, family, api):
    chat = Chat(make_client(server, family, is_async=True), [get_weather], model='test-model', api=api)
    assert asyncio.run(chat.acall('Weather in Paris?', output=ForecastData)) == ForecastData('Paris', 18.5)

def test_answers_that_never_fit_end_in_a_clear_error(server):
    chat = Chat(make_client(server, 'anthropic'), [get_weather], model='test-model')
    with pytest.raises(AnswerError, match='no answer that fits ForecastData in 1 try') as raised:
        chat('Weather in Paris? answer-invalid-first', output=ForecastData, retries=0)
    assert raised.value.answer == {} and 'celsius' in raised.value.problems
