# %% [markdown]
# # Formats opened by a tag: `<tool_call>`, `<invoke>`, `<function=...>` and their kin
#
# > The tool-call formats whose calls sit in XML-like tags, one short section per family, each registered in the format table.
#
# Most open models wrap a call in a tag: Hermes and Qwen in `<tool_call>`, Claude-style and MiniMax output in
# `<invoke>` elements, DeepSeek's DSML and GigaChat's GCML in prefixed tags, GLM and Hunyuan in `<arg_key>`/`<arg_value>`
# pairs. Each section below is one family: the tag that opens it, what closes it, the reader of its body, and its real
# outputs as tests. The body readers that several families share (the `<tool_call>` body, `<invoke>` elements,
# key/value pairs) are built in the first sections and described by their tags, so a family that differs only in its
# tags is data for the same reader. A user never calls this module: `parse_tool_calls` finds these formats once the
# package is imported.

# %%
#| default_exp parse.tags

# %%
#| export
from __future__ import annotations
import dataclasses, html, json, re
from toolcall_lib.parse.payloads import (_Budget, _CDATA_CLOSE, _CDATA_OPEN, _FAILED, _Finder, _NotJSON, _RawCall, _UNNAMED, _add_argument,
    _calls_from_payload, _child_elements, _child_fields, _element_value, _elements, _identifier_end, _loads,
    _json, _looks_pythonic, _parameters, _payload_calls, _pythonic_calls, _scan_attributes, _scan_value, _skip_space,
    _valid_name)
from toolcall_lib.parse.core import (_Block, _FAMILIES, _NO_EVENTS, _OPENER_RUNS, _RUN, _SHORTCUTS, _add_examples, _add_reader, _block_opener,
    _ends, _hidden, _json_call, _markers, _python_call, _read, _bare_name, _all_refused, _reasoning_opener, _register)
from toolcall_lib.parse.results import ParseResult, ToolCall, _policy_for

# %%
#| hide
from fastcore.test import test_eq, test_fail
from toolcall_lib.parse import parse_tool_calls, ToolCallStreamParser

# %%
from toolcall_lib.parse import parse_tool_calls

parse_tool_calls('Checking.<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>').calls

# %%
#| hide
from toolcall_lib.parse import core
core._forget('toolcall_lib.parse.tags')   # the package declared this notebook's families: running it declares them anew

# %%
def show(text, tools=None):
    result = parse_tool_calls(text, tools)
    return [(call.format, call.name, call.arguments) for call in result.calls], result.text

def stream_calls(text, size, tools=None):
    "The calls a stream fed `size` characters at a time finds, as `show` lists them."
    parser = ToolCallStreamParser(tools)
    for start in range(0, len(text), size): parser.feed(text[start:start + size])
    parser.close()
    return [(call.format, call.name, call.arguments) for call in parser.result.calls]

rule = lambda text: ([(c.name, c.arguments) for c in parse_tool_calls(text).calls],
                     [(r.name, r.format, r.reason) for r in parse_tool_calls(text).rejected])
names = lambda calls: [(call.name, call.arguments) for call in calls]
def both_ways(text, tools=None):
    "The calls and refusals, one-shot, after checking that a stream in several cuttings finds exactly the same result."
    one_shot = parse_tool_calls(text, tools)
    for size in (1, 2, 5, 17):
        parser = ToolCallStreamParser(tools)
        for start in range(0, len(text), size): parser.feed(text[start:start + size])
        parser.close()
        test_eq(parser.result, one_shot)
    return [(c.name, c.arguments, c.complete) for c in one_shot.calls], [(r.name, r.reason) for r in one_shot.rejected]

# %% [markdown]
# ## The tag opener
#
# Every family here opens with a tag: `_tag_markers(name)` are the markers of `<name` and one delimiter, and
# `_tag_opener` reads `<name attributes>` up to `</name>` (or the next opener of its kind, or the end of the text) as a
# block of the scanner's (`02_core`), handing the family's readers the body, the tag's attributes and the opening tag.

# %%
#| export
def _tag_markers(name:str) -> tuple:
    "The markers that open the tag `<name>`: its name and then `>` or a space."
    return tuple(f'<{name}{end}' for end in ('>', ' ', '\n', '\t', '\r'))

def _tag_opener(name:str, closers:tuple=(), preview:bool=False, block=_Block, quick=None):
    """`open` for `<tag attributes>body</tag>` (the marker is `<tag` and one delimiter); the family's readers take
    `(body, scanner, attributes, opening tag)`. `closers`: more closing tags. `preview`: the body is Hermes JSON whose
    name a stream can announce early. `block`: the pending class (a `_Block` that may do more once it closed). `quick`:
    `(scanner, text, position, marker, stoppers, name, final)` -> a bare opener's segment found without a block, or None."""
    ends = {}   # marker -> (closers, stoppers, their `_ends`) of its tag
    def open(scanner, text, position, marker, final):
        end = text.find('>', position, position + 1024)
        if end == -1: return None if not final and len(text) - position < 1024 else False
        tag_ends = ends.get(marker)
        if tag_ends is None:
            tag_closers, stoppers = (f'</{marker[1:-1]}>',) + closers, (f'<{marker[1:-1]}>', f'<{marker[1:-1]} ')
            tag_ends = ends[marker] = (tag_closers, stoppers, _ends(tag_closers, stoppers))
        if quick is not None and end == position + len(marker) - 1:
            if (found := quick(scanner, text, position, marker, tag_ends[1], name, final)) is not None: return found
        attributes, opening = _scan_attributes(text[position + len(marker) - 1:end]), text[position:end + 1]
        def read(body, scanner):
            ahead, budget = scanner.empty_reads.pop(_READ_AHEAD, None), scanner.budget
            # what `_reads_nothing` found in this very body just before, from the same budget: not read twice
            if ahead is not None and ahead[:4] == (name, opening, body, (budget.remaining, budget.attempts)):
                budget.remaining, budget.attempts = ahead[5]
                return ahead[4]
            return _read(name, body, scanner, attributes, opening)
        scanner.pending = block(position, end + 1, tag_ends[0], tag_ends[1], read, 'hermes' if preview else None, tag_ends[2])
        return scanner.pending.resume(scanner, text, final)
    return open

# %% [markdown]
# ## Element readers at their plainest
#
# The element readers of `00_payloads` (`_elements`, `_parameters`) look past every CDATA section for their closers,
# with a `_Finder` that remembers each search, one element at a time. Most bodies hold no CDATA section, and hostile
# text repeats such bodies by the ten thousand (`<invoke name="x17"><parameter name="a">`), each read on its own. For
# a body without `<![CDATA[`, `_plain_elements` finds the same elements in one plain loop of `str.find`, and
# `_plain_parameters` reads them as `_parameters` does; a body with a section goes to the general readers. The tests
# below check both against the general readers on random bodies.

# %%
#| export
def _plain_elements(body:str, opener:str, closer:str) -> list:
    """What `_elements(body, opener, closer, _Finder(body), spans)` yields, as a list of (inside of the opening tag,
    content, span), for a `body` without a CDATA section (nothing to look past)."""
    found, position, delimited, length = [], 0, opener[-1] in '= ', len(body)
    opened = closed = -2   # the last opener and closer found (-1: none after), searched again only once passed: linear
    while True:
        if -1 < opened < position or opened == -2: opened = body.find(opener, position)
        start = opened
        if start == -1: break
        after = start + len(opener)
        if not delimited and after < length and (body[after].isalnum() or body[after] in '_:-.'):
            position = after; continue   # `<parameters>` is not `<parameter`
        tag_end = body.find('>', after)
        if tag_end == -1: break
        if body.count('"', after, tag_end) % 2:   # a `>` inside a quoted attribute
            quote_end = body.find('"', tag_end)
            later = body.find('>', quote_end) if quote_end != -1 else -1
            if later != -1: tag_end = later
        if -1 < closed < tag_end or closed == -2: closed = body.find(closer, tag_end)
        if -1 < opened < tag_end: opened = body.find(opener, tag_end)
        close, following, stop = closed, opened, length
        if close != -1 and close < stop: stop = close
        if following != -1 and following < stop: stop = following
        end = stop + len(closer) if stop == close else stop
        found.append((body[after:tag_end], body[tag_end + 1:stop], (start, end)))
        position = end
    return found

def _plain_parameters(body:str, prefix:str='', budget:_Budget|None=None):
    "`_parameters(body, prefix, budget)`, read with `_plain_elements` when `body` holds no CDATA section."
    if _CDATA_OPEN in body: return _parameters(body, prefix, budget)
    kinds = _PARAMETER_KINDS.get(prefix)
    if kinds is None:
        kinds = _PARAMETER_KINDS[prefix] = tuple((kind, f'<{kind}', f'</{kind}>') for kind in
                                                 (f'{prefix}parameter',) + (('argument', 'param') if not prefix else ()))
    for kind, opener, closer in kinds:
        if opener not in body: continue
        elements = _plain_elements(body, opener, closer)
        if not elements: continue
        arguments, text_keys, repeated, unnamed = {}, set(), set(), False
        for inside, content, _ in elements:
            if inside.startswith('='): key, attributes = inside[1:].strip(), _NO_ATTRIBUTES
            else: attributes = _scan_attributes(inside); key = attributes.get('name', '').strip()
            if not key: unnamed = True; continue   # the call cannot be read; the rest are read as before (budget)
            value = _element_value(content)
            if kind == 'param': value = html.unescape(value)   # MiniCPM 5 escapes `<`, `&`
            string = attributes.get('string')
            if string == 'false' and (decoded := _loads(value, budget or _Budget())) is not _FAILED:
                _add_argument(arguments, key, decoded, repeated); continue
            _add_argument(arguments, key, value, repeated)
            if string != 'true': text_keys.add(key)
        return _UNNAMED if unnamed else (arguments, frozenset(text_keys))
    return None
_NO_ATTRIBUTES = {}
_PARAMETER_KINDS = {}   # prefix -> (kind, opener, closer) of each parameter element, in the order `_parameters` tries them

def _body_elements(body:str, opener:str, closer:str) -> list:
    "(inside, content, span) of each element `_elements` finds in `body`: `_plain_elements` when it has no CDATA section."
    if _CDATA_OPEN not in body: return _plain_elements(body, opener, closer)
    spans = []
    return [(inside, content, spans[-1]) for inside, content in _elements(body, opener, closer, _Finder(body), spans)]

# %%
import random
draw = random.Random(27)
pieces = ['<parameter', '<parameter name="a">', '<parameter=b>', '</parameter>', '<parameters>', '<param name="c">', '</param>',
          '<argument name="d">', '</argument>', ' string="false">', ' string="true">', '{"x": [1', '"', '>', '<', 'x', '&amp;', '\n',
          '<steptml:parameter name="e">', '</steptml:parameter>', '<parameter name="">', '<parameter name="a>b">']
for _ in range(3_000):
    body = ''.join(draw.choice(pieces) for _ in range(draw.randint(0, 12)))
    spans = []
    general = [(inside, content, spans[-1]) for inside, content in _elements(body, '<parameter', '</parameter>', _Finder(body), spans)]
    test_eq(_plain_elements(body, '<parameter', '</parameter>'), general)
    for prefix in ('', 'steptml:'):
        budget, plain_budget = _Budget(), _Budget()
        test_eq(_plain_parameters(body, prefix, plain_budget), _parameters(body, prefix, budget))
        test_eq((plain_budget.remaining, plain_budget.attempts), (budget.remaining, budget.attempts))

# %% [markdown]
# ## Openers back to back
#
# Copies that differ (a counter in each, `<invoke name="x17"><parameter name="a">`) are not repeats, and each is read:
# hostile text puts them back to back, each block ending where the next opener of its kind begins. One-shot, after a
# step that read calls (or refused one) back to a clean state, `_opener_run` (the scanner's `_OPENER_RUNS` hook) opens
# the markers that follow back to back itself, each exactly as `step` would: from a clean state `_prose` finds the
# same marker at once, opens it, and takes an opener that reads nothing into its prose (here `_prose` is asked to go on
# from there). Each segment is handed on in order, as `_run` does, so repair budget is spent in the same order: only
# the search for the marker, the step's bookkeeping and `_repeat`'s look are saved. The run stops at anything else, and
# where a copy of one of the last steps' text follows, which `_repeat` takes as read.

# %%
#| export
def _opener_run(parser, buffer:str, starts:list|None, position:int) -> tuple:
    """(where the scan goes on, whether a step returned None) after `parser` read the openers that follow `position`
    back to back; `starts`: where the last steps began (a copy of their text next stops the run), None to not look."""
    scanner, length = parser._scanner, len(buffer)
    match, by_opener = scanner.markers.prose.match, scanner.markers.by_opener
    while position < length:
        if (scanner.pending is not None or scanner.queued is not None or scanner.mode is not None or scanner.ahead is not None
                or scanner.expect is not None or scanner.after_call is not None or parser._announced is not None): break
        found = match(buffer, position)
        family = by_opener.get(found.group()) if found is not None else None
        if family is None: break   # prose, loose JSON, or a fence
        if starts is not None:
            for start in starts:
                end = 2 * position - start
                if end <= length and buffer[end - 1] == buffer[position - 1] and buffer.startswith(buffer[start:position], position):
                    return position, False
        opened = family.open(scanner, buffer, position, found.group(), True)   # what `_prose` does with it
        if opened is False: opened = scanner._prose(buffer, position, True, position + 1)
        elif scanner._plain(opened, buffer, position, position): opened = scanner._prose(buffer, position, True, opened[0])
        if opened is None: return position, True
        new_position, kind, payload = opened
        if new_position <= position: new_position, kind, payload = position + 1, 'text', buffer[position]
        parser._segment(kind, payload, position, new_position, _NO_EVENTS)
        if starts is not None: starts.append(position); del starts[0]
        position = new_position
        if kind != 'calls' and kind != 'rejected': break
    return position, False
_OPENER_RUNS.append(_opener_run)

# %% [markdown]
# ## `<tool_call>`: Hermes, Qwen3-Coder, GLM-4.5 and nested fields
#
# A `<tool_call>` body is JSON (Hermes, Qwen), `<function=name><parameter=key>value</parameter>` (Qwen3-Coder),
# `name<arg_key>k</arg_key><arg_value>v</arg_value>` (GLM-4.5), `<invoke name=...>` elements, a wrapper around
# several call elements, or nested fields (`<name>get_weather</name><arguments>{...}</arguments>`, a
# `name=` or `function=` attribute, `<parameters>`, `<argument name=...>` children). The readers here are shared
# by the tag families that follow. Some servers close each `<tool_call>` with `</tool_calls>`; that closes it too.
#
# GLM's `<arg_key>`/`<arg_value>` pairs are one *shape* that several families write with other tags: IQuest's are
# the same, Hunyuan's add a `<tool_sep>` and a `:opensource` suffix, K2 Horizon's an `ifm|` prefix, TeleChat's say
# `param` for `arg`. One reader, `_pair_call`, reads them all, told the tags as data, so the same input gets one
# answer. A key without its value (or a value without its key) refuses the call with a reason; it is never dropped
# silently, since the tool would then run without an argument the model meant to give. A key given twice keeps both
# values, as a list in the order written: that is the rule of every element reader in this package
# (`<parameter name="item">` written once per item), and taking the last would lose a value without a word (a schema
# that says the key is a string will not type the list, so the tool sees what the model wrote).

