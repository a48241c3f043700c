"""Property tests: for random annotated functions, arguments generated from the function's own schema
(`get_schema`) are accepted, converted to the annotated types, and the call succeeds; so are the same arguments in
the shapes models tend to send instead (numbers and booleans as strings, containers as JSON text, enum names in
any case)."""
import base64, enum, json
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from inspect import Parameter, Signature
from pathlib import Path
from typing import Literal, NamedTuple, Optional, Union, get_args, get_origin
from uuid import UUID

from hypothesis import HealthCheck, given, settings, strategies as st
from pydantic import BaseModel, HttpUrl
from typing_extensions import Annotated, NotRequired, TypedDict, is_typeddict

from toolcall_lib.dispatch import call_func
from toolcall_lib.schema import get_schema

class Color(enum.Enum):
    RED = 'red'
    GREEN = 'green'

class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2

@dataclass
class Point:
    x: int
    y: float

class Movie(TypedDict):
    title: str
    year: NotRequired[int]

class Pair(NamedTuple):
    a: int
    b: str

class Item(BaseModel):
    name: str
    qty: int

SCALARS = [int, float, str, bool, date, datetime, UUID, Decimal, Path, bytes, HttpUrl, Color, Level, Literal['a', 'b', 'c'], Literal[1, 2, 3]]
RECORDS = [Point, Movie, Pair, Item]
HASHABLE = [int, str, Color, Literal['a', 'b', 'c']]

def _containers(children):
    return st.one_of(children.map(lambda t: list[t]), children.map(lambda t: dict[str, t]), children.map(lambda t: Optional[t]),
                     st.tuples(children, children).map(lambda ab: tuple[ab]), st.sampled_from(HASHABLE).map(lambda t: set[t]))

annotations = st.recursive(st.sampled_from(SCALARS + RECORDS), _containers, max_leaves=4)

def make_tool(annos:list, optional:list):
    "A tool with parameters p0.. annotated `annos`; those flagged in `optional` default to None. It returns its arguments."
    params = [Parameter(f'p{i}', Parameter.POSITIONAL_OR_KEYWORD, annotation=a) for i, (a, o) in enumerate(zip(annos, optional)) if not o]
    params += [Parameter(f'p{i}', Parameter.KEYWORD_ONLY, annotation=a, default=None) for i, (a, o) in enumerate(zip(annos, optional)) if o]
    def tool(**kwargs): return kwargs
    tool.__signature__ = Signature(params)
    tool.__annotations__ = {p.name: p.annotation for p in params}
    tool.__doc__ = 'A generated tool'
    return tool

# JSON Schema -> hypothesis strategy for the subset get_schema produces here
def from_schema(schema:dict, defs:dict):
    if '$ref' in schema: return from_schema(defs[schema['$ref'].rsplit('/', 1)[-1]], defs)
    if 'enum' in schema: return st.sampled_from(schema['enum'])
    if 'anyOf' in schema: return st.one_of([from_schema(s, defs) for s in schema['anyOf']])
    kind = schema.get('type')
    if kind == 'string':
        fmt = schema.get('format')
        if fmt == 'date': return st.dates(min_value=date(1900, 1, 1)).map(date.isoformat)
        if fmt == 'date-time': return st.datetimes(min_value=datetime(1900, 1, 1)).map(datetime.isoformat)
        if fmt == 'uuid': return st.uuids().map(str)
        if fmt == 'uri': return st.sampled_from(['https://example.com/a', 'http://x.org/?q=1'])
        if schema.get('contentEncoding') == 'base64': return st.binary(max_size=12).map(lambda b: base64.b64encode(b).decode())
        if 'pattern' in schema: return st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str)
        return st.text(max_size=8)
    if kind == 'integer': return st.integers(-10**6, 10**6)
    if kind == 'number': return st.one_of(st.integers(-1000, 1000), st.floats(allow_nan=False, allow_infinity=False))
    if kind == 'boolean': return st.booleans()
    if kind == 'null': return st.none()
    if kind == 'array':
        if 'prefixItems' in schema: return st.tuples(*[from_schema(s, defs) for s in schema['prefixItems']]).map(list)
        return st.lists(from_schema(schema.get('items', {}), defs), max_size=3, unique_by=(lambda v: json.dumps(v)) if schema.get('uniqueItems') else None)
    if kind == 'object':
        if 'properties' in schema:
            required = set(schema.get('required', []))
            props = schema['properties']
            return st.fixed_dictionaries({k: from_schema(v, defs) for k, v in props.items() if k in required},
                                         optional={k: from_schema(v, defs) for k, v in props.items() if k not in required})
        if 'additionalProperties' in schema: return st.dictionaries(st.text(max_size=5), from_schema(schema['additionalProperties'], defs), max_size=3)
    return st.integers()

def conforms(value, tp) -> bool:
    "Is `value` a proper value of annotation `tp`, deeply?"
    origin, args = get_origin(tp), get_args(tp)
    if origin is Annotated: return conforms(value, args[0])
    if origin is Union: return any(conforms(value, a) for a in args)
    if tp is type(None): return value is None
    if origin is Literal: return value in args
    if origin is list: return type(value) is list and all(conforms(v, args[0]) for v in value)
    if origin is set: return type(value) is set and all(conforms(v, args[0]) for v in value)
    if origin is dict: return type(value) is dict and all(type(k) is str and conforms(v, args[1]) for k, v in value.items())
    if origin is tuple: return type(value) is tuple and len(value) == len(args) and all(map(conforms, value, args))
    if is_typeddict(tp):
        fields = tp.__annotations__
        return type(value) is dict and tp.__required_keys__ <= set(value) <= set(fields) and all(
            conforms(v, fields[k].__args__[0] if get_origin(fields[k]) is NotRequired else fields[k]) for k, v in value.items())
    if tp is Point: return type(value) is Point and type(value.x) is int and type(value.y) is float
    if tp is Pair: return type(value) is Pair and type(value.a) is int and type(value.b) is str
    if tp is int: return type(value) is int
    if tp is float: return type(value) is float
    if tp is date: return type(value) is date
    if tp is Path: return isinstance(value, Path)
    if tp is bytes: return type(value) is bytes
    return type(value) is tp

