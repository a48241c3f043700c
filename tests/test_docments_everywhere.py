"""Docments wherever a tool is written: a real Jupyter kernel (ipykernel), IPython, a module, a zip import give one schema;
where Python keeps no source (exec of a string, `python -`), a DocmentsWarning names the function instead of a silent ""."""
import json, subprocess, sys, textwrap, warnings, zipfile
from pathlib import Path

import pytest

CASES_SOURCE = '''
import dataclasses, typing
from typing import TypedDict, NamedTuple
import pydantic

@dataclasses.dataclass
class Point:
    "A point"
    x: float  # horizontal position
    y: float = 0.0  # vertical position

class Plain:
    "A plain class"
    def __init__(self,
                 name: str,  # the name
                 size: int = 1):  # how big
        self.name, self.size = name, size

class Movie(TypedDict):
    title: str  # the title
    year: int  # the year it came out

class Pair(NamedTuple):
    left: int  # the left one
    right: int = 0  # the right one

class Pet(pydantic.BaseModel):
    name: str  # what it answers to
    age: int = 0  # in years

class Shop:
    def sell(self,
             item: str,  # what to sell
             count: int = 1):  # how many
        "Sell something"

def greet(who: str,  # whom to greet
          loud: bool = False):  # shout it
    "Say hello"

def place(where: Point,  # a point
          movie: Movie, pair: Pair, pet: Pet, plain: Plain): pass

CASES = {'Point': Point, 'Plain': Plain, 'Movie': Movie, 'Pair': Pair, 'Pet': Pet, 'sell': Shop().sell, 'greet': greet, 'place': place}
'''

PRINT_SCHEMAS = "import json; from toolcall_lib.schema import get_schema; print(json.dumps({k: get_schema(v) for k, v in CASES.items()}, sort_keys=True))"


@pytest.fixture(scope='module')
def module_schemas(tmp_path_factory):
    "The schemas of CASES_SOURCE written as a module file and imported in a fresh interpreter"
    directory = tmp_path_factory.mktemp('module')
    (directory/'tool_cases.py').write_text(CASES_SOURCE)
    out = subprocess.run([sys.executable, '-W', 'error::UserWarning', '-c', 'from tool_cases import CASES; ' + PRINT_SCHEMAS],
                         cwd=directory, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    schemas = json.loads(out.stdout)
    assert set(schemas) == {'Point', 'Plain', 'Movie', 'Pair', 'Pet', 'sell', 'greet', 'place'}
    return schemas


def _descriptions(schema):
    "Every 'description' in a schema, so that a test can see that the docments arrived at all"
    if isinstance(schema, dict): return [v for k, v in schema.items() if k == 'description'] + [d for v in schema.values() for d in _descriptions(v)]
    if isinstance(schema, list): return [d for v in schema for d in _descriptions(v)]
    return []


def test_module_schemas_carry_the_comments(module_schemas):
    found = set(_descriptions(module_schemas))
    for comment in ('horizontal position', 'the name', 'how big', 'the year it came out', 'the right one', 'what it answers to',
                    'what to sell', 'how many', 'whom to greet', 'shout it', 'a point'):
        assert comment in found, comment


def test_jupyter_kernel_gives_the_module_schemas(module_schemas):
    "Cells run by a real ipykernel (cell files /tmp/ipykernel_*/N.py), as Jupyter runs them"
    from jupyter_client.manager import start_new_kernel
    manager, client = start_new_kernel(kernel_name='python3')
    outputs, errors = [], []
    def hook(message):
        if message['msg_type'] == 'stream': outputs.append(message['content']['text'])
        elif message['msg_type'] == 'error': errors.append('\n'.join(message['content']['traceback']))
    try:
        client.execute_interactive(CASES_SOURCE, timeout=120, output_hook=hook)
        client.execute_interactive("import warnings; warnings.simplefilter('error', UserWarning)\n" + PRINT_SCHEMAS, timeout=120, output_hook=hook)
        client.execute_interactive("import linecache; print(sorted({n.rsplit('/', 1)[0] for n, e in linecache.cache.items() if e[1] is None and n.startswith('/')}))",
                                   timeout=60, output_hook=hook)
    finally:
        client.stop_channels(); manager.shutdown_kernel(now=True)
    assert not errors, errors
    assert json.loads(outputs[0]) == module_schemas
    assert 'ipykernel_' in outputs[-1]  # the cells really were ipykernel's cell files


def test_ipython_shell_gives_the_module_schemas(module_schemas):
    "IPython's own shell (the terminal's cell names, <ipython-input-N-...>)"
    script = textwrap.dedent(f'''
        import sys
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        for cell in ({CASES_SOURCE!r}, "import warnings; warnings.simplefilter('error', UserWarning)", {PRINT_SCHEMAS!r}):
            if not shell.run_cell(cell).success: sys.exit(1)''')
    out = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == module_schemas


def test_zip_import_gives_the_module_schemas(module_schemas, tmp_path):
    with zipfile.ZipFile(tmp_path/'tools.zip', 'w') as archive: archive.writestr('zipped_cases.py', CASES_SOURCE)
    out = subprocess.run([sys.executable, '-W', 'error::UserWarning', '-c', 'import sys; sys.path.insert(0, "tools.zip"); '
                          'import zipped_cases; assert ".zip" in zipped_cases.__file__; CASES = zipped_cases.CASES; ' + PRINT_SCHEMAS],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == module_schemas


@pytest.mark.parametrize('how', ['exec', 'stdin'])
def test_no_source_warns_once_per_function(how, tmp_path):
    "exec of a string and `python -` keep no source: one DocmentsWarning per function or class, naming it"
    script = CASES_SOURCE + textwrap.dedent('''
        import warnings
        from toolcall_lib.schema import get_schema, clear_schema_cache
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            for _ in range(3):
                for case in CASES.values(): get_schema(case); clear_schema_cache()
        import json
        print(json.dumps([(w.category.__name__, str(w.message)) for w in caught]))''')
    if how == 'exec': command, stdin = [sys.executable, '-c', f'exec({script!r})'], None
    else: command, stdin = [sys.executable, '-'], script
    out = subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    caught = json.loads(out.stdout.strip().splitlines()[-1])
    assert {category for category, _ in caught} == {'DocmentsWarning'}
    named = sorted(message.split("'")[1] for _, message in caught)
    assert named == sorted(['Point', 'Plain.__init__', 'Movie', 'Pair', 'Pet', 'Shop.sell', 'greet', 'place']), named
    assert all('define it in a file or a notebook' in message and 'Args section' in message for _, message in caught)


def test_no_warning_when_the_docstring_describes_every_parameter():
    namespace = {}
    exec('def area(width: float, height: float):\n    """Area.\n\n    Args:\n        width: across\n        height: up\n    """\n', namespace)
    from toolcall_lib.schema import get_schema
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        schema = get_schema(namespace['area'])
    assert schema['input_schema']['properties']['width']['description'] == 'across'


def test_frozen_standard_module_reads_its_file():
    "`os` is frozen (co_filename '<frozen os>'); its source is still on disk, so no warning and the schema is read"
    import os
    from toolcall_lib.schema import _function_docments
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert set(_function_docments(os.fsencode)) == {'filename', 'return'}