# %%
#| export
def _pair_call(body:str, key_tag:str='arg_key', value_tag:str='arg_value', separator:str='', span=None):
    """The call `NAME` + `<key_tag>k</key_tag><value_tag>v</value_tag>` pairs in `body`; None when no name leads it.
    Keys and values that do not pair up refuse the call; a key given twice collects its values in a list."""
    name_end = body.find('<')
    name = (body if name_end == -1 else body[:name_end]).strip()
    if not _valid_name(name, spaces=False): return None
    if name_end == -1: return _RawCall(name, {}, text_keys=frozenset(), span=span)   # a lone name: no pairs
    rest = '' if name_end == -1 else body[name_end:]
    if separator and rest.startswith(separator): rest = rest[len(separator):]
    keys = [key.strip() for _, key, _ in _body_elements(rest, f'<{key_tag}', f'</{key_tag}>')]
    values = [_element_value(value) for _, value, _ in _body_elements(rest, f'<{value_tag}', f'</{value_tag}>')]
    if len(keys) != len(values) or not all(keys) or (not keys and rest.strip()):
        return _RawCall(
            name, None, span=span, reason=f'the arguments of {name!r} are not <{key_tag}>/<{value_tag}> pairs'
        )
    arguments, repeated = {}, set()
    for key, value in zip(keys, values): _add_argument(arguments, key, value, repeated)
    return _RawCall(name, arguments, text_keys=frozenset(arguments), span=span)

# %%
test_eq(
    names([_pair_call('get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>')]),
    [('get_weather', {'city': 'Paris'})],
)
test_eq(names([_pair_call('get_time')]), [('get_time', {})])   # a name alone: a call without arguments
test_eq(_pair_call('f<arg_key>a</arg_key><arg_key>b</arg_key><arg_value>1</arg_value>').reason,
        "the arguments of 'f' are not <arg_key>/<arg_value> pairs")   # a key with no value refuses the call
test_eq(
    names(
        [_pair_call('f<arg_key>tag</arg_key><arg_value>a</arg_value><arg_key>tag</arg_key><arg_value>b</arg_value>')]
    ),
    [('f', {'tag': ['a', 'b']})],
)  # a key given twice: both values, in order
test_eq(_pair_call('two words<arg_key>a</arg_key>'), None)   # no name leads it: not this shape
test_eq(
    names([_pair_call('f<param_key>k</param_key><param_value>v</param_value>', 'param_key', 'param_value')]),
    [('f', {'k': 'v'})],
)

# %% [markdown]
# The `<tool_call>` body itself: JSON, Qwen3-Coder's `<function=...>` elements, `<invoke>` elements, wrapped call
# elements, GLM's pairs, or nested fields, told apart by how the body starts.

# %%
#| export
_NESTED_NAME_TAGS = ('name', 'tool_name', 'function', 'tool')
_NESTED_ARGUMENT_TAGS = ('arguments', 'args', 'parameters', 'params', 'input')
def _named_call(name:str, body:str, budget:_Budget, prefix:str='', span=None):
    """The call `name` whose arguments are `body`: parameter elements, a JSON object, an arguments element, one
    child element per key, or nothing at all. Anything else is refused with a reason, never read as no arguments."""
    if not _valid_name(name): return None
    found = _plain_parameters(body, prefix, budget)
    if found is _UNNAMED: return _RawCall(name, None, span=span, reason=f'a parameter of {name!r} has no name')
    if found is not None: return _RawCall(name, found[0], text_keys=found[1], span=span)
    stripped = body.strip()
    if not stripped: return _RawCall(name, {}, span=span)
    if stripped[0] == '{': return _RawCall(name, stripped, span=span, json_slot=True)
    if stripped[0] == '<':
        children = _child_elements(stripped)
        if len(children) == 1 and children[0][0] in _NESTED_ARGUMENT_TAGS:
            content = children[0][2].strip()
            # kept as _raw
            if content[:1] != '<' and content[:1] != '{' and content: return _RawCall(name, content, span=span)
            return _named_call(name, content, budget, prefix, span)
        if children:
            fields = _child_fields(stripped)
            return _RawCall(name, fields, text_keys=frozenset(fields), span=span)
    return _RawCall(
        name, None, span=span, reason=f'the arguments of {name!r} are neither parameter elements nor a JSON object'
    )

def _function_calls(body:str, budget:_Budget) -> list:
    "Calls written as `<function=NAME>...</function>` or `<function name=\"NAME\">...</function>` elements."
    calls = []
    for inside, content, span in _body_elements(body, '<function', '</function>'):
        if inside.startswith('='): name = inside[1:].strip()
        elif inside.lstrip().startswith('parameter'): continue   # `<function parameter name=...>`: not a call
        else: name = _scan_attributes(inside).get('name', '').strip()
        call = _named_call(name, content, budget, span=span)
        if call is not None: calls.append(call)
    return calls

# %%
#| export
def _nested_field_calls(body:str, attributes:dict, budget:_Budget) -> list:
    "The nested form: the name in an attribute or a `<name>` child, the arguments in the other children."
    children = _child_elements(body)
    first = {}
    for tag, _, content in children: first.setdefault(tag, content)
    name = (
        attributes.get('name')
        or attributes.get('function')
        or next((first[tag] for tag in _NESTED_NAME_TAGS if tag in first), '')
    ).strip()
    if not _valid_name(name): return []
    rest = ''.join(f'<{tag}>{content}</{tag}>' for tag, _, content in children if tag not in _NESTED_NAME_TAGS)
    if _parameters(body) is not None: rest = body
    call = _named_call(name, rest, budget)
    return [call] if call is not None else []

def _wrapped_calls(body:str, tag:str, budget:_Budget) -> list:
    "The calls of a wrapper around `<tag ...>...</tag>` call elements, each with its own span."
    calls, spans = [], []
    for inside, content in _elements(body, f'<{tag}', f'</{tag}>', _Finder(body), spans):
        for call in _markup_body_calls(content, _scan_attributes(inside), budget, bare_name=True)[1]:
            calls.append(dataclasses.replace(call, span=spans[-1]))
    return calls

def _markup_body_calls(body:str, attributes:dict, budget:_Budget, bare_name:bool=False) -> tuple:
    """(format, calls) for the body of a `<tool_call>`-like element. `bare_name`: a body of one bare word is GLM's call
    without arguments (in `<tool_call>` and `<function_call>`, where GLM and the name-then-parameters style write it).
    """
    stripped = body.strip()
    name = (attributes.get('name') or attributes.get('function') or '').strip()
    if not stripped: return 'hermes', [_RawCall(name, {})] if name and _valid_name(name) else []
    if name and stripped.startswith('{'):
        return 'xml', [_RawCall(name, stripped, json_slot=True)] if _valid_name(name) else []
    # the cheap test first: a Pythonic call holds a `(`
    if stripped[:1] == '[' and '(' in stripped and _looks_pythonic(stripped): return 'pythonic', _pythonic_calls(stripped)
    if stripped[:1] in ('{', '['):
        value = _loads(stripped, budget)
        return 'hermes', _calls_from_payload(value) if value is not _FAILED else []
    # `body`: spans stay true
    if stripped.startswith(('<function=', '<function ')): return 'qwen3_coder', _function_calls(body, budget)
    if '<invoke' in stripped: return 'invoke', _invoke_calls(body, '', budget)
    for tag in ('tool_call', 'function_call'):
        if stripped.startswith((f'<{tag}>', f'<{tag} ')): return 'xml', _wrapped_calls(body, tag, budget)
    lone_word = bare_name and not name and '<' not in stripped and _valid_name(stripped, spaces=False)
    if '<arg_key' in stripped or lone_word:
        call = _pair_call(stripped)
        return 'glm45', [call] if call is not None else []
    if '<' in stripped or name: return 'xml', _nested_field_calls(stripped, attributes, budget)
    return ('pythonic', _pythonic_calls(stripped)) if '(' in stripped and _looks_pythonic(stripped) else ('hermes', [])

# %% [markdown]
# A parameter's value may be a CDATA section holding any text, tool-call markup included (a model writing a file that
# documents its own format). The tag families whose bodies hold parameter elements read their blocks with `_CDATABlock`:
# a closer or an opener of the block inside a closed CDATA section is text, so the block ends at its own closer after it.
# Sections are looked past in one forward pass; a section never closed leaves the first closer to end the block, as before.

# %%
#| export
class _CDATABlock(_Block):
    "A tag's block whose ends inside a closed `<![CDATA[...]]>` section are text: it ends at the first end after them."
    __slots__ = ('cdata_from', 'close_from')
    def __init__(self, start, body_start, closers, stoppers, reader, name=None, ends=None):
        _Block.__init__(self, start, body_start, closers, stoppers, reader, name, ends)
        self.cdata_from, self.close_from = self.body_start, None   # where to look for the next section; for its `]]>`

    def shift(self, count:int):
        super().shift(count); self.cdata_from -= count
        if self.close_from is not None: self.close_from -= count

    def resume(self, scanner, text:str, final:bool):
        found, searched = None, False   # an end searched for and not found is not in the rest of this text either
        while True:
            if self.close_from is not None:   # inside a section: wait for its `]]>`, then look on after it
                close = text.find(_CDATA_CLOSE, self.close_from)
                if close == -1:
                    if not final: self.close_from = max(self.close_from, len(text) - len(_CDATA_CLOSE) + 1); return None
                    self.close_from = None
                    return scanner._finish_block(text, final)   # never closed: the first end ends the block
                self.search_from = self.cdata_from = close + len(_CDATA_CLOSE); self.close_from = None
            if not searched or (found is not None and found.start() < self.search_from):
                found, searched = self.ends.search(text, max(self.search_from, self.body_start)), True
            stop = found.start() if found is not None else len(text)
            cdata = text.find(_CDATA_OPEN, self.cdata_from, stop)
            if cdata == -1:
                if found is None and not final: self.cdata_from = max(self.cdata_from, len(text) - len(_CDATA_OPEN) + 1)
                return scanner._finish_block(text, final, found)
            self.cdata_from, self.close_from = cdata, cdata + len(_CDATA_OPEN)

# %%
#| export
_QUICK_BODY = 64   # a bare opener's body read without a block is shorter than this and holds no `<`
_CALL_CHARS = re.compile(r'[{\[(=]')   # a bare `<tool_call>` body without any of these reads no call (see below)
_HERMES_READERS = None   # the `<tool_call>` family's readers once all are declared: what `_reads_nothing` knows of them

def _empty_block(scanner, text:str, position:int, marker:str, stoppers:tuple, name:str, final:bool=False):
    """The segment of a bare `marker` at `position` whose short body (no markup) the next opener of its kind ends
    (hostile text repeats them by the thousand), when family `name` reads no call in it, as the block would have found
    (its readers, then an unclosed block's rules: a bare name or only refusals are text). None: a block is opened.
    One-shot (`final`), the same bare openers that follow go into the segment as long as each reads nothing, while it
    is shorter than `_RUN` and no copy of it follows (`_repeat` takes those): the steps each would have been."""
    start = end = position
    while True:
        body_start = position + len(marker)
        stop = text.find('<', body_start, body_start + _QUICK_BODY)
        if stop == -1 or not text.startswith(stoppers, stop) or not _reads_nothing(scanner, text[body_start:stop], marker, name):
            break
        end = stop
        if not (final and marker[-1] == '>' and stop - start < _RUN and text.startswith(marker, stop)
                and scanner.markers.prose.match(text, stop)[0] == marker and not text.startswith(text[start:stop], stop)):
            break
        position = stop   # the next step would open the same marker here, with nothing pending
    return (end, 'text', text[start:end]) if end > start else None

_READ_AHEAD = object()   # `empty_reads` key: (family, marker, body, budget before, answer, budget after) of a body that reads

def _reads_nothing(scanner, body:str, marker:str, name:str) -> bool:
    "Whether family `name` reads no call in the bare `marker`'s `body`, as an unclosed block; budget spent on a call is restored."
    if _CALL_CHARS.search(body) is None and _FAMILIES[name].readers == _HERMES_READERS: return True   # no JSON, call, pair
    budget, cache = scanner.budget, scanner.empty_reads
    # short bodies: asked once per parse (a read that spent no repair budget answers the same again: the budget never grows)
    key = (marker, body) if len(body) <= 4 else None
    reads_nothing = cache.get(key) if key is not None else None
    if reads_nothing is None:
        before = (budget.remaining, budget.attempts)
        found = _read(name, body, scanner, {}, marker)
        calls = found[1]
        reads_nothing = not calls or _bare_name(calls, body) or _all_refused(calls)
        if not reads_nothing:   # the block reads it, as if first: the answer is kept for it
            cache[_READ_AHEAD] = (name, marker, body, before, found, (budget.remaining, budget.attempts))
            budget.remaining, budget.attempts = before
        elif key is not None and (budget.remaining, budget.attempts) == before: cache[key] = True
    return reads_nothing

# %%
#| export
def _markup_reader(label:str, bare_name:bool=False):
    "The reader of a `<tool_call>`-like tag whose body `_markup_body_calls` reads; a Hermes JSON body gets the format `label`."
    def read(body, scanner, attributes, opening):
        found_format, calls = _markup_body_calls(body, attributes, scanner.budget, bare_name)
        return (label if found_format == 'hermes' else found_format), calls
    return read
_register('hermes', _tag_markers('tool_call'),
          _tag_opener('hermes', closers=('</tool_calls>',), preview=True, block=_CDATABlock, quick=_empty_block),
          reader=_markup_reader('hermes', bare_name=True))
_add_examples(
    'hermes',
    {
        'hermes': lambda name, arguments: f'<tool_call>\n{_json_call(name, arguments)}\n</tool_call>',
        'qwen3_coder': lambda name, arguments: '<tool_call>\n<function='
        + name
        + '>\n'
        + ''.join(f'<parameter={key}>\n{value}\n</parameter>\n' for key, value in arguments.items())
        + '</function>\n</tool_call>',
        'glm45': lambda name, arguments: f'<tool_call>{name}\n'
        + ''.join(f'<arg_key>{key}</arg_key>\n<arg_value>{value}</arg_value>\n' for key, value in arguments.items())
        + '</tool_call>',
    },
)

# %% [markdown]
# A bare `<tool_call>` whose short body without markup the next one ends, and that reads no call (`quick=_empty_block`),
# is text without a block: hostile text repeats such openers by the thousand. A body that reads is left to the block.

# %%
test_eq(parse_tool_calls('<tool_call> <tool_call>\n<tool_call>').text, '<tool_call> <tool_call>\n<tool_call>')
test_eq(parse_tool_calls('<tool_call> <tool_call>{"name": "a", "arguments": {}}</tool_call>').calls[0].name, 'a')
test_eq(_empty_block(core._Scanner(), '<tool_call> <tool_call>', 0, '<tool_call>', ('<tool_call>',), 'hermes'),
        (12, 'text', '<tool_call> '))
