"""The same cells, run in a `Sandbox` and in a real Jupyter kernel (ipykernel through nbclient, as
tools/refresh_outputs.py runs notebooks), store the same outputs: the same mime bundles and metadata, IPython's
pretty printing, the figures' text, the errors' names, values and traceback text. Only what varies between any two
runs is masked: object addresses, and the name of the file a cell's code is compiled under (ipykernel's
`/tmp/ipykernel_<pid>/<hash>.py`, the sandbox's `<cell-N>.py`), which a SyntaxError's value and a warning show.

Images are compared by kind and size (PNG bytes vary with library versions), tracebacks after stripping ANSI colour
codes (both have them). The one difference the sandbox makes on purpose is listed in DELIBERATE, checked to be
exactly that difference; nbs/04_interp/03_worker.ipynb explains it. In the namespace mode nothing is left there: `!cmd`
runs under a pseudo-terminal of the session's own, as ipykernel runs it; only a sandbox without one (container mode)
still runs it through a pipe (PIPE_ONLY). What a *model* reads (`RunResult.value`,
`.error`, `str(result)`) is not the stored outputs, and is checked apart at the end."""
import base64, json, re, struct, sys
from pathlib import Path

import pytest

if sys.platform != 'linux': pytest.skip('the sandbox needs Linux', allow_module_level=True)

nbformat = pytest.importorskip('nbformat')
nbclient = pytest.importorskip('nbclient')
from toolcall_lib.interp import Sandbox

PNG = ('import zlib, struct\n'
       'def chunk(kind, data): return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))\n'
       'png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 3, 2, 8, 0, 0, 0, 0)) '
       '+ chunk(b"IDAT", zlib.compress(b"\\x00\\x00\\x00\\x00" * 2)) + chunk(b"IEND", b"")')

GIT_LOG = ('!git init -q repo && git -C repo -c user.email=a@b -c user.name=a commit -q --allow-empty -m hi '
           '&& git -C repo log --format=%s')

CELLS = [   # run in this order in one session of each, so execution counts, `_` and `Out` line up
    '1 + 1',
    'print("hello")',
    '"text"',
    'x = 5',
    'x * 2;',                                   # a trailing `;`: no result
    'print(1)\n2',
    'print("a")\ndisplay(1)\nprint("b")',       # order of printed and displayed output
    'from IPython.display import display, JSON, HTML, Markdown, Image, Latex\ndisplay(JSON({"a": [1, 2], "b": {"c": None}}))',
    'display(HTML("<b>bold</b>"))',
    'display(Markdown("# Title"))',
    'display(Latex(r"$x^2$"))',
    PNG + '\nImage(data=png)',
    'Image(data=png, width=30)',                # metadata: the width asked for
    'display(1, "two")',
    'list(range(100))',                         # IPython's pretty printer wraps long containers
    '{f"key{i}": list(range(i)) for i in range(12)}',
    '[{"name": "x" * 30, "values": list(range(15))} for _ in range(3)]',
    'set(range(40))',
    'class C: pass\nC()',                       # `<__main__.C at 0x...>`, not `object at`
    'class D:\n    def __repr__(self): return "D()"\n[D()] * 3',
    'import pandas as pd\npd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"]})',
    'import matplotlib.pyplot as plt\nplt.plot([1, 2, 3]);',
    'plt.plot([3, 2, 1])',                      # the value, then the figure
    'fig, ax = plt.subplots()\nax.plot([1, 2])\nplt.show()\nprint("after")',   # shown where `plt.show()` is
    'import sys\nprint("to stderr", file=sys.stderr)',
    'import warnings\nwarnings.warn("careful")',
    '1 / 0',
    'def f():\n    return g()\ndef g():\n    raise ValueError("bad value")\nf()',
    'import json\njson.loads("{")',             # a library's frames (formatted through stack_data)
    'def h(:\n    pass',
    'if True:\nprint(1)',
    '{}["missing"]',
    '%not_a_magic',
    '21 * 2',
    '_',
    'Out[34]',
    'None',
    'import asyncio\nawait asyncio.sleep(0, result=3)',
    '!echo shell',
    'plt.switch_backend("agg")\nplt.plot([1]);',
    # what a kernel sets for the commands a cell runs; then a command that would start a pager under a terminal
    'import os\n{name: os.environ.get(name) for name in ("TERM", "CLICOLOR", "FORCE_COLOR", "CLICOLOR_FORCE", "PAGER", "GIT_PAGER")}',
    GIT_LOG,
]
assert CELLS[33] == '21 * 2'  # `Out[34]` is its value

