"""Property test for `toolcall_lib.schema`: random annotated functions (nested containers, unions, enums, literals,
dataclasses, TypedDicts, NamedTuples, pydantic models, Annotated constraints, docments comments) must give schemas that are valid JSON
Schema 2020-12 for every provider format, that accept a JSON value of each parameter's type, and whose strict forms
either follow the strict rules or fail with a StrictModeError."""
import dataclasses, enum, json, linecache, typing
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Literal, Optional, NamedTuple, Union
from uuid import UUID
from collections.abc import Mapping, Sequence

import pydantic, typing_extensions
from hypothesis import HealthCheck, event, given, settings, strategies as st
from jsonschema import Draft202012Validator

from toolcall_lib.schema import SCHEMA_FORMATS, STRICT_FORMATS, StrictModeError, get_schema, render_schema

# A type strategy draws (annotation, strategy of JSON values that a schema for that annotation must accept).
_text = st.text(max_size=5)
_json_scalar = st.none() | st.booleans() | st.integers() | _text

LEAVES = st.sampled_from([
    (int, st.integers()),
    (float, st.floats(allow_nan=False, allow_infinity=False)),
    (str, _text),
    (bool, st.booleans()),
    (type(None), st.none()),
    (datetime, st.just('2024-01-02T03:04:05Z')),
    (date, st.just('2024-01-02')),
    (UUID, st.just('12345678-1234-5678-1234-567812345678')),
    (Decimal, st.sampled_from(['1', '-2.50', '.5'])),
    (Path, st.just('a/b.txt')),
    (bytes, st.just('aGVsbG8=')),
    (pydantic.HttpUrl, st.just('https://example.com/a')),  # described by pydantic itself
    (typing.Any, _json_scalar),
])

_counter = iter(range(10**9))
_names = st.sampled_from(['Item', 'Record', 'Entry'])  # few names, so distinct classes often share one

@st.composite
def enums(draw):
    values = draw(st.lists(st.integers(0, 50), min_size=1, max_size=4, unique=True))
    base = draw(st.sampled_from([enum.Enum, enum.IntEnum, enum.StrEnum]))
    members = {f'M{v}': (str(v) if base is enum.StrEnum else v) for v in values}
    cls = base(f'E{next(_counter)}', members)
    return cls, st.sampled_from([m.value for m in cls])

@st.composite
def literals(draw):
    values = draw(st.lists(st.integers(0, 9) | st.sampled_from(['a', 'b', 'c']), min_size=1, max_size=3, unique=True))
    return Literal[tuple(values)], st.sampled_from(values)

def containers(children):
    "Strategies of container types over `children` type strategies"
    def list_of(pair): return (list[pair[0]], st.lists(pair[1], max_size=3))
    def seq_of(pair): return (Sequence[pair[0]], st.lists(pair[1], max_size=3))
    def set_of(pair):
        return (frozenset[pair[0]], st.lists(pair[1], max_size=3, unique_by=lambda v: json.dumps(v, sort_keys=True)))
    def tuple_var(pair): return (tuple[pair[0], ...], st.lists(pair[1], max_size=3))
    def dict_of(pair): return (dict[str, pair[0]], st.dictionaries(_text, pair[1], max_size=3))
    def mapping_of(pair): return (Mapping[str, pair[0]], st.dictionaries(_text, pair[1], max_size=3))
    def optional(pair): return (Optional[pair[0]], st.none() | pair[1])
    def annotated(pair): return (Annotated[pair[0], 'a described value'], pair[1])
    def pair_tuple(pairs): return (tuple[pairs[0][0], pairs[1][0]], st.tuples(pairs[0][1], pairs[1][1]).map(list))
    def union(pairs): return (Union[pairs[0][0], pairs[1][0]], pairs[0][1] | pairs[1][1])
    def pipe_union(pairs): return (pairs[0][0] | pairs[1][0], pairs[0][1] | pairs[1][1])
    single = st.one_of(*(children.map(f) for f in (list_of, seq_of, set_of, tuple_var, dict_of, mapping_of, optional, annotated)))
    double = st.tuples(children, children)
    objects = structured(children)  # twice, so a good share of examples carry $defs
    return single | double.map(pair_tuple) | double.map(union) | double.filter(_pipeable).map(pipe_union) | objects | objects

def _pipeable(pairs):
    "Can `a | b` be written for these two annotations at runtime?"
    try: pairs[0][0] | pairs[1][0]
    except TypeError: return False
    return True

