"""The client the MCP conformance suite's client scenarios run: `mcp_tools` connecting to the URL the suite appends,
answering its questions and calling its tools as a user of toolcall_lib would (tests/test_mcp_conformance.py)."""
import asyncio, json, os, sys
from urllib.parse import parse_qs, urlparse
from toolcall_lib.mcp import mcp_tools

CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json'   # a client id document URL the test server accepts unfetched
ARGUMENTS = {'add_numbers': {'a': 2, 'b': 3}}

def accept(message:str, schema:dict) -> dict:
    "Accept every question, leaving each field at its default (the client fills the defaults in)."
    return {}

def reply(prompt:str) -> str: return f'A reply to: {prompt}'

class MemoryTokens:
    "A token store (the SDK's `TokenStorage` protocol) that keeps the tokens and the registration in memory."
    def __init__(self): self.tokens = self.client_info = None
    async def get_tokens(self): return self.tokens
    async def set_tokens(self, tokens): self.tokens = tokens
    async def get_client_info(self): return self.client_info
    async def set_client_info(self, client_info): self.client_info = client_info

class Browser:
    "Stands in for the user's browser: opens the authorization URL, and hands back the code the redirect carries."
    def __init__(self): self.redirect = None
    async def open(self, authorization_url:str):
        import httpx2
        async with httpx2.AsyncClient(follow_redirects=False) as http:
            self.redirect = (await http.get(authorization_url)).headers.get('location')
    async def callback(self):
        from mcp.shared.auth import AuthorizationCodeResult
        query = parse_qs(urlparse(self.redirect or '').query)
        return AuthorizationCodeResult(code=query['code'][0], state=(query.get('state') or [None])[0], iss=(query.get('iss') or [None])[0])

def oauth(url:str):
    "The SDK's OAuth client provider: authorization code with PKCE, the browser's part played by `Browser`."
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata
    from mcp.shared.auth import OAuthClientInformationFull
    browser, tokens = Browser(), MemoryTokens()
    redirect_uris = ['http://localhost:3000/callback']
    metadata = OAuthClientMetadata(client_name='toolcall conformance client', redirect_uris=redirect_uris,
                                   grant_types=['authorization_code', 'refresh_token'], response_types=['code'])
    context = json.loads(os.environ.get('MCP_CONFORMANCE_CONTEXT') or '{}')
    if context.get('client_id'):   # a client registered beforehand: no dynamic registration
        tokens.client_info = OAuthClientInformationFull(client_id=context['client_id'], client_secret=context.get('client_secret'),
                                                        redirect_uris=redirect_uris, token_endpoint_auth_method='client_secret_basic')
    return OAuthClientProvider(url, metadata, tokens, redirect_handler=browser.open, callback_handler=browser.callback,
                               client_metadata_url=CLIENT_METADATA_URL)   # used where the server takes URL client ids (SEP-991)

async def main(url:str):
    scenario = os.environ.get('MCP_CONFORMANCE_SCENARIO', '')
    auth = oauth(url) if scenario.startswith('auth/') else None
    async with mcp_tools(url, elicitation=accept, sampling=reply, auth=auth) as tools:
        for name in tools:
            try: print(name, await tools.call(name, ARGUMENTS.get(name, {})))
            except Exception as error: print(name, 'failed:', error)   # a scenario checks the exchange, not our printout

if __name__ == '__main__':
    asyncio.run(main(sys.argv[-1]))