def _strip_optional(tp):
    args = get_args(tp)
    return next(a for a in args if a is not type(None)) if get_origin(tp) is Union and type(None) in args and len(args) == 2 else tp

def as_a_model_might_send(value, tp):
    "The same value the way models often get it wrong: scalars as strings, containers as JSON text, enum names in odd case"
    tp = _strip_optional(tp)
    if value is None: return 'null'  # JSON text for null: None where the type has no string of its own
    if tp in (int, float): return str(value)
    if tp is bool: return 'true' if value else 'false'
    if isinstance(tp, type) and issubclass(tp, enum.Enum): return tp(value).name.swapcase()
    if get_origin(tp) is Literal: return value.upper() if isinstance(value, str) else str(value)
    if isinstance(value, (list, dict)): return json.dumps(value)
    return value

tools = st.lists(st.tuples(annotations, st.booleans()), min_size=1, max_size=5).map(lambda pairs: make_tool(*zip(*pairs)))

@st.composite
def tool_and_arguments(draw):
    tool = draw(tools)
    schema = get_schema(tool)['input_schema']
    arguments = draw(from_schema(schema, schema.get('$defs', {})))
    return tool, arguments

def _check_call(tool, arguments):
    result = call_func('tool', arguments, {'tool': tool})
    hints = tool.__annotations__
    assert set(result) == set(arguments)
    for name, value in result.items():
        tp = hints[name]
        if tool.__signature__.parameters[name].default is None: tp = Optional[tp]
        assert conforms(value, tp), (name, tp, arguments[name], value)

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool_and_arguments())
def test_schema_generated_arguments_are_accepted(case):
    _check_call(*case)

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool_and_arguments())
def test_model_shaped_arguments_are_accepted(case):
    tool, arguments = case
    hints = tool.__annotations__
    _check_call(tool, {k: as_a_model_might_send(v, hints[k]) for k, v in arguments.items()})

# fastcore's list repairs: a bare string where a list belongs is a one-item list, `{}` is an empty list.
STRING_ITEMS = [str, date, datetime, UUID, Path, bytes, Color, Literal['a', 'b', 'c']]  # item types whose JSON value is a string

@st.composite
def list_slips(draw):
    "A list-like annotation over a string-valued item type, a JSON item value, and whether to send it as a bare item or as `{}`"
    item = draw(st.sampled_from(STRING_ITEMS))
    wraps = [lambda t: list[t], lambda t: Optional[list[t]], lambda t: set[t], lambda t: tuple[t, ...]]
    if item is not str: wraps.append(lambda t: Union[int, list[t]])  # (a str item like "5" would rightly be read as the int)
    wrap = draw(st.sampled_from(wraps))
    schema = get_schema(make_tool([item], [False]))['input_schema']
    value = draw(from_schema(schema['properties']['p0'], schema.get('$defs', {})).filter(
        lambda v: not v.lstrip().startswith(('[', '{'))))  # JSON-looking text is left as an error on purpose
    return wrap(item), item, value, draw(st.booleans())

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(list_slips())
def test_list_slips_are_repaired(case):
    annotation, item, value, send_empty_object = case
    tool = make_tool([annotation], [False])
    result = call_func('tool', {'p0': {} if send_empty_object else value}, {'tool': tool})['p0']
    if send_empty_object: assert len(result) == 0 and conforms(list(result), list[item]), result
    else:
        assert len(result) == 1, result
        expected = call_func('tool', {'p0': value}, {'tool': make_tool([item], [False])})['p0']
        assert next(iter(result)) == expected and conforms(expected, item), (result, expected)

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(-100, 100), st.integers(0, 50), st.data())
def test_field_default_constraints_are_enforced(low, width, data):
    "A `Field(default, ge=, le=, alias=)` parameter: omitted gives the default, in bounds is accepted by alias, out of bounds is refused"
    from pydantic import Field
    from toolcall_lib.dispatch import ArgumentValueError, UnknownArgumentError
    high = low + width
    default = data.draw(st.integers(low, high))
    alias = data.draw(st.sampled_from([None, 'the-count']))
    key = alias or 'count'
    def tool(count:int=Field(default, ge=low, le=high, alias=alias)): return count
    assert call_func('tool', {}, {'tool': tool}) == default
    assert call_func('tool', {key: None}, {'tool': tool}) == default
    inside = data.draw(st.integers(low, high))
    assert call_func('tool', {key: data.draw(st.sampled_from([inside, str(inside)]))}, {'tool': tool}) == inside
    outside = data.draw(st.integers(high + 1, high + 100) | st.integers(low - 100, low - 1))
    try: call_func('tool', {key: outside}, {'tool': tool}); raise AssertionError(f'{outside} accepted for {low}..{high}')
    except ArgumentValueError as e: assert e.param == key and repr(key) in str(e), str(e)
    if alias:
        try: call_func('tool', {'count': inside}, {'tool': tool}); raise AssertionError('the Python name was accepted beside its alias')
        except UnknownArgumentError as e: assert 'the-count' in str(e)
