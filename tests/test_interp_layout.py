"""The layout of `toolcall_lib.interp`: the sandbox's trust boundary is a file boundary.

The worker loads `protocol`, `isolation` and `worker` by path with the standard library only (`_BOOTSTRAP`), so those
files may import nothing else at load time: no host module, no third-party package. The public names of the old
single-module `toolcall_lib.interp` (and the private ones other code imports) still import from the package."""
import ast, importlib, json, subprocess, sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / 'toolcall_lib' / 'interp'
WORKER_MODULES = ('protocol', 'isolation', 'worker')  # everything that runs inside the sandbox
# What the worker may import lazily, inside a function, when a cell first needs it: the kernel's optional parts.
LAZY_THIRD_PARTY = {'IPython', 'traitlets', 'matplotlib'}  # traitlets: IPython's configuration


def imports_of(path:Path) -> tuple:
    "(top-level imports, imports inside functions) of a module: sets of (level, module) pairs."
    tree = ast.parse(path.read_text())
    at_load, lazy = set(), set()
    def visit(node, in_function:bool):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                (lazy if in_function else at_load).update((0, alias.name) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                (lazy if in_function else at_load).add((child.level, child.module or ''))
            visit(child, inner)
    visit(tree, False)
    return at_load, lazy


def top(name:str) -> str: return name.split('.')[0]


def test_worker_modules_import_only_the_standard_library_and_each_other():
    for stem in WORKER_MODULES:
        at_load, lazy = imports_of(PACKAGE / f'{stem}.py')
        for level, module in at_load | lazy:
            if level:  # a relative import: only a sibling that runs inside too
                assert level == 1 and module in WORKER_MODULES, f'{stem}.py imports .{module}, which the worker never loads'
            elif module != '__future__' and top(module) not in sys.stdlib_module_names:
                assert (0, module) in lazy and top(module) in LAZY_THIRD_PARTY, f'{stem}.py imports {module}'


def test_the_checker_catches_a_host_import_and_a_third_party_import(tmp_path):
    bad = tmp_path / 'bad.py'
    bad.write_text('import os\nfrom .host import Sandbox\nimport numpy\ndef f():\n    import IPython\n')
    at_load, lazy = imports_of(bad)
    assert at_load == {(0, 'os'), (1, 'host'), (0, 'numpy')} and lazy == {(0, 'IPython')}


def test_the_worker_is_loaded_exactly_as_the_sandbox_loads_it():
    "The bootstrap's own loader, in a fresh isolated interpreter: no toolcall_lib module and nothing third-party loaded."
    from toolcall_lib.interp.host import _BOOTSTRAP, _WORKER_MODULES
    assert _WORKER_MODULES == WORKER_MODULES
    probe = ('import sys; started_with = set(sys.modules)\n'  # what the interpreter loads itself (site, .pth files)
             + _BOOTSTRAP.replace('module._template_main()', 'import json; print(json.dumps(sorted(set(sys.modules) - started_with)))'))
    completed = subprocess.run([sys.executable, '-I', '-c', probe, str(PACKAGE), *WORKER_MODULES],
                               capture_output=True, text=True, timeout=60, env={})
    assert completed.returncode == 0, completed.stderr
    loaded = set(json.loads(completed.stdout))
    assert {'toolcall_sandbox.protocol', 'toolcall_sandbox.isolation', 'toolcall_sandbox.worker'} <= loaded
    outside = {name for name in loaded if top(name) not in sys.stdlib_module_names and top(name) != 'toolcall_sandbox'}
    assert outside == set(), outside


OLD_PUBLIC = ['run_python_here', 'landlock_abi', 'Image', 'RunResult', 'SandboxError', 'IsolationError', 'SandboxClosedError',
              'IsolationWarning', 'Layer', 'SandboxStatus', 'Sandbox', 'default_sandbox', 'python', 'python_tool',
              'SandboxPool', 'sandbox_status']  # `toolcall_lib.interp.__all__` before it became a package
USED_ELSEWHERE = ['_template']  # imported by tests/ and benchmarks/


def test_every_old_name_still_imports_from_the_package():
    interp = importlib.import_module('toolcall_lib.interp')
    assert set(OLD_PUBLIC) <= set(interp.__all__), set(OLD_PUBLIC) - set(interp.__all__)
    for name in OLD_PUBLIC + USED_ELSEWHERE: assert hasattr(interp, name), name


def test_names_other_modules_import_from_interp_resolve():
    "Every `from toolcall_lib.interp import ...` (or `from .interp import ...`) in the library, tests, benchmarks and notebooks."
    root = PACKAGE.parents[1]
    sources = [*root.glob('toolcall_lib/*.py'), *root.glob('tests/*.py'), *root.glob('benchmarks/*.py')]
    interp, names = importlib.import_module('toolcall_lib.interp'), set()
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module == 'toolcall_lib.interp' or (node.level == 1 and node.module == 'interp')):
                names.update(alias.name for alias in node.names)  # the imported name, whatever it is bound to
    for notebook in root.glob('nbs/**/*.ipynb'):  # notebooks: one import statement per line, possibly in parentheses
        for cell in json.loads(notebook.read_text())['cells']:
            source = ''.join(cell['source'])
            for line in source.splitlines():
                if cell['cell_type'] == 'code' and line.strip().startswith('from toolcall_lib.interp import '):
                    listed = line.split(' import ', 1)[1].split('#')[0].strip('() \\')
                    names.update(name.split(' as ')[0].strip() for name in listed.split(',') if name.strip())
    assert {'Sandbox', 'SandboxPool', 'python', 'Image', 'RunResult', '_template'} <= names
    assert [name for name in sorted(names) if not hasattr(interp, name)] == []


def test_public_exceptions_share_the_library_root():
    from toolcall_lib.errors import ToolcallLibError
    from toolcall_lib.interp import SandboxError, IsolationError, SandboxClosedError
    for error in (SandboxError, IsolationError, SandboxClosedError):
        assert issubclass(error, ToolcallLibError) and issubclass(error, RuntimeError)