def structured(children):
    "Dataclasses, TypedDicts, NamedTuples and pydantic models whose fields have types drawn from `children`"
    @st.composite
    def build(draw):
        fields = draw(st.lists(children, min_size=1, max_size=3))
        optional = draw(st.lists(st.booleans(), min_size=len(fields), max_size=len(fields)))
        kind = draw(st.sampled_from(['dataclass', 'typeddict', 'namedtuple', 'pydantic']))
        name = draw(_names)
        names = [f'f{i}' for i in range(len(fields))]
        values = st.fixed_dictionaries({n: f[1] for n, f in zip(names, fields)})  # every key, so strict forms accept it too
        if kind == 'typeddict':
            annotations = {n: (typing.NotRequired[f[0]] if opt else f[0]) for n, f, opt in zip(names, fields, optional)}
            return typing_extensions.TypedDict(name, annotations), values  # pydantic before 3.12 takes only this kind
        if kind == 'pydantic':  # its own $defs share names with our classes, which must not be confused
            return pydantic.create_model(name, **{n: (f[0], None if opt else ...) for n, f, opt in zip(names, fields, optional)}), values
        # fields with defaults must follow those without
        order = sorted(range(len(fields)), key=lambda i: optional[i])
        if kind == 'namedtuple':
            cls = NamedTuple(name, [(names[i], fields[i][0]) for i in order])
            cls.__new__.__defaults__ = (None,) * sum(optional)
            return cls, values
        specs = [(names[i], fields[i][0], dataclasses.field(default=None)) if optional[i] else (names[i], fields[i][0]) for i in order]
        return dataclasses.make_dataclass(name, specs), values
    return build()

TYPES = st.recursive(LEAVES | enums() | literals(), containers, max_leaves=6)

@st.composite
def tool_functions(draw):
    "A function with random annotated parameters, some with docments comments and defaults, and an example argument dict"
    params = draw(st.lists(TYPES, min_size=1, max_size=4))
    comments = draw(st.lists(st.sampled_from(['', 'the value', 'what to use']), min_size=len(params), max_size=len(params)))
    with_default = draw(st.lists(st.booleans(), min_size=len(params), max_size=len(params)))
    names = [f'p{i}' for i in range(len(params))]
    order = sorted(range(len(params)), key=lambda i: with_default[i])  # parameters with defaults come last
    lines = ['def tool(\n'] + [f"    {names[i]}{'=None' if with_default[i] else ''},{' # ' + comments[i] if comments[i] else ''}\n"
                               for i in order] + ['):\n', '    "A generated tool"\n']
    filename = f'<generated-tool-{next(_counter)}>'
    linecache.cache[filename] = (len(''.join(lines)), None, lines, filename)  # so docments comments can be read
    namespace = {}
    exec(compile(''.join(lines), filename, 'exec'), namespace)
    tool = namespace['tool']
    tool.__annotations__ = {names[i]: params[i][0] for i in range(len(params))}
    args = draw(st.fixed_dictionaries({names[i]: params[i][1] for i in range(len(params))}))
    return tool, {names[i]: comments[i] for i in range(len(params))}, args

def _walk(node):
    "Every schema object in `node`"
    if isinstance(node, dict):
        yield node
        for value in node.values(): yield from _walk(value)
    elif isinstance(node, list):
        for value in node: yield from _walk(value)

def _parameters(tool_definition, fmt):
    if fmt == 'openai': return tool_definition['function']['parameters']
    return tool_definition[{'anthropic': 'input_schema', 'openai-responses': 'parameters', 'gemini': 'parametersJsonSchema',
                            'gemini-openapi': 'parameters', 'mcp': 'inputSchema'}[fmt]]

FULL_JSON_SCHEMA_FORMATS = ('anthropic', 'openai', 'openai-responses', 'gemini', 'mcp')

