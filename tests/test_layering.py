"""The import contract (`.importlinter`): the package's layering holds, and an arrow up would fail it.

import-linter reads every import statement, the ones inside functions too (most of this package imports lazily),
so `toolcall_lib.schema` importing `toolcall_lib.cli` anywhere breaks the contract. The later tests run the same
contract on a copy of the package, to show it fails on an arrow up and holds once `parse` and `interp` are packages."""
import os, shutil, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = ROOT/'.importlinter'

LINT = ('import sys, toolcall_lib; from importlinter.cli import lint_imports\n'
        'print("linting", toolcall_lib.__file__)\n'
        'sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True, no_logo=True))\n')

def lint(package_parent:Path) -> subprocess.CompletedProcess:
    "Run the contract against the `toolcall_lib` found in `package_parent`."
    env = {**os.environ, 'PYTHONPATH': str(package_parent)}
    return subprocess.run([sys.executable, '-c', LINT, str(CONTRACT)], capture_output=True, text=True, env=env,
                          cwd=package_parent, timeout=120)

def package_copy(tmp_path:Path) -> Path:
    "A copy of the package under `tmp_path`, which `lint(tmp_path)` reads instead of the checkout's."
    shutil.copytree(ROOT/'toolcall_lib', tmp_path/'toolcall_lib', ignore=shutil.ignore_patterns('__pycache__'))
    return tmp_path/'toolcall_lib'

def test_the_package_keeps_its_layers():
    done = lint(ROOT)
    assert done.returncode == 0 and f'linting {ROOT/"toolcall_lib"}' in done.stdout, done.stdout + done.stderr
    assert '0 broken' in done.stdout, done.stdout

def test_an_arrow_up_fails(tmp_path):
    "A lazy import of the CLI inside schema (a function-level import, as this package writes them) breaks the layers."
    package = package_copy(tmp_path)
    with open(package/'schema.py', 'a') as schema: schema.write('\ndef _reach_up():\n    from toolcall_lib.cli import main\n')
    done = lint(tmp_path)
    assert f'linting {package}' in done.stdout, done.stdout + done.stderr
    assert done.returncode != 0 and 'toolcall_lib.schema -> toolcall_lib.cli' in done.stdout, done.stdout

def test_siblings_stay_apart(tmp_path):
    "toolset, parse and interp are independent: the parser may not use the toolset module, nor the loop the MCP one."
    package = package_copy(tmp_path)
    with open(package/'parse.py', 'a') as parse: parse.write('\ndef _across():\n    from toolcall_lib.toolset import Toolset\n')
    with open(package/'loop.py', 'a') as loop: loop.write('\ndef _across():\n    from toolcall_lib.mcp import serve\n')
    done = lint(tmp_path)
    assert done.returncode != 0, done.stdout
    assert 'toolcall_lib.parse -> toolcall_lib.toolset' in done.stdout and 'toolcall_lib.loop -> toolcall_lib.mcp' in done.stdout, done.stdout

def test_parse_and_interp_as_packages(tmp_path):
    "The contract names modules by prefix: it binds every submodule of the `parse/` and `interp/` packages."
    package = package_copy(tmp_path)
    for name in ('parse', 'interp'): assert (package/name/'__init__.py').exists(), f'{name} is a package of notebooks'
    done = lint(tmp_path)
    assert f'linting {package}' in done.stdout and done.returncode == 0, done.stdout + done.stderr
    (package/'parse'/'formats_extra.py').write_text('from toolcall_lib.schema import get_schema\n')  # parse knows tools as schemas, not schema's code
    (package/'interp'/'worker_extra.py').write_text('def _tool():\n    from toolcall_lib.dispatch import call_func\n')
    done = lint(tmp_path)
    assert done.returncode != 0, done.stdout
    assert 'toolcall_lib.parse.formats_extra -> toolcall_lib.schema' in done.stdout, done.stdout
    assert 'toolcall_lib.interp.worker_extra -> toolcall_lib.dispatch' in done.stdout, done.stdout

def test_a_new_module_must_be_placed(tmp_path):
    "`exhaustive`: a module the contract does not place is an error, so nothing joins the package outside the layers."
    package = package_copy(tmp_path)
    (package/'helpers.py').write_text('')
    done = lint(tmp_path)
    assert done.returncode != 0 and 'toolcall_lib.helpers' in done.stdout, done.stdout


# --- no reach into another module's private names --------------------------------------------------------------

# Imports of another module's private names still in the tree, each to go when its branch lands (a stale entry fails).
STILL_REACHING = set()

def private_imports(package:Path) -> set:
    "(importer, imported module, name) for each `from X import _name` where X is another part of the package."
    import ast
    found = set()
    for path in package.rglob('*.py'):
        parts = path.relative_to(package.parent).with_suffix('').parts
        importer = '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)
        for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
            if not isinstance(node, ast.ImportFrom) or (node.level == 0 and not (node.module or '').startswith('toolcall_lib')): continue
            base = importer.split('.')[:len(importer.split('.')) - node.level + (parts[-1] == '__init__')] if node.level else []
            imported = '.'.join(base + ([node.module] if node.module else []))
            if imported.split('.')[:2] == importer.split('.')[:2]: continue   # within one module or one package of notebooks
            found |= {(importer, imported, alias.name) for alias in node.names
                      if alias.name.startswith('_') and not alias.name.startswith('__')}
    return found

def test_no_module_imports_another_modules_private_names():
    found = private_imports(ROOT/'toolcall_lib')
    assert found <= STILL_REACHING, f'private names imported across modules: {sorted(found - STILL_REACHING)}'
    assert STILL_REACHING <= found, f'gone now, delete from STILL_REACHING: {sorted(STILL_REACHING - found)}'

def test_a_reach_into_privates_is_seen(tmp_path):
    package = package_copy(tmp_path)
    with open(package/'toolset.py', 'a') as toolset: toolset.write('\nfrom .schema import _cached\n')
    # inside the parse package: reaching up with two dots is seen, a sibling's private within the package is not
    (package/'parse'/'extra.py').write_text('from ..dispatch import _one_call\nfrom .core import _inside\n')
    assert private_imports(package) - STILL_REACHING == {('toolcall_lib.toolset', 'toolcall_lib.schema', '_cached'),
                                                         ('toolcall_lib.parse.extra', 'toolcall_lib.dispatch', '_one_call')}