test_eq(_empty_block(core._Scanner(), '<tool_call>  ', 0, '<tool_call>', ('<tool_call>',), 'hermes'), None)
test_eq(_empty_block(core._Scanner(), '<tool_call>get_weather<tool_call>', 0, '<tool_call>', ('<tool_call>',), 'hermes'),
        (22, 'text', '<tool_call>get_weather'))   # a bare name, left open: prose
test_eq(_empty_block(core._Scanner(), '<tool_call>a(x=1)<tool_call>', 0, '<tool_call>', ('<tool_call>',), 'hermes'), None)

# %%
test_eq(show('Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
             '<tool_call>\n{"name": "get_time", "arguments": {"tz": "CET"}}\n</tool_call>'),
        ([('hermes', 'get_weather', {'city': 'Paris'}), ('hermes', 'get_time', {'tz': 'CET'})], 'Let me check.\n\n'))
weather = {
    'name': 'get_weather',
    'parameters': {'type': 'object', 'properties': {'city': {'type': 'string'}, 'days': {'type': 'integer'}}},
}
qwen3 = (
    '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n'
    '</function>\n</tool_call>'
)
test_eq(show(qwen3)[0], [('qwen3_coder', 'get_weather', {'city': 'Paris', 'days': '3'})])
test_eq(show(qwen3, [weather])[0], [('qwen3_coder', 'get_weather', {'city': 'Paris', 'days': 3})])
test_eq(show('<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n'
             '<arg_value>3</arg_value>\n</tool_call>', [{'type': 'function', 'function': weather}])[0],
        [('glm45', 'get_weather', {'city': 'Paris', 'days': 3})])
# GLM's call without arguments is its name alone, closed; left open, one word is prose (a model explaining its format)
test_eq(show('<tool_call>get_time</tool_call>'), ([('glm45', 'get_time', {})], ''))
for prose_text in ('Wrap each call in <tool_call> tags.', 'Then list them in <function_calls> blocks'):
    test_eq(show(prose_text), ([], prose_text))
    test_eq(stream_calls(prose_text, 3), [])
test_eq(names(_markup_body_calls('<name>get_weather</name><arguments>{"city": "Paris"}</arguments>', {}, _Budget())[1]),
        [('get_weather', '{"city": "Paris"}')])
test_eq(
    names(_markup_body_calls('<tool_name>a</tool_name><parameters><city>Paris</city></parameters>', {}, _Budget())[1]),
    [('a', {'city': 'Paris'})],
)
test_eq(names(_markup_body_calls('{"q": 1}', {'name': 'search'}, _Budget())[1]), [('search', '{"q": 1}')])
test_eq(
    names(_markup_body_calls('<parameter name="q">x</parameter>', {'name': 'search'}, _Budget())[1]),
    [('search', {'q': 'x'})],
)
test_eq(_markup_body_calls('{"name": "a", "arguments": {}}', {}, _Budget())[0], 'hermes')
test_eq(_markup_body_calls('just some words', {}, _Budget())[1], [])
# Each `<tool_call>` closed by `</tool_calls>`, as some servers write it.
test_eq(
    show(
        '<tool_call>{"name": "a", "arguments": {"x": 1}}</tool_calls><tool_call>{"name": "b", "arguments": {}}</tool_calls>'
    ),
    ([('hermes', 'a', {'x': 1}), ('hermes', 'b', {})], ''),
)
# A body that does not read as a call is refused with a reason, never turned into a call with made-up arguments.
refused = parse_tool_calls('<tool_call>get_weather for Paris please</tool_call>')
test_eq((refused.calls, [(r.format, r.reason) for r in refused.rejected], refused.text),
        ((), [('hermes', 'a hermes block whose body does not read as a call')], ''))
test_eq(
    [(r.name, r.reason) for r in parse_tool_calls('<tool_call><function=run>print(1)</function></tool_call>').rejected],
    [('run', "the arguments of 'run' are neither parameter elements nor a JSON object")],
)

# %% [markdown]
# Where the arguments slot of a JSON call object must be JSON, a bare word there (`"arguments": MALFORMED`) is not
# repaired into a string and run as `{"_raw": "MALFORMED"}`: the body does not read, and is refused. (A quoted string that
# is not JSON, `"arguments": "ls -la"`, is what the model sent, and stays `_raw`.)
#
# Some models write a call as an object keyed by the tool's name, `{"get_weather": {"city": "Paris"}}` (Apertus does it
# always). In any other JSON body such an object is a call only when the allow-list declares that tool: with no allow-list,
# or one that names no such tool, it is refused with its reason, since any one-key object of objects looks like this.
# Loose in prose it is data, never a call.

# %%
test_eq(both_ways('<tool_call>{"name": "get_weather", "arguments": MALFORMED}</tool_call>'),
        ([], [('', 'a hermes block whose body does not read as a call')]))
test_eq(both_ways('<tool_call>{"name": "shell", "arguments": "ls -la"}</tool_call>'), ([('shell', {'_raw': 'ls -la'}, True)], []))
keyed = 'Checking.<tool_call>\n{"get_weather": {"city": "Paris", "days": 3}}\n</tool_call>'
test_eq(both_ways(keyed, [weather]), ([('get_weather', {'city': 'Paris', 'days': 3}, True)], []))
not_declared = 'a layout that is a call only for a tool the allow-list declares, and it declares none by that name'
test_eq(both_ways(keyed), ([], [('get_weather', not_declared)]))
test_eq(both_ways(keyed, ['search']), ([], [('get_weather', not_declared)]))
test_eq(show('Set {"get_weather": {"city": "Paris"}} in the config.', [weather]),
        ([], 'Set {"get_weather": {"city": "Paris"}} in the config.'))

# %% [markdown]
# **Seed-OSS** writes the Qwen3-Coder body inside `<seed:tool_call>` (and thinks in `<seed:think>`).

# %%
#| export
def _seed_oss_reader(body, scanner, attributes, opening):
    found_format, calls = _markup_body_calls(body, attributes, scanner.budget)
    return ('seed_oss' if found_format in ('qwen3_coder', 'hermes') else found_format), calls

_register('seed_oss', _tag_markers('seed:tool_call'), _tag_opener('seed_oss', block=_CDATABlock), reader=_seed_oss_reader)
_add_examples('seed_oss', {'seed_oss': lambda name, arguments: f'<seed:tool_call>\n<function={name}>\n' + ''.join(
    f'<parameter={key}>{value}</parameter>\n' for key, value in arguments.items()) + '</function>\n</seed:tool_call>'})

# %%
seed_oss = (
    '<seed:think>The user wants the weather.</seed:think>Checking.\n<seed:tool_call>\n<function=get_weather>\n'
    '<parameter=city>Paris</parameter>\n<parameter=days>3</parameter>\n</function>\n</seed:tool_call>'
    '<seed:tool_call>\n<function=get_time>\n<parameter=tz>UTC</parameter>\n</function>\n</seed:tool_call><seed:eos>'
)
test_eq(
    show(seed_oss, [weather, 'get_time']),
    (
        [('seed_oss', 'get_weather', {'city': 'Paris', 'days': 3}), ('seed_oss', 'get_time', {'tz': 'UTC'})],
        'Checking.\n',
    ),
)
test_eq(parse_tool_calls(seed_oss).reasoning, 'The user wants the weather.')

# %% [markdown]
# ## `<tool_calls>`: Jamba
#
# A JSON list in `<tool_calls>`; the same wrapper around `<tool_call>` elements reads too.

# %%
#| export
def _tool_calls_reader(body, scanner, attributes, opening):
    found_format, calls = _markup_body_calls(body, attributes, scanner.budget)
    return ('jamba' if found_format == 'hermes' else found_format), calls

_register('jamba', _tag_markers('tool_calls'), _tag_opener('jamba'), reader=_tool_calls_reader)

# %%
test_eq(show('<tool_calls>[{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {}}]</tool_calls>')[0],
        [('jamba', 'a', {'x': 1}), ('jamba', 'b', {})])
test_eq(
    show(
        '<tool_calls>\n<tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call>\n<tool_call name="b">{}</tool_call>\n</tool_calls>'
    )[0],
    [('xml', 'a', {'x': 1}), ('xml', 'b', {})],
)

# %% [markdown]
# ## `<function_call>`: the XML styles of the original specification
#
# The original specification reads `<function_call>` with the name in a `name=` or `function=` attribute or a `<name>` child, and the
# arguments as JSON, an `<arguments>`/`<parameters>` child, `<parameter name=...>` or `<argument name=...>`
# children, or one child element per argument. One more of its styles names the call and then lists the arguments
# *after* the element: `<function_call>NAME</function_call>` followed by
# `<function parameter name="KEY">value</function parameter>` elements. Those are read by a small pending object of
# their own, which keeps taking such elements while they follow (it is how a family brings its own shape).

# %%
#| export
class _ParametersAfter:
    "The `<function parameter name=\"k\">v</function parameter>` elements after `<function_call>NAME</function_call>`."
    OPEN, CLOSE = '<function parameter', '</function parameter>'
    ENDS = re.compile('</function parameter>|<function parameter|<function_call')
    __slots__ = ('start', 'cursor', 'search_from', 'name', 'arguments', 'repeated', 'cut')
    def __init__(self, start:int, cursor:int, name:str):
        self.start, self.cursor, self.search_from, self.name, self.arguments, self.repeated = (
            start,
            cursor,
            cursor,
            name,
            {},
            set(),
        )
        self.cut = False

    def shift(self, count:int): self.start -= count; self.cursor -= count; self.search_from -= count

    def resume(self, scanner, text:str, final:bool):
        while True:
            following = _skip_space(text, self.cursor, final)
            if following is None: return None
            if following == -1: break
            if not text.startswith(self.OPEN, following):
                if not final and len(text) - following < len(self.OPEN) and self.OPEN.startswith(text[following:]):
                    return None
                break
            tag_end = text.find('>', following, following + 1024)
            if tag_end == -1:
                if not final and len(text) - following < 1024: return None
                break
            # its closer, or the next element or call
            found = self.ENDS.search(text, max(tag_end + 1, self.search_from))
            if found is None:
                if not final: self.search_from = max(tag_end + 1, len(text) - len(self.CLOSE) + 1); return None
                close = end = len(text)
            else: close, end = found.start(), found.end() if found.group() == self.CLOSE else found.start()
            key = _scan_attributes(text[following + len(self.OPEN):tag_end]).get('name', '').strip()
            if key: _add_argument(self.arguments, key, _element_value(text[tag_end + 1:close]), self.repeated)
            self.cursor = self.search_from = end
            if close == end: self.cut = True   # an element that never closed: the call was cut
        scanner.pending = None
        call = _RawCall(self.name, self.arguments, text_keys=frozenset(self.arguments))
        return self.cursor, 'calls', ('xml', [call], self.start, None, self.cut)

# %%
#| export
class _FunctionCallBlock(_CDATABlock):
    "A `<function_call>` block; when its body is a bare name, the parameter elements after it are read too."
    __slots__ = ()
    def resume(self, scanner, text:str, final:bool):
        segment = _CDATABlock.resume(self, scanner, text, final)
        if segment is None or segment[1] != 'calls': return segment
        end, _, (found_format, calls, start, _, cut_off) = segment
        if found_format != 'glm45' or len(calls) != 1 or calls[0].arguments or calls[0].reason or cut_off:
            return segment
        scanner.pending = _ParametersAfter(start, end, calls[0].name)
        return scanner.pending.resume(scanner, text, final)
_function_call_reader = _markup_reader('xml', bare_name=True)
_register('xml', _tag_markers('function_call'), _tag_opener('xml', preview=True, block=_FunctionCallBlock),
          reader=_function_call_reader)
_add_examples('xml', {
    'seed_arguments': lambda name, arguments: f'<function_call name="{name}">' + ''.join(
        f'<argument name="{key}">{value}</argument>' for key, value in arguments.items()) + '</function_call>',
    'seed_name_then_parameters': lambda name, arguments: f'<function_call>{name}</function_call>' + ''.join(
        f'<function parameter name="{key}">{value}</function parameter>' for key, value in arguments.items())})

# %%
test_eq(
    show('<function_call><name>a</name><arguments>{"x": 1}</arguments></function_call>')[0], [('xml', 'a', {'x': 1})]
)
test_eq(show('<tool_call name="a">{"x": 1}</tool_call>')[0], [('xml', 'a', {'x': 1})])
test_eq(
    show(
        '<function_call name="search"><argument name="q">nbdev</argument><argument name="limit">3</argument></function_call>'
    )[0],
    [('xml', 'search', {'q': 'nbdev', 'limit': '3'})],
)
test_eq(
    show('<function_call function="search"><parameters>{"q": "nbdev"}</parameters></function_call>')[0],
    [('xml', 'search', {'q': 'nbdev'})],
)
test_eq(
    show(
        '<function_call name="todo"><parameter name="item">a</parameter><parameter name="item">b</parameter></function_call>'
    )[0],
    [('xml', 'todo', {'item': ['a', 'b']})],
)
test_eq(
    show(
        '<function_call name="write"><parameter name="code"><![CDATA[if a < b: print("</parameter>")]]></parameter></function_call>'
    )[0],
    [('xml', 'write', {'code': 'if a < b: print("</parameter>")'})],
)
# A wrapper around several calls.
test_eq(
    show(
        '<function_calls>\n<function_call name="a">{"x": 1}</function_call>\n<function_call name="b">{"y": 2}</function_call>\n</function_calls>'
    )[0],
    [('xml', 'a', {'x': 1}), ('xml', 'b', {'y': 2})],
)
# The name first, the arguments after the element.
after = (
    'Searching.\n<function_call>search</function_call>\n<function parameter name="q">nbdev docs</function parameter>\n'
    '<function parameter name="limit">3</function parameter>\nDone.'
)
test_eq(show(after, [{'name': 'search', 'parameters': {'properties': {'limit': {'type': 'integer'}}}}]),
        ([('xml', 'search', {'q': 'nbdev docs', 'limit': 3})], 'Searching.\n\nDone.'))
test_eq(
    show('<function_call>get_time</function_call> is what I would call.'),
    ([('xml', 'get_time', {})], ' is what I would call.'),
)
cut = parse_tool_calls(
    '<function_call>search</function_call><function parameter name="q">nbdev<function_call>b</function_call>'
)
test_eq(
    [(call.name, call.arguments, call.complete) for call in cut.calls],
    [('search', {'q': 'nbdev'}, False), ('b', {}, True)],
)

# %% [markdown]
# ## `<invoke>` elements: Claude style, MiniMax-M2, `<tool_use>`, `<tool name>`
#
# `<invoke name="f">` holds `<parameter name="k">v</parameter>` elements (or, in one variant, a JSON object).
# They come inside `<function_calls>` (Claude style, which some models also fill with `<function_call>` elements),
# `<minimax:tool_call>`, or alone. `<tool_use>` wraps `<function name="f">` elements, and its
# `<tool name="f">` has one child element per argument.
#
# A lone `<invoke>` block's body is read as the one element from its opening tag to a `</invoke>` put after the body.
# When the body holds no other `<invoke` and no CDATA section and the opening tag's quotes pair up, that element is
# exactly the opening tag's attributes and the body, so `_invoke_reader` reads the call from them without building and
# searching that text again (hostile text repeats unclosed `<invoke>` openers by the ten thousand).

