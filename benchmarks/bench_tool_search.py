"""Tool search on a large catalog of real tools: the tokens of the first request with and without search, and how often
the search finds the right tool for 50 tasks, beside a plain keyword match measured in the same run.

The catalog: every documented public function of some forty standard-library modules and of numpy (its top level,
linalg, fft, random), each a tool named `module_function` whose description and parameter descriptions come from its
own docstring (as `docstring_parser` reads it), plus the tools of an MCP server (the library's FileToolset and
MemoryToolset served by `mcp_server`, listed through the real mcp SDK client). The tasks are written as a user would
ask, from the tools' docs, each with the tool (or tools) that does it.

Tokens are counted with OpenAI's o200k_base encoding (`bpe-openai`, which carries its tables: no download) on the
tools of the first Chat Completions request as `Chat` sends them; without that package they are estimated as bytes / 4.
With Anthropic's own search the deferred definitions still travel in the request, but the provider keeps them out of
the model's context: the row counts what enters the context. OpenAI Responses' own search defers a function's
parameters but still shows the model its name and description (OpenAI's tool search guide): that row counts those.

Run: `python benchmarks/bench_tool_search.py`; `run()` returns the rows as a list of dicts."""
import asyncio, importlib, inspect, json, re, tempfile, time, warnings

import docstring_parser

from toolcall_lib.dispatch import mk_tool
from toolcall_lib.loop import Chat
from toolcall_lib.tool_search import ToolSearch, index_for, tool_document, _INDEXES

MODULES = ['math', 'cmath', 'statistics', 'os', 'os.path', 'shutil', 'string', 'textwrap', 'json', 're', 'random', 'itertools',
           'functools', 'hashlib', 'base64', 'binascii', 'urllib.parse', 'html', 'difflib', 'zlib', 'gzip', 'bz2', 'lzma', 'csv',
           'calendar', 'fnmatch', 'glob', 'colorsys', 'bisect', 'heapq', 'operator', 'time', 'uuid', 'secrets', 'keyword',
           'unicodedata', 'platform', 'tempfile', 'shlex', 'struct', 'ipaddress', 'email.utils', 'copy', 'pprint', 'inspect',
           'numpy', 'numpy.linalg', 'numpy.fft', 'numpy.random']