# cell source -> (why, how the sandbox's outputs differ from the kernel's: a function of the sandbox's masked outputs)
DELIBERATE = {}
# the same, only where the sandbox has no pseudo-terminals of its own (container mode: no mount namespace to hold them)
PIPE_ONLY = {
    '!echo shell': ('without terminals of its own the sandbox runs `!cmd` through a pipe, so its lines end in "\\n", where '
                    'ipykernel runs it in a pseudo-terminal, which writes "\\r\\n"',
                    lambda outputs: [dict(output, text=output['text'].replace('\n', '\r\n')) for output in outputs]),
}
PIPE_ONLY[GIT_LOG] = PIPE_ONLY['!echo shell']

ADDRESS = re.compile(r' at 0x[0-9a-fA-F]+')
CELL_FILE = re.compile(r'/tmp/ipykernel_\d+/\d+\.py|(?<=\()\d+\.py(?=, line \d)|<cell-\d+>\.py')  # a SyntaxError: its base name
ANSI = re.compile(r'\x1b\[[0-9;]*m')


def png_size(encoded):
    data = base64.b64decode(encoded)
    assert data[:8] == b'\x89PNG\r\n\x1a\n'
    return struct.unpack('>II', data[16:24])


def masked(output):
    "An output as the two are compared: addresses and cell file names masked, images by size, tracebacks without colour"
    output = json.loads(json.dumps(output))
    output.pop('transient', None)
    for mime, content in output.get('data', {}).items():
        if mime in ('image/png', 'image/jpeg'): output['data'][mime] = ('<image>', png_size(content) if mime == 'image/png' else None)
    if 'traceback' in output: output['traceback'] = ANSI.sub('', '\n'.join(output['traceback']))
    text = CELL_FILE.sub('<cell file>', ADDRESS.sub(' at 0x…', json.dumps(output, sort_keys=True)))
    text = text.replace(f' {Path.home()}/', ' ~/')
    return json.loads(text)


def joined(outputs) -> list:
    "Runs of text to one stream as one output, as Jupyter shows them (how a kernel cut them into messages is timing)"
    whole = []
    for output in outputs:
        if whole and output['output_type'] == 'stream' and whole[-1]['output_type'] == 'stream' and whole[-1]['name'] == output['name']:
            whole[-1] = dict(whole[-1], text=whole[-1]['text'] + output['text'])
        else: whole.append(dict(output))
    return whole


@pytest.fixture(scope='module')
def runs(tmp_path_factory):
    "(kernel outputs, sandbox results), one entry per cell"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell) for cell in CELLS])
    nbclient.NotebookClient(notebook, timeout=120, kernel_name='python3', allow_errors=True,
                            resources={'metadata': {'path': str(tmp_path_factory.mktemp('kernel'))}}).execute()
    with Sandbox() as box:
        results = [box.run(cell) for cell in CELLS]
        layers = box._worker.layers
    # the namespace mode always has its own terminals: a host where the private devpts mount failed shows up here
    assert layers.get('terminals') == bool(layers.get('namespaces')), layers
    return [joined(cell.outputs) for cell in notebook.cells], results, layers.get('terminals')