# %%
#| export
def _invoke_calls(body:str, prefix:str, budget:_Budget, suffix:str='') -> list:
    """Calls in `<invoke name=...>` elements (`prefix` is e.g. '｜DSML｜' or 'steptml:'), each with its own span; a
    `suffix` the model wrote after a name (Muse Glimmer's `name="read<|message|>"`) is dropped from it."""
    calls = []
    for attributes, inside, span in _body_elements(body, f'<{prefix}invoke', f'</{prefix}invoke>'):
        name = _scan_attributes(attributes).get('name', '').strip()
        if suffix and name.endswith(suffix): name = name[:-len(suffix)].strip()
        call = _named_call(name, inside, budget, prefix, span)
        if call is not None: calls.append(call)
    return calls

def _function_calls_reader(body, scanner, attributes, opening):
    if '<invoke' in body: return 'invoke', _invoke_calls(body, '', scanner.budget)
    found_format, calls = _markup_body_calls(body, attributes, scanner.budget)
    return ('invoke' if found_format == 'hermes' else found_format), calls

def _invoke_reader(body, scanner, attributes, opening):
    if '<invoke' in body or _CDATA_OPEN in body or opening.count('"') % 2:
        return 'invoke', _invoke_calls(opening + body + '</invoke>', '', scanner.budget)
    # the one element, `opening` to the `</invoke>` put after `body`, as `_invoke_calls` finds it
    call = _named_call(attributes.get('name', '').strip(), body, scanner.budget, '', (0, len(opening) + len(body) + 9))
    return 'invoke', [call] if call is not None else []

def _minimax_reader(body, scanner, attributes, opening): return 'minimax', _invoke_calls(body, '', scanner.budget)

def _tool_use_reader(body, scanner, attributes, opening):
    if '<function' in body: return 'xml', _function_calls(body, scanner.budget)
    return _function_call_reader(body, scanner, attributes, opening)

def _tool_reader(body, scanner, attributes, opening):
    name = attributes.get('name', '').strip()
    if not name: return 'xml', []
    call = _named_call(name, body, scanner.budget)
    return 'xml', [call] if call is not None else []
_register(
    'function_calls', _tag_markers('function_calls'), _tag_opener('function_calls', block=_CDATABlock), reader=_function_calls_reader
)
_register('invoke', _tag_markers('invoke'), _tag_opener('invoke', block=_CDATABlock), reader=_invoke_reader)
_register('minimax', _tag_markers('minimax:tool_call'), _tag_opener('minimax', block=_CDATABlock), reader=_minimax_reader)
_register('tool_use', _tag_markers('tool_use'), _tag_opener('tool_use', block=_CDATABlock), reader=_tool_use_reader)
_register('tool', ('<tool ',), _tag_opener('tool', block=_CDATABlock), reader=_tool_reader)
def _invoke_example(name:str, arguments:dict, prefix:str='', line:str='\n') -> str:
    "`<invoke name>` with one `<parameter name>` per argument (tags after `prefix`, each ending with `line`)."
    parameters = ''.join(f'<{prefix}parameter name="{key}" string="true">{value}</{prefix}parameter>{line}'
                         for key, value in arguments.items())
    return f'<{prefix}invoke name="{name}">{line}{parameters}</{prefix}invoke>'
_add_examples(
    'function_calls',
    {
        'invoke': lambda name, arguments: f'<function_calls>\n{_invoke_example(name, arguments)}\n</function_calls>',
        'seed_invoke_json': lambda name, arguments:
            f'<function_calls><invoke name="{name}">{json.dumps(arguments)}</invoke></function_calls>',
    },
)
_add_examples(
    'minimax',
    {
        'minimax': lambda name, arguments:
            f'<minimax:tool_call>\n{_invoke_example(name, arguments)}\n</minimax:tool_call>'
    },
)
_add_examples('tool', {'seed_tool': lambda name, arguments: f'<tool name="{name}">' + ''.join(
    f'<{key}>{value}</{key}>' for key, value in arguments.items()) + '</tool>'}, fragments=('</tool_use>',))

# %%
test_eq(show('<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n'
             '<invoke name="get_time">\n<parameter name="tz">UTC</parameter>\n</invoke>\n</minimax:tool_call>')[0],
        [('minimax', 'get_weather', {'city': 'Paris'}), ('minimax', 'get_time', {'tz': 'UTC'})])
test_eq(
    show(
        'Looking.\n<function_calls>\n<invoke name="get_weather">\n<parameter name="days">3</parameter>\n</invoke>\n</function_calls>',
        [weather],
    ),
    ([('invoke', 'get_weather', {'days': 3})], 'Looking.\n'),
)
test_eq(
    names(
        _invoke_calls(
            '<invoke name="a"><parameter name="x">1</parameter></invoke><invoke name="b"></invoke>', '', _Budget()
        )
    ),
    [('a', {'x': '1'}), ('b', {})],
)
test_eq(
    show('<invoke name="search">{"q": "nbdev", "limit": 3}</invoke>')[0],
    [('invoke', 'search', {'q': 'nbdev', 'limit': 3})],
)
test_eq(
    show('<tool_use>\n<function name="search">\n<parameter name="q">nbdev</parameter>\n</function>\n</tool_use>')[0],
    [('xml', 'search', {'q': 'nbdev'})],
)
test_eq(
    show('<tool name="get_weather">\n<city>Paris</city>\n<days>3</days>\n</tool>', [weather])[0],
    [('xml', 'get_weather', {'city': 'Paris', 'days': 3})],
)
# Parameter elements without names (legacy `<param>` children) are refused, never a complete call with `{}`
test_eq(rule('<function_calls><invoke name="get_weather"><param>city</param><param>Paris</param></invoke></function_calls>'),
        ([], [('get_weather', 'invoke', "a parameter of 'get_weather' has no name")]))

# %% [markdown]
# A parameter's value may be a CDATA section, and whatever markup it holds is the argument's text: a `</parameter>`, an
# `<invoke>`, a whole call written out as an example. The element readers look past every closed CDATA section for
# their closers and openers, and the blocks of these families (`_CDATABlock`, above) look past them for their own.

# %%
cdata_call = ('<function_calls><invoke name="write_file"><parameter name="path">notes.md</parameter><parameter name="text">'
              '<![CDATA[Call it as <invoke name="rm"><parameter name="path">/</parameter></invoke>.]]></parameter></invoke>'
              '<invoke name="get_time"></invoke></function_calls>')
test_eq(both_ways(cdata_call), ([('write_file', {'path': 'notes.md', 'text': 'Call it as <invoke name="rm"><parameter name="path">/'
                                               '</parameter></invoke>.'}, True), ('get_time', {}, True)], []))
qwen3_cdata = ('<tool_call>\n<function=write_file>\n<parameter=text>\n<![CDATA[Wrap it: <tool_call>{"name": "rm", "arguments": {}}'
               '</tool_call>]]>\n</parameter>\n</function>\n</tool_call>')
test_eq(both_ways(qwen3_cdata), ([('write_file', {'text': 'Wrap it: <tool_call>{"name": "rm", "arguments": {}}</tool_call>'}, True)], []))
block_cdata = cdata_call.replace('.]]>', '</function_calls>.]]>')
test_eq(both_ways(block_cdata)[0][0][1]['text'], 'Call it as <invoke name="rm"><parameter name="path">/</parameter></invoke></function_calls>.')
minimax_cdata = ('<minimax:tool_call><invoke name="write_file"><parameter name="text"><![CDATA[<tool_call>{"name": "x"}'
                 '</tool_call>]]></parameter></invoke></minimax:tool_call>')
test_eq(both_ways(minimax_cdata), ([('write_file', {'text': '<tool_call>{"name": "x"}</tool_call>'}, True)], []))
# Looking past sections stays linear on text built to hurt it (a guard against a quadratic blow-up; speed is the benchmark's)
import time
for hostile in ('<tool_call>' + '<![CDATA[x]]>' * 20_000, '<function_calls>' + '<![CDATA[</function_calls>]]>' * 10_000,
                '<minimax:tool_call><invoke name="a"><parameter name="x">' + '<![CDATA[' * 20_000):
    started = time.perf_counter()
    test_eq(both_ways(hostile[:2_000]), both_ways(hostile[:2_000]))   # streamed alike
    parse_tool_calls(hostile)
    assert time.perf_counter() - started < 10, hostile[:30]

# %% [markdown]
# ## DSML: DeepSeek V3.2
#
# `<｜DSML｜function_calls>` (or `tool_calls`) around `<｜DSML｜invoke>` elements; `string="true"` keeps a value as
# text, `string="false"` reads it as JSON. Servers and tokenizers sometimes print the bars as ASCII `|` or drop
# them: `<|DSML|tool_calls>`, `<DSML|tool_calls>`, `<DSMLtool_calls>` read the same, with the prefix the wrapper used.

# %%
#| export
_DSML_PREFIXES = ('｜DSML｜', '|DSML|', 'DSML|', 'DSML')

def _dsml_reader(body, scanner, attributes, opening):
    prefix = opening[1:].split('function_calls', 1)[0].split('tool_calls', 1)[0]
    return 'dsml', _invoke_calls(body, prefix, scanner.budget)

_register('dsml', tuple(marker for prefix in _DSML_PREFIXES for wrapper in ('function_calls', 'tool_calls')
                        for marker in _tag_markers(prefix + wrapper)), _tag_opener('dsml', block=_CDATABlock), reader=_dsml_reader)
_add_examples(
    'dsml',
    {
        'dsml': lambda name, arguments:
            f'<｜DSML｜function_calls>\n{_invoke_example(name, arguments, "｜DSML｜")}\n</｜DSML｜function_calls>',
        'dsml_ascii': lambda name, arguments:
            f'<|DSML|tool_calls>{_invoke_example(name, arguments, "|DSML|", "")}</|DSML|tool_calls>',
        'dsml_bare': lambda name, arguments:
            f'<DSMLtool_calls>{_invoke_example(name, arguments, "DSML", "")}</DSMLtool_calls>',
    },
)

# %%
test_eq(
    show(
        '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>'
    )[0],
    [('dsml', 'get_weather', {'city': 'Paris', 'days': 3})],
)
for prefix in ('|DSML|', 'DSML|', 'DSML'):
    dsml = (
        f'Sure.<{prefix}tool_calls>\n<{prefix}invoke name="get_weather">\n<{prefix}parameter name="city" string="true">Paris'
        f'</{prefix}parameter>\n</{prefix}invoke>\n</{prefix}tool_calls>'
    )
    test_eq(show(dsml), ([('dsml', 'get_weather', {'city': 'Paris'})], 'Sure.'))

# %% [markdown]
# ## Functionary v3.1 and bare `<function=...>`
#
# Functionary v3.1 writes `<function=NAME>{json}</function>` with no wrapper; Hermes-2-Pro style models write
# `<function name="NAME">{json}</function>`, and Qwen3-Coder sometimes leaves out its `<tool_call>` around
# `<function=NAME><parameter=...>`. All three read here, outside any wrapper. A body that is neither JSON nor
# parameter elements is refused with a reason (never read as a call without arguments).

# %%
#| export
def _bare_function_reader(body, scanner):
    calls = _function_calls(body, scanner.budget)
    if not (calls and all(call.text_keys for call in calls)): return 'functionary', calls
    return ('minicpm5' if '<param ' in body else 'qwen3_coder'), calls

def _open_function(scanner, text, position, marker, final):
    end = text.find('>', position, position + 1024)
    if end == -1: return None if not final and len(text) - position < 1024 else False
    # prose, or `<function parameter ...>`
    if marker == '<function ' and not _scan_attributes(text[position + len(marker):end]).get('name'): return False
    block = scanner.pending = _Block(
        position, position, ('</function>',), ('<function=', '<function '), _bare_function_reader
    )
    block.search_from = end + 1   # the body keeps its opening tag, which the reader needs for the name
    return scanner._finish_block(text, final)

_register('functionary', ('<function=', '<function '), _open_function)
_add_examples('functionary', {
    'qwen3_coder_bare': lambda name, arguments: f'<function={name}>\n' + ''.join(
        f'<parameter={key}>{value}</parameter>\n' for key, value in arguments.items()) + '</function>',
    'functionary_v31': lambda name, arguments: f'<function={name}>{json.dumps(arguments)}</function>',
    'functionary_named': lambda name, arguments: f'<function name="{name}">{json.dumps(arguments)}</function>'})

# %%
test_eq(show('Let me check.<function=get_weather>{"city": "Paris"}</function><function=get_time>{}</function>'),
        ([('functionary', 'get_weather', {'city': 'Paris'}), ('functionary', 'get_time', {})], 'Let me check.'))
test_eq(
    show('<function name="get_weather">{"city": "Paris"}</function>')[0],
    [('functionary', 'get_weather', {'city': 'Paris'})],
)
test_eq(
    show('<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>')[0],
    [('qwen3_coder', 'get_weather', {'city': 'Paris'})],
)
bare = parse_tool_calls('<function=run>print("hi")</function>')
test_eq((bare.calls, [(r.name, r.format) for r in bare.rejected]), ((), [('run', 'functionary')]))
test_eq(show('A <function (anonymous)> in JavaScript.'), ([], 'A <function (anonymous)> in JavaScript.'))

# %% [markdown]
# ## DeepSeek V4.1: DSML with a space after the bar
#
# DeepSeek V4.1 writes every DSML tag with a space after the bar: `<｜DSML｜ calls>` around `<｜DSML｜ invoke name="N">`
# elements, whose `<｜DSML｜ parameter name="k" string="true">` values are raw text (spaces at the edges kept) and
# `string="false"` values JSON.

# %%
#| export
_DSML_SPACED = '｜DSML｜ '

def _dsml_spaced_reader(body, scanner, attributes, opening):
    return 'dsml', _invoke_calls(body, _DSML_SPACED, scanner.budget)

_register('dsml_spaced', tuple(marker for wrapper in ('calls', 'tool_calls', 'function_calls')
                               for marker in _tag_markers(_DSML_SPACED + wrapper)),
          _tag_opener('dsml_spaced', block=_CDATABlock), reader=_dsml_spaced_reader)
_add_examples(
    'dsml_spaced',
    {
        'dsml_spaced': lambda name, arguments:
            f'<{_DSML_SPACED}calls>\n{_invoke_example(name, arguments, _DSML_SPACED)}\n</{_DSML_SPACED}calls>'
    },
    fragments=('<｜DSML｜ parameter name="x" string="false">',),
)