@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(tool_functions())
def test_random_functions_give_valid_schemas(case):
    tool, comments, args = case
    neutral = get_schema(tool)
    parameters = neutral['input_schema']
    event('has $defs' if '$defs' in parameters else 'no $defs')
    Draft202012Validator.check_schema(parameters)
    for name, comment in comments.items():
        assert parameters['properties'][name]['description'] in ((comment,) if comment else ('', 'a described value'))
    for node in _walk(parameters):
        if node.get('type') == 'array': assert 'items' in node, node
        if 'anyOf' in node: assert 'type' not in node, node
    for fmt in SCHEMA_FORMATS:
        rendered = render_schema(neutral, fmt)
        assert json.loads(json.dumps(rendered)) == rendered  # plain JSON
        params = _parameters(rendered, fmt)
        Draft202012Validator.check_schema(params)
        if fmt in FULL_JSON_SCHEMA_FORMATS:
            assert Draft202012Validator(params).is_valid(json.loads(json.dumps(args))), (params, args)
        else:
            assert '$ref' not in json.dumps(params)
    for fmt in STRICT_FORMATS:
        try: rendered = render_schema(neutral, fmt, strict=True)
        except StrictModeError as e:
            assert ('parameter' in str(e) or 'type' in str(e)) and 'strict mode' in str(e), str(e)
            event(f'{fmt} strict: refused')
            continue
        event(f'{fmt} strict: rendered')
        params = _parameters(rendered, fmt)
        Draft202012Validator.check_schema(params)
        for node in _walk(params):
            if node.get('type') == 'object':
                assert node['additionalProperties'] is False
                assert set(node['required']) == set(node['properties'])
        assert Draft202012Validator(params).is_valid(json.loads(json.dumps(args))), (params, args)

def test_get_schema_is_stable_across_calls():
    "The cached path returns equal, unshared results (checked on one generated-like function)"
    def tool(a:list[dict[str, int]], b:Optional[Literal['x', 'y']]=None): "A tool"
    results = [get_schema(tool) for _ in range(6)]
    assert all(r == results[0] for r in results)
    results[0]['input_schema']['properties']['a']['items']['additionalProperties']['type'] = 'changed'
    assert get_schema(tool)['input_schema']['properties']['a']['items']['additionalProperties']['type'] == 'integer'

# The fast docments reader must agree with fastcore.docments (the reference for the rules) on random function headers
# with comments beside and above parameters, awkward defaults, *args/**kwargs, decorators and return annotations.
ANNOTATIONS = st.sampled_from(['', ':int', ': list[str]', ":'str'", ': dict[str, "int"]', ': tuple[int, ...]'])
DEFAULTS = st.sampled_from(['', '=1', '="a#b"', "='(x'", '=(1, 2)', "={'k': ')'}", '="""tri#ple"""', "='it\\'s'", '=None'])
COMMENTS = st.sampled_from(['', 'the value', 'has # inside', 'ends with (', "it's quoted"])

@st.composite
def function_sources(draw):
    "Source of a function header with random parameters and comments, and the parameter names"
    count = draw(st.integers(1, 5))
    lines = list(draw(st.sampled_from([[], ['@decorate\n'], ['@decorate("def f(x): # no")\n']])))
    lines.append('def tool(' + ('' if draw(st.booleans()) else '\n'))
    names, seen_default = [], False
    star_at = draw(st.integers(0, count)) if draw(st.booleans()) else None
    for i in range(count):
        if i == star_at: lines.append('    *args,\n')
        for comment in draw(st.lists(COMMENTS.filter(bool), max_size=2)): lines.append(f'    # {comment}\n')
        default = draw(DEFAULTS)
        if star_at is None or i < star_at:  # before *args, a default forces defaults on the rest
            if seen_default and not default: default = '=0'
            seen_default = seen_default or bool(default)
        comment = draw(COMMENTS)
        lines.append(f"    p{i}{draw(ANNOTATIONS)}{default},{' # ' + comment if comment else ''}\n")
        names.append(f'p{i}')
    if draw(st.booleans()): lines.append('    **kwargs,\n')  # fastcore never reads a comment here, so none is written
    returns = draw(st.sampled_from(['', ' -> int', " -> 'list[str]'"]))
    return_comment = draw(COMMENTS)
    lines.append(f"){returns}:{' # ' + return_comment if return_comment else ''}\n")
    lines.append('    return None\n')
    return lines, names

def decorate(*args):
    "A decorator that may be called with arguments"
    if len(args) == 1 and callable(args[0]): return args[0]
    return lambda f: f

@settings(max_examples=200, deadline=None)
@given(function_sources())
def test_docments_reader_agrees_with_fastcore(case):
    from fastcore.docments import docments
    from toolcall_lib.schema import _function_docments
    lines, names = case
    filename = f'<generated-header-{next(_counter)}>'
    linecache.cache[filename] = (len(''.join(lines)), None, lines, filename)
    namespace = {'decorate': decorate}
    exec(compile(''.join(lines), filename, 'exec'), namespace)
    tool = namespace['tool']
    expected = {name: (doc['docment'] or None) for name, doc in docments(tool, full=True).items()}
    ours = {name: (doc or None) for name, doc in _function_docments(tool).items()}
    expected.pop('kwargs', None)
    assert {k: ours.get(k) for k in expected} == expected, ''.join(lines)