# (task, the tools that do it): written from the tools' docs, in a user's words
TASKS = [
    ('Find the largest integer that divides both 84 and 126 evenly', ['math_gcd']),
    ('Get the distance from the origin to the point (3, 4)', ['math_hypot', 'math_dist']),
    ('What is the middle value of this list of numbers?', ['statistics_median']),
    ('Compute the sample standard deviation of my measurements', ['statistics_stdev']),
    ('Split a filename into its base name and its extension', ['os_path_splitext']),
    ('Copy the contents of one file to another file', ['shutil_copyfile', 'shutil_copy']),
    ('Delete a directory and everything inside it', ['shutil_rmtree']),
    ('Remove the common leading whitespace from every line of a text block', ['textwrap_dedent']),
    ('Wrap a long paragraph into lines of at most 40 characters', ['textwrap_wrap', 'textwrap_fill']),
    ('Serialize a Python object to a JSON formatted string', ['json_dumps']),
    ('Replace every match of a regular expression in a string', ['re_sub', 're_subn']),
    ('Return all non-overlapping matches of a pattern in a string', ['re_findall', 're_finditer']),
    ('Randomly reorder the items of a list in place', ['random_shuffle']),
    ('Pick one random element from a sequence', ['random_choice', 'numpy_random_choice']),
    ('Compute a SHA-256 hash of some bytes', ['hashlib_sha256']),
    ('Encode binary data as base64 text', ['base64_b64encode', 'base64_standard_b64encode', 'binascii_b2a_base64']),
    ('Percent-encode special characters so a string is safe to put in a URL', ['urllib_parse_quote', 'urllib_parse_quote_plus']),
    ('Break a URL into its scheme, host, path and query', ['urllib_parse_urlparse', 'urllib_parse_urlsplit']),
    ('Turn characters like < and & into HTML-safe sequences', ['html_escape']),
    ('Suggest the words from a list closest to a misspelled word', ['difflib_get_close_matches']),
    ('Compress a block of bytes with zlib', ['zlib_compress']),
    ('Check whether 2024 is a leap year', ['calendar_isleap']),
    ('Test if a filename matches a shell wildcard pattern like *.txt', ['fnmatch_fnmatch', 'fnmatch_fnmatchcase']),
    ('List the file paths that match a wildcard pattern', ['glob_glob', 'glob_iglob']),
    ('Convert an angle from degrees to radians', ['math_radians', 'numpy_deg2rad', 'numpy_radians']),
    ('Insert an item into a sorted list so that it stays sorted', ['bisect_insort', 'bisect_insort_left', 'bisect_insort_right']),
    ('Get the n biggest elements of a dataset', ['heapq_nlargest']),
    ('Generate a random UUID', ['uuid_uuid4']),
    ('Create a random hexadecimal token for a password reset link', ['secrets_token_hex']),
    ('Split a command line into arguments the way a shell does', ['shlex_split']),
    ('Parse a string into an IPv4 or IPv6 address', ['ipaddress_ip_address']),
    ('Pause the program for a few seconds', ['time_sleep']),
    ('Compute the inverse of a square matrix', ['numpy_linalg_inv']),
    ('Find the determinant of a matrix', ['numpy_linalg_det']),
    ('Compute the eigenvalues and eigenvectors of a square array', ['numpy_linalg_eig', 'numpy_linalg_eigh']),
    ('Compute the one-dimensional discrete Fourier transform of a signal', ['numpy_fft_fft']),
    ('Compute the arithmetic mean of an array along an axis', ['numpy_mean', 'numpy_average', 'numpy_nanmean']),
    ('Make evenly spaced numbers over an interval', ['numpy_linspace', 'numpy_arange']),
    ('Join a sequence of arrays along an existing axis', ['numpy_concatenate']),
    ('Swap the axes of an array', ['numpy_transpose', 'numpy_swapaxes', 'numpy_moveaxis']),
    ('Find the index of the largest value in an array', ['numpy_argmax', 'numpy_nanargmax']),
    ('Running total of the elements of an array', ['numpy_cumsum']),
    ('Find the distinct elements of an array', ['numpy_unique', 'numpy_unique_values']),
    ('Limit the values of an array to a minimum and a maximum', ['numpy_clip']),
    ('Fit a polynomial to data points by least squares', ['numpy_polyfit']),
    ('Count how many values fall into each bin', ['numpy_histogram', 'numpy_bincount']),
    ('Draw random samples from a Gaussian distribution', ['numpy_random_normal', 'numpy_random_randn']),
    ('Choose elements from x or y depending on a condition', ['numpy_where']),
    ('Read the text of a file in the workspace', ['file_read']),
    ('Remember a value under a key for later', ['memory_store']),
]