# %%
deepseek_v41 = (
    'Let me check.\n\n<｜DSML｜ calls>\n<｜DSML｜ invoke name="get_weather">\n'
    '<｜DSML｜ parameter name="city" string="true"> Paris </｜DSML｜ parameter>\n'
    '<｜DSML｜ parameter name="days" string="false">3</｜DSML｜ parameter>\n</｜DSML｜ invoke>\n'
    '<｜DSML｜ invoke name="get_time">\n<｜DSML｜ parameter name="zones" string="false">["UTC", "CET"]</｜DSML｜ parameter>\n'
    '</｜DSML｜ invoke>\n</｜DSML｜ calls>'
)
test_eq(
    show(deepseek_v41),
    (
        [('dsml', 'get_weather', {'city': ' Paris ', 'days': 3}), ('dsml', 'get_time', {'zones': ['UTC', 'CET']})],
        'Let me check.\n\n',
    ),
)
test_eq(stream_calls(deepseek_v41, 7), show(deepseek_v41)[0])
test_eq(rule('<｜DSML｜ calls>\n<｜DSML｜ invoke name="f">\ncity=Paris\n</｜DSML｜ invoke>\n</｜DSML｜ calls>'),
        ([], [('f', 'dsml', "the arguments of 'f' are neither parameter elements nor a JSON object")]))

# %% [markdown]
# ## GigaChat 3.5: GCML
#
# GigaChat 3.5 uses the DSML structure with `GCML` in its tags: `<｜GCML｜tool_calls>` around `<｜GCML｜invoke name=...>`
# with `<｜GCML｜parameter name=... string="true|false">` children (ASCII bars read too).

# %%
#| export
_GCML_PREFIXES = ('｜GCML｜', '|GCML|')

def _gcml_reader(body, scanner, attributes, opening):
    return 'gcml', _invoke_calls(body, opening[1:opening.index('GCML') + 5], scanner.budget)

_register('gcml', tuple(marker for prefix in _GCML_PREFIXES for wrapper in ('tool_calls', 'function_calls')
                        for marker in _tag_markers(prefix + wrapper)), _tag_opener('gcml', block=_CDATABlock), reader=_gcml_reader)
_add_examples('gcml', {'gcml': lambda name, arguments:
    f'<｜GCML｜tool_calls>\n{_invoke_example(name, arguments, "｜GCML｜")}\n</｜GCML｜tool_calls>'})

# %%
gigachat = ('Сейчас узнаю.<｜GCML｜tool_calls>\n<｜GCML｜invoke name="get_weather">\n'
            '<｜GCML｜parameter name="city" string="true">Москва</｜GCML｜parameter>\n'
            '<｜GCML｜parameter name="days" string="false">2</｜GCML｜parameter>\n</｜GCML｜invoke>\n</｜GCML｜tool_calls>')
test_eq(show(gigachat), ([('gcml', 'get_weather', {'city': 'Москва', 'days': 2})], 'Сейчас узнаю.'))
test_eq(stream_calls(gigachat, 5), show(gigachat)[0])
test_eq(show(gigachat.replace('｜', '|'))[0], show(gigachat)[0])

# %% [markdown]
# ## Hunyuan Hy3 and Hy4
#
# `<tool_calls>` around `<tool_call>NAME<tool_sep>` calls whose arguments are `<arg_key>k</arg_key><arg_value>v</arg_value>`
# pairs (GLM-4.5's layout); Hy4 leaves out `<tool_sep>`, so the name runs to the first `<arg_key>` or the closer. The
# shipping tokenizers add a suffix to every tag (`<tool_calls:opensource>`, `<arg_key:opensource>`, ...): both spellings
# read. Values are raw text, typed by the tool's schema. `_pair_call` reads one such call; IQuest and K2 Horizon below
# use it too. Keys and values that do not pair up refuse the call with a reason.

# %%
#| export
_HUNYUAN_SUFFIX = ':opensource'

def _hunyuan_calls(body:str, suffix:str='') -> list:
    "The calls of a Hunyuan `<tool_calls>` body (tags spelled with `suffix`), each with its own span."
    calls, spans = [], []
    for _, content in _elements(body, f'<tool_call{suffix}', f'</tool_call{suffix}>', _Finder(body), spans):
        call = _pair_call(content, f'arg_key{suffix}', f'arg_value{suffix}', f'<tool_sep{suffix}>', spans[-1])
        if call is not None: calls.append(call)
    return calls

def _hunyuan_reader(body, scanner, attributes, opening):
    if opening.startswith('<tool_calls'): return 'hunyuan', _hunyuan_calls(body, _HUNYUAN_SUFFIX)
    call = _pair_call(body, f'arg_key{_HUNYUAN_SUFFIX}', f'arg_value{_HUNYUAN_SUFFIX}', f'<tool_sep{_HUNYUAN_SUFFIX}>')
    return 'hunyuan', [call] if call is not None else []

def _hunyuan_preview_reader(body, scanner, attributes, opening):
    "Hunyuan's calls in Jamba's `<tool_calls>`, as its preview tokenizer writes them (no tag suffix)."
    if not (('<arg_key' in body or '<tool_sep>' in body) and '<tool_call' in body): return None
    return 'hunyuan', _hunyuan_calls(body)

_register('hunyuan', (f'<tool_calls{_HUNYUAN_SUFFIX}>', f'<tool_call{_HUNYUAN_SUFFIX}>'), _tag_opener('hunyuan'),
          reader=_hunyuan_reader)
_add_reader('jamba', 20, _hunyuan_preview_reader)

def _hunyuan_example(name:str, arguments:dict, suffix:str='', separator:bool=True) -> str:
    pairs = ''.join(f'<arg_key{suffix}>{key}</arg_key{suffix}>\n<arg_value{suffix}>{value}</arg_value{suffix}>\n'
                    for key, value in arguments.items())
    call = (
        f'<tool_call{suffix}>{name}' + (f'<tool_sep{suffix}>' if separator else '') + f'\n{pairs}</tool_call{suffix}>'
    )
    return f'<tool_calls{suffix}>\n{call}\n</tool_calls{suffix}>'

_add_examples(
    'hunyuan', {'hunyuan_shipping': lambda name, arguments: _hunyuan_example(name, arguments, _HUNYUAN_SUFFIX)}
)
_add_examples('jamba', {'hunyuan': _hunyuan_example,
                        'hunyuan_hy4': lambda name, arguments: _hunyuan_example(name, arguments, separator=False)})

# %%
hy3 = (
    'I will look both up.\n<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n'
    '<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>\n<tool_call>get_time<tool_sep>\n<arg_key>tz</arg_key>\n'
    '<arg_value>UTC</arg_value>\n</tool_call>\n</tool_calls>'
)
expected = [('hunyuan', 'get_weather', {'city': 'Paris', 'days': 3}), ('hunyuan', 'get_time', {'tz': 'UTC'})]
test_eq(show(hy3, [weather, 'get_time']), (expected, 'I will look both up.\n'))
hy4 = hy3.replace('<tool_sep>', '')
test_eq(show(hy4, [weather, 'get_time']), (expected, 'I will look both up.\n'))
shipping = hy3.replace('>', ':opensource>').replace(':opensource:opensource>', ':opensource>')
test_eq(shipping.count('<tool_calls:opensource>'), 1)
test_eq(show(shipping, [weather, 'get_time']), (expected, 'I will look both up.\n'))
test_eq(stream_calls(shipping, 9, [weather, 'get_time']), expected)
test_eq(
    rule(
        '<tool_calls:opensource><tool_call:opensource>f<tool_sep:opensource><arg_key:opensource>a</arg_key:opensource>'
        '</tool_call:opensource></tool_calls:opensource>'
    ),
    ([], [('f', 'hunyuan', "the arguments of 'f' are not " '<arg_key:opensource>/<arg_value:opensource> pairs')]),
)

# %% [markdown]
# ## IQuest Q1
#
# IQuest Q1 writes each call as its own `<iquest_tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value>...</iquest_tool_call>`
# block, back to back. String values are raw (real newlines, `<` and `>` kept); other values are JSON, typed by the
# tool's schema.

# %%
#| export
def _iquest_reader(body, scanner, attributes, opening):
    call = _pair_call(body)
    return 'iquest', [call] if call is not None else []

_register('iquest', _tag_markers('iquest_tool_call'), _tag_opener('iquest'), reader=_iquest_reader)
_add_examples(
    'iquest',
    {
        'iquest': lambda name, arguments: f'<iquest_tool_call>{name}'
        + ''.join(f'<arg_key>{key}</arg_key><arg_value>{value}</arg_value>' for key, value in arguments.items())
        + '</iquest_tool_call>'
    },
)

# %%
write = {
    'name': 'write_file',
    'parameters': {
        'type': 'object',
        'properties': {'path': {'type': 'string'}, 'text': {'type': 'string'}, 'mode': {'type': 'integer'}},
    },
}
iquest = (
    'Writing it.<iquest_tool_call>write_file<arg_key>path</arg_key><arg_value>a.html</arg_value><arg_key>text</arg_key>'
    '<arg_value><p>\n  1 < 2 > 0\n</p></arg_value><arg_key>mode</arg_key><arg_value>420</arg_value></iquest_tool_call>'
    '<iquest_tool_call>get_time<arg_key>tz</arg_key><arg_value>UTC</arg_value></iquest_tool_call>'
)
expected = [
    ('iquest', 'write_file', {'path': 'a.html', 'text': '<p>\n  1 < 2 > 0\n</p>', 'mode': 420}),
    ('iquest', 'get_time', {'tz': 'UTC'}),
]
test_eq(show(iquest, [write, 'get_time']), (expected, 'Writing it.'))
test_eq(stream_calls(iquest, 4, [write, 'get_time']), expected)
test_eq(
    rule('<iquest_tool_call>f<arg_key>a</arg_key></iquest_tool_call>'),
    ([], [('f', 'iquest', "the arguments of 'f' are not <arg_key>/<arg_value> pairs")]),
)

# %% [markdown]
# ## K2 Horizon
#
# K2 Horizon puts `<ifm|...>` tags around GLM-style calls: `<ifm|tool_calls>`, `<ifm|tool_call>NAME`,
# `<ifm|arg_key>k</ifm|arg_key>`, `<ifm|arg_value>v</ifm|arg_value>`, `</ifm|tool_call>`, `</ifm|tool_calls>`. Its JSON
# dialect writes a call's body (or the whole block's) as a JSON object or list instead. It thinks in `<ifm|think>`
# (and `<ifm|think_fast>`, `<ifm|think_faster>`).

# %%
#| export
def _k2_horizon_body(body:str, budget:_Budget, span=None) -> list:
    stripped = body.strip()
    if stripped[:1] in ('{', '['):   # the JSON dialect
        return [dataclasses.replace(call, span=span) for call in _payload_calls(stripped, budget)]
    call = _pair_call(body, 'ifm|arg_key', 'ifm|arg_value', span=span)
    return [call] if call is not None else []

def _k2_horizon_reader(body, scanner):
    if '<ifm|tool_call>' not in body: return 'k2_horizon', _k2_horizon_body(body, scanner.budget)
    calls, spans = [], []
    for _, content in _elements(body, '<ifm|tool_call', '</ifm|tool_call>', _Finder(body), spans):
        calls.extend(_k2_horizon_body(content, scanner.budget, spans[-1]))
    return 'k2_horizon', calls

_register(
    'k2_horizon', ('<ifm|tool_calls>',), _block_opener('k2_horizon', ('</ifm|tool_calls>',)), reader=_k2_horizon_reader
)
_register('k2_horizon_call', ('<ifm|tool_call>',), _block_opener('k2_horizon_call', ('</ifm|tool_call>',)),
          reader=_k2_horizon_reader)
_add_examples('k2_horizon', {
    'k2_horizon': lambda name, arguments: f'<ifm|tool_calls><ifm|tool_call>{name}' + ''.join(
        f'<ifm|arg_key>{key}</ifm|arg_key><ifm|arg_value>{value}</ifm|arg_value>' for key, value in arguments.items())
        + '</ifm|tool_call></ifm|tool_calls>',
    'k2_horizon_json': lambda name, arguments:
        f'<ifm|tool_calls><ifm|tool_call>{_json_call(name, arguments)}</ifm|tool_call></ifm|tool_calls>'})
for think in ('think', 'think_fast', 'think_faster'):
    _register(f'k2_horizon_{think}', (f'<ifm|{think}>',), _reasoning_opener(f'</ifm|{think}>'))
_register('k2_horizon_end', ('</ifm|tool_calls>', '</ifm|think>', '</ifm|think_fast>', '</ifm|think_faster>'), _hidden)

# %%
k2_horizon = (
    '<ifm|think>Two lookups.</ifm|think>On it.<ifm|tool_calls><ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key>'
    '<ifm|arg_value>Paris</ifm|arg_value><ifm|arg_key>days</ifm|arg_key><ifm|arg_value>3</ifm|arg_value></ifm|tool_call>'
    '<ifm|tool_call>get_time<ifm|arg_key>tz</ifm|arg_key><ifm|arg_value>UTC</ifm|arg_value></ifm|tool_call></ifm|tool_calls>'
)
expected = [('k2_horizon', 'get_weather', {'city': 'Paris', 'days': 3}), ('k2_horizon', 'get_time', {'tz': 'UTC'})]
result = parse_tool_calls(k2_horizon, [weather, 'get_time'])
test_eq(
    ([(c.format, c.name, c.arguments) for c in result.calls], result.text, result.reasoning),
    (expected, 'On it.', 'Two lookups.'),
)
test_eq(stream_calls(k2_horizon, 6, [weather, 'get_time']), expected)
json_dialect = (
    '<ifm|tool_calls><ifm|tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}</ifm|tool_call>'
    '<ifm|tool_call>{"name": "get_time", "arguments": {"tz": "UTC"}}</ifm|tool_call></ifm|tool_calls>'
)
test_eq(show(json_dialect)[0], expected)
test_eq(
    show('<ifm|tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]</ifm|tool_calls>')[0],
    expected[:1],
)
test_eq(rule('<ifm|tool_calls><ifm|tool_call>{"city": "Paris"}</ifm|tool_call></ifm|tool_calls>'),
        ([], [('', 'k2_horizon', 'a k2_horizon block whose body does not read as a call')]))

# %% [markdown]
# ## MiniCPM 5
#
# MiniCPM 5 writes `<function name="N"><param name="k">v</param>...</function>`, one call per line and no wrapper:
# the bare `<function name=...>` family reads it. Values may be CDATA sections or escape `<`, `>` and `&` as XML
# entities, which are decoded.

# %%
#| export
_add_examples('functionary', {'minicpm5': lambda name, arguments: f'<function name="{name}">' + ''.join(
    f'<param name="{key}">{value}</param>' for key, value in arguments.items()) + '</function>'})

# %%
minicpm = (
    'Let me check.\n<function name="get_weather"><param name="city">Paris</param><param name="days">3</param></function>\n'
    '<function name="search"><param name="q">a &lt; b &amp;&amp; c</param><param name="code"><![CDATA[x < y && y > z]]></param></function>'
)
expected = [
    ('minicpm5', 'get_weather', {'city': 'Paris', 'days': 3}),
    ('minicpm5', 'search', {'q': 'a < b && c', 'code': 'x < y && y > z'}),
]
test_eq(show(minicpm, [weather, 'search']), (expected, 'Let me check.\n\n'))
test_eq(stream_calls(minicpm, 5, [weather, 'search']), expected)

