"""The server the MCP conformance suite's server scenarios expect, written as a user of toolcall_lib writes one: plain
functions, the handles a tool asks for by annotation, and `mcp_resource` / `mcp_prompt` marks. Served by
`toolcall mcp serve tests/conformance/everything_server.py --http HOST:PORT` (tests/test_mcp_conformance.py)."""
import asyncio, base64, json
from typing import Literal
from mcp.server.mcpserver import Audio
from mcp.types import EmbeddedResource, ImageContent, TextResourceContents
from toolcall_lib.mcp import Elicitation, Log, Progress, Sampling, mcp_prompt, mcp_resource, mcp_tool

PNG = base64.b64decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==')
WAV = b'RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00\x80>\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00'

def test_simple_text() -> str:
    "Returns a simple text."
    return 'This is a simple text response for testing.'

def test_image_content() -> bytes:
    "Returns a 1x1 PNG image."
    return PNG

def test_audio_content():
    "Returns a tiny WAV sound."
    return Audio(data=WAV, format='wav')

def _note(uri:str, text:str, mime_type:str='text/plain'):
    return EmbeddedResource(type='resource', resource=TextResourceContents(uri=uri, mime_type=mime_type, text=text))

def test_embedded_resource():
    "Returns an embedded text resource."
    return _note('test://embedded-resource', 'This is an embedded resource content.')

def test_multiple_content_types():
    "Returns text, an image and an embedded resource."
    return ['Multiple content types test:', PNG, _note('test://mixed-content-resource', json.dumps({'test': 'data', 'value': 123}), 'application/json')]

async def test_tool_with_logging(log:Log) -> str:
    "Sends three log messages while it works."
    await log.info('Tool execution started')
    await asyncio.sleep(0.05)
    await log.info('Tool processing data')
    await asyncio.sleep(0.05)
    await log.info('Tool execution completed')
    return 'Logging test completed.'

async def test_tool_with_progress(progress:Progress) -> str:
    "Reports progress 0, 50 and 100 of 100."
    for done in (0, 50, 100):
        await progress(done, 100)
        if done < 100: await asyncio.sleep(0.05)
    return 'Progress test completed.'

def test_error_handling():
    "Always fails."
    raise RuntimeError('This tool intentionally returns an error for testing')

async def test_sampling(prompt:str, # The prompt to send to the client's model
                        sample:Sampling) -> str:
    "Asks the client's model for a reply."
    return f'LLM response: {await sample(prompt, max_tokens=100)}'

async def test_elicitation(message:str, # The message to show the user
                           ask:Elicitation) -> str:
    "Asks the user for a name and an email address."
    form = {'type': 'object', 'required': ['username', 'email'],
            'properties': {'username': {'type': 'string', 'description': "User's response"},
                           'email': {'type': 'string', 'description': "User's email address"}}}
    answer = await ask(message, form)
    return f'User response: action={answer.action}, content={json.dumps(answer.content)}'

async def test_elicitation_sep1034_defaults(ask:Elicitation) -> str:
    "Asks the user a form whose every field has a default."
    form = {'type': 'object', 'properties': {
        'name': {'type': 'string', 'default': 'John Doe'}, 'age': {'type': 'integer', 'default': 30},
        'score': {'type': 'number', 'default': 95.5},
        'status': {'type': 'string', 'enum': ['active', 'inactive', 'pending'], 'default': 'active'},
        'verified': {'type': 'boolean', 'default': True}}}
    answer = await ask('Please review and update the form fields with defaults', form)
    return f'Elicitation completed: action={answer.action}, content={json.dumps(answer.content)}'

async def test_elicitation_sep1330_enums(ask:Elicitation) -> str:
    "Asks the user a form with each kind of enum."
    form = {'type': 'object', 'properties': {
        'untitledSingle': {'type': 'string', 'enum': ['option1', 'option2', 'option3']},
        'titledSingle': {'type': 'string', 'oneOf': [{'const': 'value1', 'title': 'First Option'},
                                                     {'const': 'value2', 'title': 'Second Option'}, {'const': 'value3', 'title': 'Third Option'}]},
        'legacyEnum': {'type': 'string', 'enum': ['opt1', 'opt2', 'opt3'], 'enumNames': ['Option One', 'Option Two', 'Option Three']},
        'untitledMulti': {'type': 'array', 'items': {'type': 'string', 'enum': ['option1', 'option2', 'option3']}},
        'titledMulti': {'type': 'array', 'items': {'anyOf': [{'const': 'value1', 'title': 'First Choice'},
                                                            {'const': 'value2', 'title': 'Second Choice'}, {'const': 'value3', 'title': 'Third Choice'}]}}}}
    answer = await ask('Please choose from the options', form)
    return f'Elicitation completed: action={answer.action}, content={json.dumps(answer.content)}'

@mcp_tool(input_schema={
    '$schema': 'https://json-schema.org/draft/2020-12/schema', 'type': 'object',
    '$defs': {'address': {'type': 'object', 'properties': {'street': {'type': 'string'}, 'city': {'type': 'string'}}}},
    'properties': {'name': {'type': 'string'}, 'address': {'$ref': '#/$defs/address'}}, 'additionalProperties': False})
def json_schema_2020_12_tool(name:str|None=None, address:dict|None=None) -> dict:
    "Tool with JSON Schema 2020-12 features"
    return {'name': name, 'address': address}

@mcp_resource('test://static-text', mime_type='text/plain')
def static_text() -> str:
    "A static text resource."
    return 'This is the content of the static text resource.'

@mcp_resource('test://static-binary', mime_type='image/png')
def static_binary() -> bytes:
    "A static binary resource (a PNG)."
    return PNG

@mcp_resource('test://template/{id}/data', mime_type='application/json')
def template_data(id:str) -> str:
    "Data for an id."
    return json.dumps({'id': id, 'templateTest': True, 'data': f'Data for ID: {id}'})

@mcp_resource('test://watched-resource', mime_type='text/plain')
def watched_resource() -> str:
    "A resource clients may subscribe to."
    return 'Watched resource content.'

@mcp_prompt
def test_simple_prompt() -> str:
    "A simple prompt without arguments."
    return 'This is a simple prompt for testing.'

@mcp_prompt
def test_prompt_with_arguments(arg1:str, # First test argument
                               arg2:str, # Second test argument
                               tone:Literal['plain', 'polite', 'pirate']='plain', # How to say it
                              ) -> str:
    "A prompt with arguments."
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"

@mcp_prompt
def test_prompt_with_embedded_resource(resourceUri:str, # URI of the resource to embed
                                      ) -> list:
    "A prompt that embeds a resource."
    return [_note(resourceUri, 'Embedded resource content for testing.'), 'Please process the embedded resource above.']

@mcp_prompt
def test_prompt_with_image() -> list:
    "A prompt with an image."
    return [ImageContent(type='image', data=base64.b64encode(PNG).decode(), mime_type='image/png'), 'Please analyze the image above.']
