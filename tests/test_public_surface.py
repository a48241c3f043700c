"""The public surface of schema, dispatch, toolset, tool_search, mcp and the command-line modules: every parameter of every public
function, class and method carries a docments comment, and options past the first one or two parameters are
keyword-only, but for the fastcore-compatible layer and the few signatures listed below with their reason."""
import dataclasses, importlib, inspect

import pytest
from fastcore.docments import docments

MODULES = ['schema', 'dispatch', 'toolset', 'tool_search', 'approvals', 'mcp', 'cli_targets', 'mcp_cli', 'cli']

# Positional past the second parameter, on purpose:
POSITIONAL = {
    # the compatible layer: fastcore's and toolslm's names and positional parameters (see the dispatch page)
    'dispatch.call_func', 'dispatch.call_func_async', 'dispatch.mk_param',
    # a subcommand is its name and its two functions, all three required
    'cli.register_subcommand',
    # the storage protocol a user implements: the record's fields in order, all required
    'toolset.MemoryBackend.put', 'toolset.MemoryBackend.update', 'toolset.MemoryRecord.replaced',
}

def public_callables():
    "(qualified name, callable, owning class or None) for each public function, class and method of MODULES."
    for module_name in MODULES:
        module = importlib.import_module(f'toolcall_lib.{module_name}')
        for name in module.__all__:
            value = getattr(module, name)
            if getattr(value, '__module__', None) != module.__name__: continue   # re-exported from a lower module
            if inspect.isfunction(value): yield f'{module_name}.{name}', value, None
            elif inspect.isclass(value) and not issubclass(value, BaseException):
                yield f'{module_name}.{name}', value, None
                for attribute, member in list(vars(value).items()):
                    if inspect.isfunction(member) and not attribute.startswith('_'):
                        yield f'{module_name}.{name}.{attribute}', member, value

def protocol_method(owner, name:str) -> str|None:
    "The protocol method `owner.name` implements (documented there), if any."
    from toolcall_lib.toolset import MemoryBackend   # runtime-checkable: its implementations need not subclass it
    if owner is None or owner is MemoryBackend or name not in vars(MemoryBackend): return None
    return f'MemoryBackend.{name}' if issubclass(owner, MemoryBackend) else None

def test_every_public_parameter_is_documented():
    missing = []
    for qualified, value, owner in public_callables():
        if protocol_method(owner, qualified.rsplit('.', 1)[-1]): continue   # its parameters are documented on the protocol
        if inspect.isclass(value) and getattr(value, '_is_protocol', False): continue   # a protocol is not constructed
        if inspect.isclass(value) and '__init__' not in vars(value) and not dataclasses.is_dataclass(value): continue
        documented = docments(value)
        parameters = inspect.signature(value).parameters.values()
        undocumented = [p.name for p in parameters if p.name not in ('self', 'cls') and p.kind != p.VAR_KEYWORD
                        and not documented.get(p.name)]   # fastcore's docments does not read **kwargs comments
        if undocumented: missing.append(f'{qualified}{tuple(undocumented)}')
    assert not missing, 'parameters without a docments comment: ' + ', '.join(missing)

def test_options_are_keyword_only():
    positional = []
    for qualified, value, owner in public_callables():
        if dataclasses.is_dataclass(value): continue   # a record's fields, not options
        implemented = protocol_method(owner, qualified.rsplit('.', 1)[-1])   # e.g. SQLiteBackend.put: MemoryBackend.put
        if qualified in POSITIONAL or (implemented and f'toolset.{implemented}' in POSITIONAL): continue
        function = value.__init__ if inspect.isclass(value) else value
        if inspect.isclass(value) and '__init__' not in vars(value): continue
        parameters = [p for p in inspect.signature(function).parameters.values() if p.name not in ('self', 'cls')]
        in_order = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if len(in_order) > 2: positional.append(f'{qualified}({", ".join(in_order)})')
    assert not positional, 'options that should be keyword-only: ' + '; '.join(positional)

def test_the_compatible_layer_keeps_its_positional_form():
    "fastcore-style calls keep working: call_func(name, inputs, ns, raise_on_err), get_schema(f, pname), mk_tool(dispfn, tool)."
    from toolcall_lib.dispatch import call_func, mk_ns, mk_tool, schema2sig
    from toolcall_lib.schema import get_schema
    def add(a:int, # first
            b:int=0, # second
           ) -> int: # sum
        "Add."
        return a + b
    assert call_func('add', {'a': 'x'}, mk_ns(add), False).startswith('Invalid value')   # raise_on_err by position
    with pytest.warns(DeprecationWarning): schema = get_schema(add, 'parameters')   # deprecated: pname=... is the form now
    assert list(schema) == ['name', 'description', 'parameters']
    assert str(schema2sig(schema)) == '(a: int, *, b: int = 0)'
    assert mk_tool(lambda name, **arguments: arguments, schema)(1, b=2) == {'a': 1, 'b': 2}
    with pytest.raises(TypeError): get_schema(add, 'parameters', True)   # options after pname are keyword-only