# %% [markdown]
# ## MiniMax M3
#
# MiniMax M3 prefixes every tag with `]<]minimax[>[`: `<tool_call>`, `<invoke name="N">`, then one element per argument
# named by its key (`<city>Paris</city>`); an object is nested elements, an array repeated `<item>` elements, a scalar
# raw text typed by the tool's schema. The prefix never shows in the visible text. A body that is neither elements
# nor empty refuses its call.

# %%
#| export
_MINIMAX_NS = ']<]minimax[>['
_NESTING_LIMIT = 32
def _element_tree(content:str, depth:int=0):
    "An element's content as data: nested elements become a dict, repeated `<item>`s a list, anything else its text."
    children = _child_elements(content)
    if not children: return _element_value(content)
    if depth >= _NESTING_LIMIT: raise _NotJSON('elements nested too deeply')
    if all(tag == 'item' for tag, _, _ in children):
        return [_element_tree(child, depth + 1) for _, _, child in children]
    fields, repeated = {}, set()
    for tag, _, child in children: _add_argument(fields, tag, _element_tree(child, depth + 1), repeated)
    return fields

def _minimax_m3_reader(body, scanner):
    calls, spans = [], []
    for inside, content in _elements(body, f'{_MINIMAX_NS}<invoke', f'{_MINIMAX_NS}</invoke>', _Finder(body), spans):
        name = _scan_attributes(inside).get('name', '').strip()
        if not _valid_name(name): continue
        content = content.replace(_MINIMAX_NS, '').strip()
        children = _child_elements(content)
        if content and not children:
            calls.append(
                _RawCall(
                    name, None, span=spans[-1], reason=f'the arguments of {name!r} are not one element per argument'
                )
            )
            continue
        # the top level is always the arguments object (an argument may be called `item`)
        arguments, repeated = {}, set()
        try:
            for tag, _, child in children: _add_argument(arguments, tag, _element_tree(child, 1), repeated)
        except _NotJSON as error:
            calls.append(_RawCall(name, None, span=spans[-1], reason=f'the arguments of {name!r}: {error}')); continue
        # every leaf is text: typed by the schema
        calls.append(_RawCall(name, arguments, text_keys=frozenset(arguments), span=spans[-1]))
    return 'minimax_m3', calls

def _open_minimax_m3(scanner, text, position, marker, final):
    "The prefix before `<tool_call>` opens the calls, before `<think>` the reasoning; before anything else it disappears."
    after, opener = position + len(marker), '<tool_call>'
    if text.startswith(opener, after):
        scanner.pending = _Block(
            position,
            after + len(opener),
            (f'{_MINIMAX_NS}</tool_call>',),
            (f'{_MINIMAX_NS}<tool_call>',),
            _minimax_m3_reader,
        )
        return scanner._finish_block(text, final)
    if text.startswith('<think>', after):   # its reasoning, closed by `</think>` with the prefix
        scanner.mode = ((f'{_MINIMAX_NS}</think>', '</think>'), 'reasoning')
        return after + len('<think>'), 'hidden', None
    if (
        not final
        and len(text) - after < len(opener)
        and (opener.startswith(text[after:]) or '<think>'.startswith(text[after:]))
    ):
        return None
    return after, 'hidden', None
_register('minimax_m3', (_MINIMAX_NS,), _open_minimax_m3)

# %%
#| export
_add_examples(
    'minimax_m3',
    {
        'minimax_m3': lambda name, arguments: f'{_MINIMAX_NS}<tool_call>\n{_MINIMAX_NS}<invoke name="{name}">\n'
        + ''.join(f'{_MINIMAX_NS}<{key}>{value}{_MINIMAX_NS}</{key}>\n' for key, value in arguments.items())
        + f'{_MINIMAX_NS}</invoke>\n{_MINIMAX_NS}</tool_call>'
    },
    fragments=(']<]minimax[>[<tool_call>', ']<]minimax[>[<invoke name="a">', '<item>', '</item>'),
)

# %%
ns = ']<]minimax[>['
plan = {
    'name': 'plan_trip',
    'parameters': {
        'type': 'object',
        'properties': {
            'city': {'type': 'string'},
            'days': {'type': 'integer'},
            'stops': {'type': 'array'},
            'budget': {'type': 'object', 'properties': {'amount': {'type': 'integer'}}},
        },
    },
}
minimax_m3 = (
    f'{ns}<think>Plan it.{ns}</think>Planning.\n{ns}<tool_call>\n{ns}<invoke name="plan_trip">\n{ns}<city>Paris{ns}</city>\n'
    f'{ns}<days>3{ns}</days>\n{ns}<stops>{ns}<item>Louvre{ns}</item>{ns}<item>Orsay{ns}</item>{ns}</stops>\n'
    f'{ns}<budget>{ns}<amount>300{ns}</amount>{ns}<currency>EUR{ns}</currency>{ns}</budget>\n{ns}</invoke>\n'
    f'{ns}<invoke name="get_time">\n{ns}<tz>UTC{ns}</tz>\n{ns}</invoke>\n{ns}</tool_call>'
)
expected = [
    (
        'minimax_m3',
        'plan_trip',
        {'city': 'Paris', 'days': 3, 'stops': ['Louvre', 'Orsay'], 'budget': {'amount': 300, 'currency': 'EUR'}},
    ),
    ('minimax_m3', 'get_time', {'tz': 'UTC'}),
]
result = parse_tool_calls(minimax_m3, [plan, 'get_time'])
test_eq(
    ([(c.format, c.name, c.arguments) for c in result.calls], result.text, result.reasoning),
    (expected, 'Planning.\n', 'Plan it.'),
)
test_eq(stream_calls(minimax_m3, 5, [plan, 'get_time']), expected)
test_eq(
    show(f'{ns}<tool_call>\n{ns}<invoke name="list_files">\n{ns}</invoke>\n{ns}</tool_call>')[0],
    [('minimax_m3', 'list_files', {})],
)
test_eq(
    show(f'{ns}<tool_call>{ns}<invoke name="pick">{ns}<item>3{ns}</item>{ns}</invoke>{ns}</tool_call>')[0],
    [('minimax_m3', 'pick', {'item': '3'})],
)
deep = (
    f'{ns}<tool_call>{ns}<invoke name="f">'
    + ''.join(f'<k{n}>' for n in range(40))
    + 'x'
    + ''.join(f'</k{n}>' for n in reversed(range(40)))
    + f'{ns}</invoke>{ns}</tool_call>'
)
test_eq(rule(deep), ([], [('f', 'minimax_m3', "the arguments of 'f': elements nested too deeply")]))
test_eq(rule(f'{ns}<tool_call>\n{ns}<invoke name="f">\ncity=Paris\n{ns}</invoke>\n{ns}</tool_call>'),
        ([], [('f', 'minimax_m3', "the arguments of 'f' are not one element per argument")]))

# %% [markdown]
# ## LongCat
#
# LongCat-Flash (vLLM and SGLang `longcat`) writes the Hermes body in its own tag: `<longcat_tool_call>{"name", "arguments"}</longcat_tool_call>`.

# %%
#| export
_register(
    'longcat', _tag_markers('longcat_tool_call'), _tag_opener('longcat', preview=True), reader=_markup_reader('longcat')
)
_add_examples('longcat', {'longcat': lambda name, arguments:
    f'<longcat_tool_call>\n{_json_call(name, arguments)}\n</longcat_tool_call>'})

# %%
longcat = (
    'Let me check.\n<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</longcat_tool_call>\n'
    '<longcat_tool_call>\n{"name": "get_time", "arguments": {"tz": "UTC"}}\n</longcat_tool_call>'
)
expected = [('longcat', 'get_weather', {'city': 'Paris'}), ('longcat', 'get_time', {'tz': 'UTC'})]
test_eq(show(longcat), (expected, 'Let me check.\n\n'))
test_eq(stream_calls(longcat, 5), expected)
test_eq(
    rule('<longcat_tool_call>get the weather</longcat_tool_call>'),
    ([], [('', 'longcat', 'a longcat block whose body does not read as a call')]),
)

# %% [markdown]
# LongCat-Flash's own chat template (as Ollama's `longcatflash` parser reads it) writes GLM's layout instead, with its
# own tags: `<longcat_tool_call>NAME<longcat_arg_key>k</longcat_arg_key><longcat_arg_value>v</longcat_arg_value></longcat_tool_call>`,
# and thinks in `<longcat_think>`. It is one more reader of the family, before the JSON one: GLM's `_pair_call`, told
# LongCat's tags. Values are text, typed by the tool's schema (Ollama decodes every value that looks like JSON; here, as
# for GLM, a value the schema calls a string stays the string the model wrote, `"007"` included).

# %%
#| export
def _longcat_pairs_reader(body, scanner, attributes, opening):
    stripped = body.strip()
    if stripped[:1] in ('{', '[', '<'): return None   # JSON, or elements: the generic reader's
    call = _pair_call(stripped, 'longcat_arg_key', 'longcat_arg_value')
    return ('longcat', [call]) if call is not None else None

_add_reader('longcat', 10, _longcat_pairs_reader)
_register('longcat_think', ('<longcat_think>',), _reasoning_opener('</longcat_think>'))
_register('longcat_think_end', ('</longcat_think>',), _hidden)
_add_examples('longcat', {'longcat_pairs': lambda name, arguments: f'<longcat_tool_call>{name}' + ''.join(
    f'<longcat_arg_key>{key}</longcat_arg_key><longcat_arg_value>{value}</longcat_arg_value>'
    for key, value in arguments.items()) + '</longcat_tool_call>'})

# %%
longcat_pairs = ('<longcat_think>Weather first.</longcat_think>\nChecking.<longcat_tool_call>get_weather<longcat_arg_key>city'
                 '</longcat_arg_key><longcat_arg_value>Paris</longcat_arg_value><longcat_arg_key>days</longcat_arg_key>'
                 '<longcat_arg_value>3</longcat_arg_value></longcat_tool_call><longcat_tool_call>get_time</longcat_tool_call>')
test_eq(both_ways(longcat_pairs, [weather, 'get_time']),
        ([('get_weather', {'city': 'Paris', 'days': 3}, True), ('get_time', {}, True)], []))
result = parse_tool_calls(longcat_pairs)
test_eq((result.text, result.reasoning, result.calls[0].format), ('\nChecking.', 'Weather first.', 'longcat'))
test_eq(both_ways('<longcat_tool_call>f<longcat_arg_key>a</longcat_arg_key></longcat_tool_call>'),
        ([], [('f', "the arguments of 'f' are not <longcat_arg_key>/<longcat_arg_value> pairs")]))

# %% [markdown]
# ## CWM: `<tool: ...>` blocks
#
# Meta's Code World Model (vLLM `cwm`) writes `<tool: LABEL>` then the call's text, closed by `</tool>`. When the label
# is `function`, as vLLM documents it, the first word of the text is the tool and the rest its input
# (`<tool: function>\nterminal ls -la\n</tool>`); any other label names the tool itself (`<tool: bash>\nls -la\n</tool>`,
# where vLLM would take `ls` for the tool). The input is a JSON object when it is one, else `{"command": "<text>"}`.
# A short form leaves out the `>`: `<tool: python print(1) </tool>`.

# %%
#| export
_CWM_CLOSE = '</tool>'

def _cwm_reader(label:str):
    def reader(body:str, scanner) -> tuple:
        name, rest = label, body.strip()
        if label == 'function':   # the tool is the first word of the body
            parts = rest.split(None, 1)
            name, rest = (parts[0], parts[1].strip() if len(parts) > 1 else '') if parts else ('', '')
        if not _valid_name(name, spaces=False): return 'cwm', []
        if rest.startswith('{'): return 'cwm', [_RawCall(name, rest, json_slot=True)]
        return 'cwm', [_RawCall(name, {'command': rest} if rest else {})]
    reader.needs_closer = True   # its body is free text: `<tool: x>` in prose with no `</tool>` stays prose
    return reader

def _open_cwm(scanner, text, position, marker, final):
    label_start = _skip_space(text, position + len(marker), final)
    if label_start is None: return None
    if label_start == -1: return False
    label_end = _identifier_end(text, label_start, final)
    if label_end is None: return None
    if label_end in (-1, label_start): return False
    after = _skip_space(text, label_end, final)
    if after is None: return None
    body_start = after + 1 if after != -1 and text[after] == '>' else label_end   # no `>`: the short form
    scanner.pending = _Block(position, body_start, (_CWM_CLOSE,), (marker,), _cwm_reader(text[label_start:label_end]))
    return scanner._finish_block(text, final)

_register('cwm', ('<tool:',), _open_cwm)
_add_examples(
    'cwm',
    {'cwm': lambda name, arguments: f'<tool: {name}>\n{json.dumps(arguments)}\n</tool>'},
    fragments=('<tool: ', '<tool: function>\n', '<tool: a>\n', '<tool: a'),
)

# %%
cwm = (
    '<think>Find the definition.</think>\n<tool: function>\nterminal find . -name "*.py" | xargs grep -n "def bulk_create"\n</tool>\n'
    '<tool: bash>\nls -la\n</tool>\n<tool: get_weather>\n{"city": "Paris"}\n</tool>\n<tool: python print(1) </tool>'
)
expected = [
    ('cwm', 'terminal', {'command': 'find . -name "*.py" | xargs grep -n "def bulk_create"'}),
    ('cwm', 'bash', {'command': 'ls -la'}),
    ('cwm', 'get_weather', {'city': 'Paris'}),
    ('cwm', 'python', {'command': 'print(1)'}),
]
test_eq(show(cwm), (expected, '\n\n\n\n'))
test_eq(stream_calls(cwm, 4), expected)
# repaired, marked cut
test_eq(rule('<tool: get_weather>\n{"city": "Paris"\n</tool>'), ([('get_weather', {'city': 'Paris'})], []))
test_eq(
    rule('<tool: get_weather>\n{"city": "Paris"} and then Rome\n</tool>'),
    ([], [('get_weather', 'cwm', 'its arguments are not a JSON object')]),
)
test_eq(show('A <tool: hammer> that never closes.'), ([], 'A <tool: hammer> that never closes.'))

# %% [markdown]
# ## Olmo 3: Pythonic calls one per line
#
# Olmo 3 (vLLM `olmo3`) writes Pythonic calls one per line, with no list brackets, inside `<function_calls>`, and JSON's
# `true`/`false`/`null` where Python has `True`/`False`/`None` (the Pythonic reader takes both). `_call_lines` turns such
# lines into one call list: each call ends where its parentheses balance (the bracket scan of `_scan_value`), so a call
# may span lines and the whole body is read in one pass. The `<function_calls>` family gets one more reader, tried
# before its Claude-style one: a body that opens with `name(` is this shape.

# %%
#| export
# spaces, then a (dotted) name and `(`; only ever `match`ed
_CALL_HEAD = re.compile(r'[ \t\r\n]*([^\W\d][\w.]{0,127})\(')

