"""One exception root: every public exception class of every module derives from `ToolcallLibError` (keeping its
built-in base), and the tree drawn in nbs/00_errors.ipynb names each of them.

The walk finds the modules that exist (today's single modules or tomorrow's packages of notebooks alike) and
checks each one's public names, reporting every offender of a module at once."""
import importlib, json, pkgutil, re
from pathlib import Path

import pytest

import toolcall_lib
from toolcall_lib.errors import ToolcallLibError

ROOT = Path(__file__).resolve().parent.parent

def package_modules() -> list[str]:
    "Every module of the package, found on disk (`walk_packages` imports packages to look inside them)."
    found = pkgutil.walk_packages(toolcall_lib.__path__, 'toolcall_lib.', onerror=lambda name: None)
    return sorted(name for _, name, _ in found if not name.rsplit('.', 1)[-1].startswith('_'))

def public_exceptions(module) -> dict:
    "name -> class for each exception class the module makes public (its `__all__`, else its public names)."
    names = getattr(module, '__all__', None) or [name for name in vars(module) if not name.startswith('_')]
    classes = {name: getattr(module, name, None) for name in names}
    return {name: value for name, value in classes.items()
            if isinstance(value, type) and issubclass(value, BaseException) and not issubclass(value, Warning)
            and value.__module__.startswith('toolcall_lib')}   # not a re-exported built-in or third-party class

@pytest.mark.parametrize('module_name', package_modules())
def test_public_exceptions_derive_from_the_root(module_name):
    module = importlib.import_module(module_name)
    outside = sorted(f'{name} ({", ".join(base.__name__ for base in value.__mro__[1:-1])})'
                     for name, value in public_exceptions(module).items() if not issubclass(value, ToolcallLibError))
    assert not outside, f'{module_name}: public exceptions outside ToolcallLibError: {", ".join(outside)}'

def test_the_walk_sees_the_package():
    "The walk is not empty, and it finds the exceptions of the modules the tree is about."
    modules = package_modules()
    assert {'toolcall_lib.errors', 'toolcall_lib.schema', 'toolcall_lib.dispatch', 'toolcall_lib.cli'} <= set(modules)
    found = {name for module in modules for name in public_exceptions(importlib.import_module(module))}
    assert {'SchemaError', 'ToolCallError', 'ToolsetError', 'MCPConnectionError', 'CliError'} <= found, found

def drawn_tree() -> str:
    "The tree drawn in the errors notebook (its fenced block that starts with ToolcallLibError)."
    cells = json.loads((ROOT/'nbs'/'00_errors.ipynb').read_text(encoding='utf-8'))['cells']
    text = '\n'.join(''.join(cell['source']) for cell in cells if cell['cell_type'] == 'markdown')
    blocks = [block for block in re.findall(r'```\n(.*?)```', text, re.DOTALL) if block.startswith('ToolcallLibError')]
    assert len(blocks) == 1, 'nbs/00_errors.ipynb should draw the tree once, in a block opening with ToolcallLibError'
    return blocks[0]

def test_the_drawn_tree_names_every_public_exception():
    tree_names = set(re.findall(r'[─└├│ ]*([A-Z]\w+)', drawn_tree()))
    public = {name for module in package_modules() for name in public_exceptions(importlib.import_module(module))}
    assert not public - tree_names, f'nbs/00_errors.ipynb does not draw {sorted(public - tree_names)}'

def test_the_drawn_tree_matches_the_classes():
    "Each class drawn under another derives from it, and the built-in named beside it is one of its bases."
    exceptions = {name: value for module in package_modules()
                  for name, value in public_exceptions(importlib.import_module(module)).items()}
    exceptions['ToolcallLibError'] = ToolcallLibError
    parents, wrong = [], []
    for line in drawn_tree().splitlines():
        match = re.match(r'([│ ├└─]*)([A-Z]\w+)(?: \((\w+)\))?', line)
        depth = len(match.group(1)) // 4
        name, builtin = match.group(2), match.group(3)
        parents[depth:] = [name]
        cls = exceptions.get(name)
        if cls is None: continue   # a drawn name with no class: the naming test reports it
        if depth and parents[depth - 1] in exceptions and not issubclass(cls, exceptions[parents[depth - 1]]):
            wrong.append(f'{name} is drawn under {parents[depth - 1]}')
        if builtin and not issubclass(cls, getattr(__builtins__, builtin, None) or __builtins__[builtin]):
            wrong.append(f'{name} is drawn as a {builtin}')
    assert not wrong, '; '.join(wrong)