@pytest.mark.parametrize('index', range(len(CELLS)), ids=[cell.split('\n')[-1][:40] for cell in CELLS])
def test_the_sandbox_stores_what_jupyter_shows(runs, index):
    kernel, results, terminals = runs
    expected = [masked(output) for output in kernel[index]]
    shown = [masked(output) for output in results[index].outputs]
    deliberate = DELIBERATE if terminals else {**DELIBERATE, **PIPE_ONLY}
    if CELLS[index] in deliberate:
        why, difference = deliberate[CELLS[index]]
        assert shown != expected, f'no longer different: {why}'
        shown = difference(shown)
    assert shown == expected


def test_the_comparison_covers_what_the_issue_named(runs):
    "The cases measured as different before are in the run, and show what Jupyter shows"
    kernel, _, _ = runs
    by_cell = dict(zip(CELLS, kernel))
    json_output = by_cell[CELLS[7]][0]
    assert json_output['data']['application/json'] == {'a': [1, 2], 'b': {'c': None}}
    assert by_cell['class C: pass\nC()'][0]['data']['text/plain'].startswith('<__main__.C at 0x')
    assert by_cell['list(range(100))'][0]['data']['text/plain'].count('\n') == 99
    assert by_cell['import matplotlib.pyplot as plt\nplt.plot([1, 2, 3]);'][0]['data']['text/plain'] == '<Figure size 640x480 with 1 Axes>'
    syntax = by_cell['def h(:\n    pass'][0]
    assert 'line 1' in syntax['evalue'] and 'Cell In[30], line 1' in ANSI.sub('', syntax['traceback'][0])
    assert any('\x1b[' in line for line in syntax['traceback'])  # Jupyter's tracebacks have colours: so do the sandbox's
    assert len(CELLS) >= 30
    assert by_cell[GIT_LOG] == [{'output_type': 'stream', 'name': 'stdout', 'text': 'hi\r\n'}]  # no pager: the log itself


def test_what_a_model_reads_is_kept_apart(runs):
    """The stored outputs are the kernel's; the text handed to a model differs on purpose: errors as a short Python
    traceback without colours or context lines, JSON as JSON rather than its `<... JSON object>` repr."""
    _, results, _ = runs
    by_cell = dict(zip(CELLS, results))
    error = by_cell['def f():\n    return g()\ndef g():\n    raise ValueError("bad value")\nf()'].error
    assert error.startswith('Traceback (most recent call last):') and 'File "<cell-28>", line 5, in <module>' in error
    assert '\x1b[' not in error and error.endswith('ValueError: bad value')
    assert by_cell['def h(:\n    pass'].error.splitlines()[0] == '  File "<cell-30>", line 1'
    assert by_cell['%not_a_magic'].error == 'UsageError: Line magic function `%not_a_magic` not found.'
    assert str(by_cell[CELLS[7]]) == '{"a": [1, 2], "b": {"c": null}}'
    assert by_cell['list(range(100))'].value == by_cell['list(range(100))'].outputs[0]['data']['text/plain']
    figure = by_cell['import matplotlib.pyplot as plt\nplt.plot([1, 2, 3]);']
    assert figure.value is None and len(figure.images) == 1 and figure.images[0].width > 0
    assert str(figure) == str(figure.images[0])  # a displayed figure is its image
    # a figure left open under a backend the code chose: no output (as in Jupyter), but the model still sees it, and why
    left_open = by_cell['plt.switch_backend("agg")\nplt.plot([1]);']
    assert left_open.outputs == () and len(left_open.images) == 1 and left_open.images[0].width > 0
    assert str(left_open).startswith(str(left_open.images[0])) and 'a notebook would show nothing' in str(left_open)
    git_log = by_cell[GIT_LOG]  # under the sandbox's terminal, with the kernel's PAGER=cat: printed, not paged until the timeout
    assert not git_log.timed_out and str(git_log) == 'hi'