PRAGMAS = st.sampled_from(['noqa', 'noqa: E501', 'type: ignore', 'type: ignore[arg-type]', 'pragma: no cover', 'fmt: skip'])

@st.composite
def headers_with_pragmas(draw):
    "A function header from `function_sources`, and the same header with pragma comments added beside and above its parameters"
    lines, names = draw(function_sources())
    marked = []
    for line in lines:
        if line.startswith('    p'):
            if draw(st.booleans()): marked.append(f'    # {draw(PRAGMAS)}\n')
            if draw(st.booleans()):
                separator = '  # ' if '#' in line else ' # '
                line = line.rstrip('\n') + separator + draw(PRAGMAS) + '\n'
        marked.append(line)
    return lines, marked, names

@settings(max_examples=150, deadline=None)
@given(headers_with_pragmas())
def test_pragmas_change_no_description(case):
    "Tool pragmas beside or above parameters leave every description as fastcore reads the header without them"
    from fastcore.docments import docments
    from toolcall_lib.schema import _function_docments
    plain_lines, marked_lines, names = case
    def load(lines):
        filename = f'<generated-header-{next(_counter)}>'
        linecache.cache[filename] = (len(''.join(lines)), None, lines, filename)
        namespace = {'decorate': decorate}
        exec(compile(''.join(lines), filename, 'exec'), namespace)
        return namespace['tool']
    expected = {name: (doc['docment'] or None) for name, doc in docments(load(plain_lines), full=True).items() if name in names}
    ours = _function_docments(load(marked_lines))
    assert {name: ours.get(name) for name in names} == expected, ''.join(marked_lines)

@st.composite
def field_tools(draw):
    "A function whose parameters have pydantic `Field` defaults with random bounds, defaults, descriptions and aliases"
    count = draw(st.integers(1, 4))
    params, expected = [], {}
    for i in range(count):
        low = draw(st.integers(-50, 50))
        high = draw(st.integers(low, low + 100))
        kind = draw(st.sampled_from(['value', 'factory', 'required']))
        value = draw(st.integers(low, high))
        alias = draw(st.sampled_from([None, f'arg-{i}', f'Arg{i}']))
        description = draw(st.sampled_from([None, 'a bounded number']))
        keywords = dict(ge=low, le=high, alias=alias, description=description)
        if kind == 'value': field = pydantic.Field(value, **keywords)
        elif kind == 'factory': field = pydantic.Field(default_factory=lambda v=value: v, **keywords)
        else: field = pydantic.Field(..., **keywords)
        in_annotated = kind != 'required' and draw(st.booleans())
        params.append((f'p{i}', field, in_annotated))
        expected[alias or f'p{i}'] = (low, high, kind, value, description)
    return params, expected

def _make_field_tool(params):
    "A tool taking `params` (name, FieldInfo, whether it sits in Annotated rather than in the default), returning its arguments"
    from inspect import Parameter, Signature
    signature, annotations = [], {}
    # parameters without a Python default come first, as Python requires
    for name, field, in_annotated in sorted(params, key=lambda p: not p[2]):
        annotation = Annotated[int, field] if in_annotated else int
        default = Parameter.empty if in_annotated else field
        signature.append(Parameter(name, Parameter.POSITIONAL_OR_KEYWORD, annotation=annotation, default=default))
        annotations[name] = annotation
    def tool(**kwargs): return kwargs
    tool.__signature__, tool.__annotations__, tool.__doc__ = Signature(signature), annotations, 'A generated tool'
    return tool

@settings(max_examples=150, deadline=None)
@given(field_tools())
def test_field_defaults_give_bounded_properties(case):
    "Each `Field` parameter is a property named by its alias, with its bounds, its default (none for a factory) and its description"
    params, expected = case
    parameters = get_schema(_make_field_tool(params))['input_schema']
    Draft202012Validator.check_schema(parameters)
    assert set(parameters['properties']) == set(expected)
    for key, (low, high, kind, value, description) in expected.items():
        prop = parameters['properties'][key]
        assert (prop['type'], prop['minimum'], prop['maximum']) == ('integer', low, high)
        assert prop['description'] == (description or '')
        assert prop.get('default', 'none') == (value if kind == 'value' else 'none')
        assert (key in parameters.get('required', [])) == (kind == 'required')
