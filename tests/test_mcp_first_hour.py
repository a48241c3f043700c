"""A new user's first hour with MCP: the tutorial's install line installs what its examples import, and a server an MCP
client starts in a directory of its own says which file it could not find, where the client shows it."""
import asyncio, json, re, sys, tempfile
from pathlib import Path

import pytest

mcp = pytest.importorskip('mcp', reason='the MCP SDK is in the dev extra')
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = str(Path(sys.executable).parent/'toolcall')
TUTORIALS = sorted((ROOT/'nbs'/'tutorials').glob('*.ipynb'))
EXTRA_OF = {'matplotlib': 'interp', 'numpy': 'interp', 'pandas': 'interp', 'PIL': 'interp', 'mcp': 'mcp'}

def notebook_text(path:Path) -> tuple:
    "(markdown, code) of a notebook, each as one text."
    cells = json.loads(path.read_text(encoding='utf-8'))['cells']
    join = lambda kind: '\n'.join(''.join(cell['source']) for cell in cells if cell['cell_type'] == kind)
    return join('markdown'), join('code')

@pytest.mark.parametrize('tutorial', [path for path in TUTORIALS if 'pip install' in notebook_text(path)[0]], ids=lambda p: p.name)
def test_a_tutorials_install_line_has_the_extras_its_code_imports(tutorial):
    "Code sent to the sandbox counts too: it runs in the same environment, so `import matplotlib` there needs the extra."
    markdown, code = notebook_text(tutorial)
    extras = {extra for line in re.findall(r'pip install [^`\n]*', markdown)
              for group in re.findall(r'toolcall_lib\[([\w,]+)\]', line) for extra in group.split(',')}
    needed = {EXTRA_OF[module] for module in re.findall(r'\b(?:import|from) (\w+)', code) if module in EXTRA_OF}
    assert needed <= extras, f'{tutorial.name}: the install line lacks {sorted(needed - extras)} for what its code imports'

def test_the_mcp_tutorial_installs_the_plot_libraries():
    markdown, code = notebook_text(ROOT/'nbs'/'tutorials'/'06_mcp_interpreter.ipynb')
    assert 'import matplotlib' in code and 'pip install "toolcall_lib[mcp,interp]"' in markdown

async def start_as_a_client_does(arguments:list, directory:Path, log) -> BaseException|None:
    "Start `toolcall ARGUMENTS` in `directory` as an MCP client does (its stderr in `log`); what the handshake raised."
    server = StdioServerParameters(command=SCRIPT, args=arguments, cwd=str(directory))
    try:
        async with stdio_client(server, errlog=log) as (read, write), ClientSession(read, write) as session:
            await asyncio.wait_for(session.initialize(), 60)
    except BaseException as error: return error
    return None

def test_a_relative_target_from_another_directory_names_the_path_it_looked_for(tmp_path):
    "Clients start servers in a directory of their own: the error says where a relative path was looked for, not only its name."
    with tempfile.TemporaryFile('w+') as log:
        error = asyncio.run(start_as_a_client_does(['mcp', 'serve', 'examples/weather_tools.py'], tmp_path, log))
        log.seek(0)
        shown = log.read()   # what a client puts in its server log
    assert error is not None, 'the server started without its tools'
    assert shown.strip() == (f'toolcall mcp: error: no such file: examples/weather_tools.py (looked for '
                             f'{tmp_path}/examples/weather_tools.py: a relative path is read from the directory the '
                             'command starts in; give an absolute path)'), shown

def test_a_relative_target_from_its_directory_is_served(tmp_path):
    with tempfile.TemporaryFile('w+') as log:
        error = asyncio.run(start_as_a_client_does(['mcp', 'serve', 'examples/weather_tools.py'], ROOT, log))
        log.seek(0)
        assert error is None, log.read()