def _function_tool(name:str, func) -> dict|None:
    "An MCP-style definition of `func` from its signature and docstring, or None when it has neither."
    doc = inspect.getdoc(func) or ''
    if not doc.strip(): return None
    parsed = docstring_parser.parse(doc)
    described = {param.arg_name.strip('*'): (param.description or '').split('\n')[0] for param in parsed.params}
    try: names = [p.name for p in inspect.signature(func).parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    except (TypeError, ValueError): names = list(described)   # a builtin without a signature: its documented parameters
    properties = {name: {'description': described.get(name, '')} for name in names
                  if name.isidentifier() and name not in ('self', 'cls')}
    description = '\n\n'.join(part for part in (parsed.short_description, parsed.long_description) if part)[:1500]
    return {'name': name, 'description': description or doc[:1500], 'inputSchema': {'type': 'object', 'properties': properties}}

def _stdlib_and_numpy() -> list:
    definitions, seen = [], set()
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        names = getattr(module, '__all__', None) or [n for n in dir(module) if not n.startswith('_')]
        for attribute in sorted(set(names)):
            func = getattr(module, attribute, None)
            if not callable(func) or isinstance(func, type) or attribute.startswith('_'): continue   # functions, builtins, numpy's ufuncs and dispatchers
            name = f"{module_name.replace('.', '_')}_{attribute}"
            if name in seen or len(name) > 64: continue
            definition = _function_tool(name, func)
            if definition: definitions.append(definition); seen.add(name)
    return definitions

async def _mcp_definitions() -> list:
    from toolcall_lib.mcp import mcp_server, mcp_tools
    from toolcall_lib.toolset import FileToolset, MemoryToolset
    async with mcp_tools(mcp_server([FileToolset(tempfile.mkdtemp()), MemoryToolset()])) as tools: return list(tools.definitions)

def catalog() -> dict:
    "name -> callable for every tool of the catalog (callables made from the definitions, as `mcp_tools` makes them)."
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        definitions = _stdlib_and_numpy() + asyncio.run(_mcp_definitions())
        def unused(tool_name, /, **arguments): raise RuntimeError('the benchmark never calls a tool')
        return {definition['name']: mk_tool(unused, definition) for definition in definitions}

def count_tokens():
    "A function text -> tokens, and its name."
    try:
        import bpe_openai
        encoding = bpe_openai.get_encoding('o200k_base')
        return (lambda text: len(encoding.encode(text))), 'o200k_base tokens'
    except ImportError: return (lambda text: len(text.encode()) // 4), 'tokens (bytes / 4: pip install bpe-openai to count)'

_WORDS = re.compile(r'[a-z0-9]+')
_STOP = frozenset('a an and are as at be by for from in into is it of on or so that the this to with my me some can its'.split())

def keyword_search(query:str, documents:dict, limit:int=5) -> list:
    "The peer: tools ranked by how many of the query's words (lower-cased, no stop words) their text holds."
    wanted = set(_WORDS.findall(query.lower())) - _STOP
    scored = [(len(wanted & set(_WORDS.findall(text.lower()))), order, name) for order, (name, text) in enumerate(documents.items())]
    return [name for score, _, name in sorted(scored, key=lambda s: (-s[0], s[1]))[:limit] if score > 0]

def run() -> list:
    tools = catalog()
    tokens, unit = count_tokens()
    def request_tokens(chat) -> int: return tokens(json.dumps([t for t in chat.tools if not t.get('defer_loading')]))
    _INDEXES.clear()
    started = time.perf_counter()
    local = Chat(lambda messages, tools: None, tools, tool_search=True)
    cold = time.perf_counter() - started
    started = time.perf_counter()
    Chat(lambda messages, tools: None, tools, tool_search=True)
    warm = time.perf_counter() - started
    everything = Chat(lambda messages, tools: None, tools)
    native = Chat(lambda messages, tools, system=None: None, tools, provider='anthropic', tool_search=True)
    responses = Chat(lambda messages, tools: None, tools, provider='openai-responses', tool_search=True)
    rows = [{'case': f'first request, all {len(tools)} tools (Chat Completions)', 'value': request_tokens(everything), 'unit': unit},
            {'case': 'first request, local tool search (Chat Completions)', 'value': request_tokens(local), 'unit': unit},
            {'case': "first request, Anthropic's own tool search (in the model's context)", 'value': request_tokens(native), 'unit': unit},
            {'case': "first request, Anthropic's own tool search (sent, deferred ones included)", 'value': tokens(json.dumps(native.tools)), 'unit': unit},
            {'case': "first request, Responses' own tool search (names and descriptions stay in context)",
             'value': tokens(json.dumps([{'name': t['name'], 'description': t.get('description', '')} for t in responses.tools if t.get('name')])), 'unit': unit}]
    documents = {name: tool_document(name, func) for name, func in tools.items()}
    index = index_for(documents)
    missing = [name for _, targets in TASKS for name in targets[:1] if name not in tools]
    assert not missing, f'tasks whose tool is not in the catalog: {missing}'
    for limit in (1, 5):
        bm25 = sum(any(name in targets for name in index.search(task, limit)) for task, targets in TASKS)
        keyword = sum(any(name in targets for name in keyword_search(task, documents, limit)) for task, targets in TASKS)
        rows.append({'case': f'recall@{limit} over {len(TASKS)} tasks: BM25 tool search', 'value': 100 * bm25 / len(TASKS), 'unit': '%',
                     'peer': 100 * keyword / len(TASKS), 'peer_name': 'plain keyword match'})
    started = time.perf_counter()
    for task, _ in TASKS: index.search(task, 5)
    searched = (time.perf_counter() - started) / len(TASKS)
    started = time.perf_counter()
    for task, _ in TASKS: keyword_search(task, documents, 5)
    keyword_time = (time.perf_counter() - started) / len(TASKS)
    rows += [{'case': 'one search, BM25', 'value': searched * 1e3, 'unit': 'ms', 'peer': keyword_time * 1e3, 'peer_name': 'plain keyword match'},
             {'case': f'Chat(..., tool_search=True) over {len(tools)} tools: index built', 'value': cold * 1e3, 'unit': 'ms',
              'peer': warm * 1e3, 'peer_name': 'the same catalog again (index reused)'}]
    rows[1]['peer'], rows[1]['peer_name'] = rows[0]['value'], 'all tools'
    rows[2]['peer'], rows[2]['peer_name'] = rows[0]['value'], 'all tools'
    return rows

if __name__ == '__main__':
    for row in run():
        peer = f"  vs {row['peer']:.4g} {row['unit']} ({row['peer_name']}, ratio {row['value'] / row['peer']:.3g})" if row.get('peer') else ''
        print(f"{row['case']:<84} {row['value']:>10.4g} {row['unit']}{peer}")