def _call_lines(source:str) -> str|None:
    """Pythonic calls written one after another (`a(x=1)\\nb(y=2)`) as one call list `[a(x=1), b(y=2)]` for
    `_pythonic_calls`; None when `source` is anything else."""
    calls, position = [], 0
    while (head := _CALL_HEAD.match(source, position)) is not None:
        state = [head.end() - 1, 0, '']
        end = _scan_value(source, state, final=True, markers=False)
        if state[1] > 0 or state[2]: return None   # a call left open
        calls.append(source[head.start(1):end])
        position = end
    return '[' + ', '.join(calls) + ']' if calls and not source[position:].strip() else None

def _olmo3_reader(body, scanner, attributes, opening):
    if _CALL_HEAD.match(body) is None: return None   # not this shape: the Claude-style readers take it
    listed = _call_lines(body)   # the body opens with `name(`: Pythonic calls, one per line, or nothing that reads
    return 'olmo3', _pythonic_calls(listed) if listed is not None else []

_add_reader('function_calls', 10, _olmo3_reader)
_add_examples(
    'function_calls',
    {'olmo3': lambda name, arguments: f'<function_calls>{_python_call(name, arguments)}</function_calls>'},
    fragments=('<function_calls>a(x=1)\n', 'b(y=2)\n'),
)

# %%
test_eq(
    _call_lines('get_weather(city="Paris", days=3)\nget_time(tz="UTC")'),
    '[get_weather(city="Paris", days=3), get_time(tz="UTC")]',
)
# a call spans lines; `)` in a string is text
test_eq(_call_lines('write(text="a)\\nb",\n      mode="w")'), '[write(text="a)\\nb",\n      mode="w")]')
test_eq(
    [_call_lines(source) for source in ('f(x=1) and some words', 'f(x=1', 'just words', '')], [None, None, None, None]
)
olmo3 = (
    'I will check both.<function_calls>get_weather(city="Paris", metric=true, days=3)\nget_time(tz="UTC", dst=null)'
    '</function_calls>'
)
expected = [
    ('olmo3', 'get_weather', {'city': 'Paris', 'metric': True, 'days': 3}),
    ('olmo3', 'get_time', {'tz': 'UTC', 'dst': None}),
]
test_eq(show(olmo3), (expected, 'I will check both.'))
test_eq(stream_calls(olmo3, 6), expected)
test_eq(rule('<function_calls>get_weather(city=Paris)\nget_time()</function_calls>'),
        ([], [('', 'olmo3', 'a olmo3 block whose body does not read as a call')]))   # `Paris` is a name, not a literal
# JSON's words anywhere in a value, nested dicts and lists too (vLLM's olmo3 tests)
olmo3_nested = ('<function_calls>set_config(options={"verbose": true, "retries": null, "tags": [false, "a"]}, name="x")'
                '</function_calls>')
test_eq(both_ways(olmo3_nested), ([('set_config', {'options': {'verbose': True, 'retries': None, 'tags': [False, 'a']},
                                                     'name': 'x'}, True)], []))
# Claude style
test_eq(show('<function_calls>\n<invoke name="a">\n</invoke>\n</function_calls>')[0], [('invoke', 'a', {})])

# %% [markdown]
# ## MiniMax-M1: one JSON object per line in `<tool_calls>`
#
# MiniMax-M1 (vLLM `minimax`) writes each call as a JSON object on its own line inside `<tool_calls>`, with no list around
# them. Several objects one after another are read one by one (each ends where its brackets balance); anything else
# goes to the Jamba reader.

# %%
#| export
_SPACES = re.compile(r'[ \t\r\n]*')

def _json_lines(body:str) -> list|None:
    "(start, end) of each JSON object of `body` when it is two or more of them one after another; None otherwise."
    spans, position, length = [], 0, len(body)
    while (start := _SPACES.match(body, position).end()) < length:
        if body[start] != '{': return None
        state = [start, 0, '']
        end = _scan_value(body, state, final=True, markers=False)
        if state[1] > 0 or state[2]: return None
        spans.append((start, end))
        position = end
    return spans if len(spans) > 1 else None

def _minimax_m1_reader(body, scanner, attributes, opening):
    spans = _json_lines(body)
    if spans is None: return None   # not this shape: the Jamba reader takes it
    calls = []
    for start, end in spans:
        value = _loads(body[start:end], scanner.budget)
        for call in _calls_from_payload(value) if value is not _FAILED else []:
            call.span = (start, end); calls.append(call)
    return 'minimax_m1', calls

_add_reader('jamba', 10, _minimax_m1_reader)
_add_examples(
    'jamba',
    {'minimax_m1': lambda name, arguments: f'<tool_calls>\n{_json_call(name, arguments)}\n</tool_calls>'},
    fragments=('{"name": "a", "arguments": {}}\n',),
)

# %%
minimax_m1 = (
    '<think>Two lookups.</think>\nChecking.\n<tool_calls>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
    '{"name": "get_time", "arguments": {"tz": "UTC"}}\n</tool_calls>'
)
expected = [('minimax_m1', 'get_weather', {'city': 'Paris'}), ('minimax_m1', 'get_time', {'tz': 'UTC'})]
test_eq(show(minimax_m1), (expected, '\nChecking.\n'))
test_eq(stream_calls(minimax_m1, 7), expected)
# Jamba's list
test_eq(show('<tool_calls>[{"name": "a", "arguments": {"x": 1}}]</tool_calls>')[0], [('jamba', 'a', {'x': 1})])
# a line that is no call yields none
test_eq(
    rule('<tool_calls>\n{"name": "a", "arguments": {"x": 1}}\n{"city": "Paris"}\n</tool_calls>'),
    ([('a', {'x': 1})], []),
)

# %% [markdown]
# ## dots
#
# dots.llm (vLLM and SGLang `dots`) wraps `<invoke name><parameter name>` elements, or a Hermes JSON body, in
# `<dots_function_call>`; a body that is neither (a bare word) is refused, not read as a call without arguments.

# %%
#| export
def _dots_reader(body, scanner, attributes, opening):
    stripped = body.strip()
    if '<invoke' in stripped: return 'dots', _invoke_calls(body, '', scanner.budget)
    value = _loads(stripped, scanner.budget) if stripped[:1] in ('{', '[') else _FAILED
    return 'dots', _calls_from_payload(value) if value is not _FAILED else []

_register('dots', _tag_markers('dots_function_call'), _tag_opener('dots', block=_CDATABlock), reader=_dots_reader)
_add_examples(
    'dots',
    {
        'dots': lambda name, arguments: f'<dots_function_call><invoke name="{name}">'
        + ''.join(f'<parameter name="{key}">{value}</parameter>' for key, value in arguments.items())
        + '</invoke></dots_function_call>'
    },
)

# %%
dots = (
    'ok<dots_function_call><invoke name="set_location"><parameter name="location">{"city": "Shanghai"}</parameter>'
    '<parameter name="days">3</parameter></invoke></dots_function_call><dots_function_call>{"name":"search","arguments":{"query":"tables"}}'
    '</dots_function_call>'
)
location = {
    'name': 'set_location',
    'parameters': {'type': 'object', 'properties': {'location': {'type': 'object'}, 'days': {'type': 'integer'}}},
}
expected = [
    ('dots', 'set_location', {'location': {'city': 'Shanghai'}, 'days': 3}),
    ('dots', 'search', {'query': 'tables'}),
]
test_eq(show(dots, [location, 'search']), (expected, 'ok'))
test_eq(stream_calls(dots, 7, [location, 'search']), expected)
test_eq(
    rule('<dots_function_call>garbage</dots_function_call>'),
    ([], [('', 'dots', 'a dots block whose body does not read as a call')]),
)

# %% [markdown]
# ## Nemotron: `<TOOLCALL>`
#
# NVIDIA's Nemotron Nano v2 and its JSON-calling siblings (vLLM `nemotron_json`, llama.cpp Nemotron V2) put a JSON list of
# calls (or one call) in `<TOOLCALL>...</TOOLCALL>`.

# %%
#| export
_register('nemotron', _tag_markers('TOOLCALL'), _tag_opener('nemotron'), reader=_markup_reader('nemotron'))
_add_examples('nemotron', {'nemotron': lambda name, arguments:
    f'<TOOLCALL>{json.dumps([{"name": name, "arguments": arguments}])}</TOOLCALL>'})

# %%
nemotron = (
    '<think>\nI need the weather for Tokyo.\n</think>\nLet me check.<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Tokyo"}}, '
    '{"name": "lookup_timezone", "arguments": {"city": "Tokyo"}}]</TOOLCALL>'
)
expected = [('nemotron', 'get_weather', {'city': 'Tokyo'}), ('nemotron', 'lookup_timezone', {'city': 'Tokyo'})]
test_eq(show(nemotron), (expected, '\nLet me check.'))
test_eq(stream_calls(nemotron, 9), expected)
test_eq(
    show('<TOOLCALL>{"name": "lookup", "arguments": "{\\"query\\": \\"vllm\\"}"}</TOOLCALL>')[0],
    [('nemotron', 'lookup', {'query': 'vllm'})],
)
test_eq(
    rule('<TOOLCALL>[{"city": "Tokyo"}]</TOOLCALL>'),
    ([], [('', 'nemotron', 'a nemotron block whose body does not read as a call')]),
)

# %% [markdown]
# ## Qwen2.5-Coder: `<tools>`
#
# Qwen2.5-Coder (vLLM `qwen25_coder`) often writes its calls in `<tools>` rather than `<tool_call>`: a call object, a list of
# them, or one per line. Chat templates use the same tag to list tool *definitions*, and a model may repeat or quote
# them; so a `<tools>` block reads as calls only when its JSON is call objects (a name and arguments, no description, no
# parameters schema), and anything else, closed or not, stays prose as written.

# %%
#| export
def _is_definition(item) -> bool:
    "Whether a JSON object describes a tool (a description, or a parameters schema) rather than calling one."
    if not isinstance(item, dict): return False
    function = item['function'] if isinstance(item.get('function'), dict) else item
    parameters = function.get('parameters')
    return 'description' in function or (
        isinstance(parameters, dict) and ('properties' in parameters or parameters.get('type') == 'object')
    )

def _qwen25_coder_reader(body, scanner):
    spans = _json_lines(body)
    sources = [body[start:end] for start, end in spans] if spans else [body.strip()]
    values = [_loads(source, scanner.budget) if source[:1] in ('{', '[') else _FAILED for source in sources]
    items = [item for value in values for item in (value if isinstance(value, list) else [value])]
    if not items or any(item is _FAILED or _is_definition(item) for item in items): return 'qwen25_coder', []
    calls = [call for value in values for call in _calls_from_payload(value, strict=True)]
    return 'qwen25_coder', calls

_register('qwen25_coder', ('<tools>',), _block_opener('qwen25_coder', ('</tools>',), prose_without_calls=True),
          reader=_qwen25_coder_reader)
_add_examples(
    'qwen25_coder', {'qwen25_coder': lambda name, arguments: f'<tools>\n{_json_call(name, arguments)}\n</tools>'}
)

# %%
qwen25_coder = (
    'Let me check.\n<tools>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tools>\n'
    '<tools>\n[{"name": "get_time", "parameters": {"tz": "UTC"}}, {"name": "search", "arguments": {"q": "Paris"}}]\n</tools>'
)
expected = [
    ('qwen25_coder', 'get_weather', {'city': 'Paris'}),
    ('qwen25_coder', 'get_time', {'tz': 'UTC'}),
    ('qwen25_coder', 'search', {'q': 'Paris'}),
]
test_eq(show(qwen25_coder), (expected, 'Let me check.\n\n'))
test_eq(stream_calls(qwen25_coder, 6), expected)
# Definitions, prose in the tag, an empty tag: all stay text, exactly as written.
for prose_text in ('You are provided with function signatures within <tools></tools> XML tags.',
                   '<tools>\n{"type": "function", "function": {"name": "get_weather", "description": "Weather", "parameters": {"type": "object", '
                   '"properties": {"city": {"type": "string"}}}}}\n</tools>', 'Bring <tools>a hammer</tools>.'):
    test_eq(show(prose_text), ([], prose_text))

# %% [markdown]
# ## `<tool_call>` bodies: TeleChat 4, Step-Audio 2, a name then JSON
#
# A few models put other bodies in `<tool_call>`. TeleChat 4 and XingChen 4 (SGLang `telechat4`, `xingchen4`, `xing4_0`)
# write GLM's key-value layout with `<param_key>`/`<param_value>` tags, or the name then a JSON object (`get_weather{...}`);
# Step-Audio 2 (vLLM `step_audio_2`) writes `function`, the name and the JSON object on three lines; GLM-5.3-Flash (an SGLang
# detector) writes `NAME>{...}` and may leave the tag open (such a call is marked `complete=False`). The `<tool_call>`
# family gets two more readers, tried before its generic one: TeleChat's pairs (GLM's reader, told TeleChat's tags), and
# a name then JSON.

# %%
#| export
# Bounded runs, and the JSON is only looked for at the end (`(?=\{)`): one short match at the start of a body.
_NAME_THEN_JSON = re.compile(
    r'(function[ \t]*\r?\n[ \t]*)?([^\W\d][\w.\-/]{0,127})[ \t]{0,64}(>?)[ \t\r\n]{0,64}(?=\{)'
)

def _param_pairs_reader(body, scanner, attributes, opening):
    stripped = body.strip()
    if attributes or '<param_key' not in stripped: return None
    call = _pair_call(stripped, 'param_key', 'param_value')
    return 'telechat4', [call] if call is not None else []

def _name_then_json_reader(body, scanner, attributes, opening):
    stripped = body.strip()
    if attributes or (found := _NAME_THEN_JSON.match(stripped)) is None: return None
    found_format = 'step_audio2' if found[1] else 'glm53' if found[3] else 'telechat4'
    return found_format, [_RawCall(found[2], stripped[found.end():], json_slot=True)]

_add_reader('hermes', 10, _param_pairs_reader)
_add_reader('hermes', 20, _name_then_json_reader)
_add_examples(
    'hermes',
    {
        'telechat4': lambda name, arguments: f'<tool_call>{name}'
        + ''.join(f'<param_key>{key}</param_key><param_value>{value}</param_value>' for key, value in arguments.items())
        + '</tool_call>',
        'telechat4_json': lambda name, arguments: f'<tool_call>{name}{json.dumps(arguments)}</tool_call>',
        'step_audio2': lambda name, arguments: f'<tool_call>function\n{name}\n{json.dumps(arguments)}</tool_call>',
    },
    fragments=('<tool_call>a{', '<tool_call>function\na\n', '<tool_call>a>'),
)

# %%
telechat = (
    '<tool_call>get_weather<param_key>city</param_key><param_value>Paris</param_value><param_key>days</param_key>'
    '<param_value>3</param_value></tool_call><tool_call>get_time{"tz": "UTC"}</tool_call>'
)
expected = [('telechat4', 'get_weather', {'city': 'Paris', 'days': 3}), ('telechat4', 'get_time', {'tz': 'UTC'})]
test_eq(show(telechat, [weather, 'get_time']), (expected, ''))
test_eq(stream_calls(telechat, 5, [weather, 'get_time']), expected)
step_audio = 'Let me check.<tool_call>function\nget_weather\n{"city": "Paris"}</tool_call>'
test_eq(show(step_audio), ([('step_audio2', 'get_weather', {'city': 'Paris'})], 'Let me check.'))
glm53 = parse_tool_calls('<tool_call>get_weather>{"city": "Paris"}')
test_eq(
    [(c.format, c.name, c.arguments, c.complete) for c in glm53.calls],
    [('glm53', 'get_weather', {'city': 'Paris'}, False)],
)
test_eq(
    rule('<tool_call>get_weather{"city": "Paris"} and more</tool_call>'),
    ([], [('get_weather', 'telechat4', 'its arguments are not a JSON object')]),
)
test_eq(
    rule('<tool_call>f<param_key>a</param_key></tool_call>'),
    ([], [('f', 'telechat4', "the arguments of 'f' are not <param_key>/<param_value> pairs")]),
)

# %% [markdown]
# ## GLM-4.7: a name and `key=value` words
#
# GLM-4.7 (and a chat template that renders a call's arguments object as words) sometimes writes a call in `<tool_call>` as
# its name and then `key=value` words: `<tool_call>get_weather city=Paris days=3</tool_call>`, a value with spaces in quotes
# (`city="New York"`). It is one more reader of the `<tool_call>` family, after the name-then-JSON one. Every word after the
# name must be `key=value`, or the body is not this shape (and, closed, is refused as before): `get_weather for Paris`
# never becomes a call. Values are text, typed by the tool's schema.

# %%
#| export
# one `key=value` word after spaces: a quoted value runs to its quote on the same line, a bare one to the next space
_WORD_PAIR = re.compile(r'[ \t\r\n]+([^\W\d][\w.-]{0,127})=("[^"\n]*"|\'[^\'\n]*\'|[^\s"\'<>]+)')
_WORD_NAME = re.compile(r'[ \t\r\n]*([^\W\d][\w.\-/]{0,127})(?=[ \t\r\n])')

def _word_pairs_reader(body, scanner, attributes, opening):
    if attributes or '=' not in body or '<' in body: return None
    head = _WORD_NAME.match(body)
    if head is None: return None
    arguments, repeated, position = {}, set(), head.end()
    while (pair := _WORD_PAIR.match(body, position)) is not None:
        value = pair[2][1:-1] if pair[2][0] in '"\'' else pair[2]
        _add_argument(arguments, pair[1], value, repeated)
        position = pair.end()
    if not arguments or body[position:].strip(): return None   # a word that is no `key=value`: not this shape
    return 'glm47', [_RawCall(head[1], arguments, text_keys=frozenset(arguments))]

_add_reader('hermes', 30, _word_pairs_reader)
_add_examples('hermes', {'glm47_words': lambda name, arguments: f'<tool_call>{name} ' + ' '.join(
    f'{key}="{value}"' for key, value in arguments.items()) + '</tool_call>'}, fragments=('<tool_call>a x=1', ' y="a b"'))

# %%
glm47 = 'Checking.<tool_call>get_weather city="New York" days=3</tool_call>\n<tool_call>get_time tz=UTC</tool_call>'
test_eq(both_ways(glm47, [weather, 'get_time']),
        ([('get_weather', {'city': 'New York', 'days': 3}, True), ('get_time', {'tz': 'UTC'}, True)], []))
test_eq(parse_tool_calls(glm47).calls[0].format, 'glm47')
for not_words in ('<tool_call>get_weather for Paris please</tool_call>', '<tool_call>get_weather city=Paris and more</tool_call>'):
    test_eq(both_ways(not_words), ([], [('', 'a hermes block whose body does not read as a call')]))

# %% [markdown]
# ## A shortcut for the plain Hermes message
#
# Most turns that call a tool end with one message of one shape: a little prose, one `<tool_call>` block around
# `{"name": ..., "arguments": {...}}`, and nothing else. One-shot, `parse_tool_calls` hands such a short text to this
# shortcut (`_SHORTCUTS` in `parse.core`) before the scanner: it checks what the scanner's steps would check (the block's
# opener is the text's first marker, its first end is its closer, no CDATA section, no marker after it; the body is JSON
# that needs no repair and is the object no other reader of the family takes; the tool is allowed) and builds the
# result directly. Anything else, or a family whose readers changed since, is declined and the scanner reads it.
# `benchmarks/bench_parse.py` (`Hermes 1 KB long string`, with an allow-list, CPU time on a shared 2-core machine):
# 0.024 ms, 4.6x `json.loads` of its payload, where the scanner's steps took 0.071 ms, 13.4x (SGLang's Hermes
# detector: 0.069 ms).

# %%
#| export
_HERMES_END = _ends(('</tool_call>', '</tool_calls>'), ('<tool_call>', '<tool_call '))[0]   # a bare block's ends
# The readers whose answers the shortcut (and `_reads_nothing`) know: on a body with no `{`, `[`, `(` or `=` (and
# no `<`, which ends a bare opener's body), TeleChat's pairs, name+JSON and GLM-4.7's words find nothing, and the
# markup reader finds no call, or a lone name (text in an unclosed block).
_HERMES_READERS = list(_FAMILIES['hermes'].readers)

def _hermes_message(text:str, tools):
    "One-shot: the `ParseResult` of a text whose one marker is a plain Hermes block, as the scanner gives it; or None."
    start = text.find('<tool_call>')
    if start == -1: return None
    markers = _markers()
    first = markers.prose.search(text)   # the first marker, and no letter-initial one before it
    if first is None or first.start() != start or first.group() != '<tool_call>': return None
    words, body_start = markers.words, start + 11
    if words is not None and (word := words.search(text, 0, start + markers.word_longest)) and word.start() < start:
        return None
    found = _HERMES_END.search(text, body_start)
    if found is None or found.group() != '</tool_call>': return None
    close, end = found.span()
    if (text.find(_CDATA_OPEN, body_start, close) != -1 or markers.prose.search(text, end) is not None
            or (words is not None and words.search(text, end) is not None)): return None   # a section; a marker after
    stripped = text[body_start:close].strip()
    # readers 10 to 30 do not take a JSON object, and 100 reads it as below
    if stripped[:1] != '{' or '<param_key' in stripped or _FAMILIES['hermes'].readers != _HERMES_READERS: return None
    try: value = _json(stripped)
    except (ValueError, RecursionError): return None   # repair: the scanner's
    if type(value) is not dict or len(value) != 2 or type(arguments := value.get('arguments')) is not dict: return None
    name = value.get('name')
    if type(name) is not str or not _valid_name(name := name.strip()): return None
    if (name := _policy_for(tools).resolve(name)) is None: return None   # refused: the scanner's
    call = ToolCall(name, arguments, start, end, 'hermes', None, True)
    return ParseResult((call,), True, False, (), text[:start] + text[end:], '', ())
_SHORTCUTS.append(_hermes_message)

# %%
# the shortcut gives exactly the scanner's answer, and declines what it does not know
def scanned(text, tools=None):
    "`parse_tool_calls` without shortcuts: the scanner's own answer."
    saved = core._SHORTCUTS[:]; core._SHORTCUTS.clear()
    try: return parse_tool_calls(text, tools)
    finally: core._SHORTCUTS.extend(saved)
plain = 'Writing the file.\n<tool_call>\n{"name": "write_file", "arguments": {"path": "a.txt"}}\n</tool_call>\nDone.'
test_eq(_hermes_message(plain, None), scanned(plain))
test_eq(_hermes_message(plain, ['write_file']).calls[0].name, 'write_file')
for other in (plain.replace('"path"', "'path'"),   # needs repair
              plain.replace('"arguments"', '"id": "1", "arguments"'), plain + '<tool_call>', 'Action: ' + plain,
              plain.replace('a.txt', '<![CDATA[a]]>'), plain.replace('</tool_call>', ''), plain.replace('write_file', 'f(')):
    test_eq(_hermes_message(other, None), None)
    test_eq(parse_tool_calls(other), scanned(other))
test_eq(_hermes_message(plain, ['read_file']), None)   # not allowed: the scanner refuses it
test_eq(parse_tool_calls(plain, ['read_file']), scanned(plain, ['read_file']))

# %% [markdown]
# ## Step DeepResearch and IQuest Coder V2
#
# Step DeepResearch (vLLM `step_deepresearch`) wraps Step-3's `<steptml:invoke>` elements in `<steptml:toolcall>`;
# IQuest Coder V2 (vLLM `iquest_coder_v2`) writes IQuest Q1's calls in `<iquestcoder_tool_call>`. Both reuse readers above.

# %%
#| export
def _steptml_toolcall_reader(body, scanner, attributes, opening):
    return 'step3', _invoke_calls(body, 'steptml:', scanner.budget)

_register(
    'step3_toolcall', _tag_markers('steptml:toolcall'), _tag_opener('step3_toolcall', block=_CDATABlock), reader=_steptml_toolcall_reader
)
_register(
    'iquest_coder_v2', _tag_markers('iquestcoder_tool_call'), _tag_opener('iquest_coder_v2'), reader=_iquest_reader
)
_add_examples(
    'step3_toolcall',
    {
        'step_deepresearch': lambda name, arguments: f'<steptml:toolcall><steptml:invoke name="{name}">'
        + ''.join(f'<steptml:parameter name="{key}">{value}</steptml:parameter>' for key, value in arguments.items())
        + '</steptml:invoke></steptml:toolcall>'
    },
)
_add_examples(
    'iquest_coder_v2',
    {
        'iquest_coder_v2': lambda name, arguments: f'<iquestcoder_tool_call>{name}'
        + ''.join(f'<arg_key>{key}</arg_key><arg_value>{value}</arg_value>' for key, value in arguments.items())
        + '</iquestcoder_tool_call>'
    },
)

# %%
deepresearch = (
    'Searching.<steptml:toolcall>\n<steptml:invoke name="web_search">\n<steptml:parameter name="query">Step-3 paper</steptml:parameter>\n'
    '</steptml:invoke>\n</steptml:toolcall>'
)
test_eq(show(deepresearch), ([('step3', 'web_search', {'query': 'Step-3 paper'})], 'Searching.'))
test_eq(stream_calls(deepresearch, 4), [('step3', 'web_search', {'query': 'Step-3 paper'})])
iquest_v2 = (
    '<iquestcoder_tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></iquestcoder_tool_call>'
)
test_eq(show(iquest_v2), ([('iquest', 'get_weather', {'city': 'Paris'})], ''))
test_eq(
    rule('<steptml:toolcall>search the web</steptml:toolcall>'),
    ([], [('', 'step3', 'a step3 block whose body does not read as a call')]),
)

# %% [markdown]
# ## Laguna (Poolside): a call in `<user>`
#
# Poolside's Laguna writes GLM's layout (`<tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>`, which
# the `<tool_call>` family reads) and sometimes puts a call in a `<user>` element instead: the name and its `<arg_key>` pairs,
# a JSON call object, or a whole `<tool_call>` element. Ollama's `laguna` parser reads such an element as a call only when the
# session declares tools and the name is one of them, since `<user>` is ordinary markup in chat text. Here the same: the
# calls read in `<user>` are `declared` ones (refused with the reason unless the allow-list names the tool), an element
# whose body is not such a call stays text, and so does one never closed. (Ollama also renames `read_file` to `read` and
# a few more; a rename is not what the model wrote, so a name must match the allow-list as any other does.)

# %%
#| export
def _laguna_user_reader(body, scanner):
    stripped = body.strip()
    if stripped.startswith('<tool_call>'):   # the call's own element inside the user turn, and nothing after it
        end = stripped.find('</tool_call>')
        if end != -1 and stripped[end + len('</tool_call>'):].strip(): return 'laguna', []
        stripped = stripped[len('<tool_call>'):end if end != -1 else len(stripped)].strip()
    if stripped[:1] == '{': calls = _payload_calls(stripped, scanner.budget)
    elif '<arg_key' in stripped and (call := _pair_call(stripped)) is not None: calls = [call]
    else: calls = []
    return 'laguna', [dataclasses.replace(call, declared=True) for call in calls]

# closed and holding a call, or it is text: `<user>` is markup of chat transcripts too
_register('laguna', ('<user>',), _block_opener('laguna', ('</user>',), needs_closer=True, prose_without_calls=True),
          reader=_laguna_user_reader)

# %%
read = {'name': 'read', 'parameters': {'type': 'object', 'properties': {'path': {'type': 'string'}, 'limit': {'type': 'integer'}}}}
laguna = ('Reading it.\n<user>read<arg_key>path</arg_key><arg_value>go.mod</arg_value><arg_key>limit</arg_key>'
          '<arg_value>20</arg_value></user>\n<user><tool_call>read<arg_key>path</arg_key><arg_value>go.sum</arg_value>'
          '</tool_call></user><user>{"name": "read", "arguments": {"path": "main.go"}}</user>')
test_eq(both_ways(laguna, [read]), ([('read', {'path': 'go.mod', 'limit': 20}, True), ('read', {'path': 'go.sum'}, True),
                                     ('read', {'path': 'main.go'}, True)], []))
test_eq((parse_tool_calls(laguna, [read]).text, parse_tool_calls(laguna, [read]).calls[0].format), ('Reading it.\n\n', 'laguna'))
# No allow-list, or one without the tool: refused with the reason. Prose in `<user>`, or an element left open, is text.
not_declared = 'a layout that is a call only for a tool the allow-list declares, and it declares none by that name'
test_eq(both_ways(laguna)[1], [('read', not_declared)] * 3)
test_eq(both_ways(laguna, ['write'])[0], [])
for prose_text in ('<user>What is in go.mod?</user> asked the user.', 'The <user>read<arg_key>path</arg_key> element'):
    test_eq((both_ways(prose_text, [read]), parse_tool_calls(prose_text, [read]).text), (([], []), prose_text))

# %% [markdown]
# ## Openers back to back, checked
#
# With every family declared: without the run of `_opener_run` (`_OPENER_RUNS` emptied), numbered openers of
# every kind read the same, one step each:

# %%
numbered = [''.join(f'<invoke name="x{n}"><parameter name="a">' for n in range(300)),
            ''.join(f'<function name="a{n}"><param name="x">' for n in range(300)),
            ''.join(f'<seed:tool_call><function=a{n}><parameter=x>' for n in range(300)),
            ''.join(f'<tool_call>a{n}<param_key>x</param_key><param_value>' for n in range(300)) + 'prose',
            ''.join(f'<invoke name="x{n % 3}"><parameter name="a">' + '<tool_call>' * (n % 2) for n in range(300))]
with_runs = [parse_tool_calls(text) for text in numbered]
core._OPENER_RUNS.clear()
test_eq([parse_tool_calls(text) for text in numbered], with_runs)
core._OPENER_RUNS.append(_opener_run)
test_eq([len(result.calls) for result in with_runs], [300, 300, 300, 300, 300])
