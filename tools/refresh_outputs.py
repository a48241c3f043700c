"""Run notebooks in a real Jupyter kernel and store their outputs: `python tools/refresh_outputs.py` runs every
notebook under nbs/ (or only the ones named: `python tools/refresh_outputs.py nbs/00_schema.ipynb`).

Each notebook runs top to bottom, every cell included (as Jupyter's Run All runs it, `#| eval: false` cells too),
in an ipykernel started from the notebook's own directory, through nbclient. Its outputs are stored with what
varies from run to run masked (object addresses, the checkout's and Python's paths, temporary paths, timings,
dates), and the notebook is written exactly as `nbdev_clean` would leave it (cell ids kept). `--check` runs the
notebooks and writes nothing: it lists the cells whose stored outputs no longer match what they show now, and the
notebooks `nbdev_clean` would change, and exits 1 if there are any (tests/test_notebook_outputs.py does the same)."""
import argparse, copy, json, re, sys, tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbtext import ensure_ids, notebook_text

TIMEOUT = 900   # seconds one cell may take (the sandbox and MCP notebooks start servers)

_MASKS = [   # (pattern, replacement), applied in order to every text output
    (re.compile(r'(<[^<>\n]*?) at 0x[0-9a-fA-F]+(>)'), r'\1\2'),              # what nbdev_clean's clean_ids removes, too
    (re.compile(r'\b0x[0-9a-fA-F]{6,}\b'), '0x…'),                             # other addresses
    (re.compile(r'/tmp/[\w.\-]+(/[\w.\-]+)*'), '/tmp/…'),                      # temporary files and directories
    (re.compile(r'ipykernel_\d+/\d+'), 'ipykernel_…'),                          # a kernel's cell files
    (re.compile(r'\b\d{4}-\d\d-\d\d([T ]\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:?\d\d|Z)?)?\b'), '<date>'),   # today, or a date from it
    (re.compile(r'\b(elapsed|took|duration|latency)([=:] ?)\d+(\.\d+)?'), r'\1\2…'),       # CallResult(..., elapsed=0.301)
    (re.compile(r'\b\d+(\.\d+)? ?(ns|µs|us|ms)\b'), '<duration>'),            # timings
    (re.compile(r'\bpid \d+'), 'pid …'),                                      # process ids
    (re.compile(r'\b[0-9a-f]{32}\b'), '<hex id>'),                            # uuid4().hex session ids
    (re.compile(r'''(\bsession[= ]?["']?)[A-Za-z0-9_-]{16,}'''), r'\1<token>'),   # a session handle, whatever its letters
    (re.compile(r'(\buid )\d{5,}'), r'\1<uid>'),                            # a session's own uid (one per live session)
    (re.compile(r'(?<![\w-])(?=[\w-]*\d)(?=[\w-]*[a-z])(?=[\w-]*[A-Z])[A-Za-z0-9_-]{20,24}(?![\w-])'), '<token>'),   # random url-safe tokens
]

def _prefixes():
    "Paths that differ between machines and checkouts, longest first, each with the placeholder shown instead"
    import site
    pairs = {str(ROOT): '<checkout>', sys.prefix: '<venv>', sys.base_prefix: '<python>', str(Path.home()): '~'}
    pairs.update({path: '<site-packages>' for path in site.getsitepackages()})
    return sorted(pairs.items(), key=lambda pair: -len(pair[0]))

def mask(text: str) -> str:
    "`text` with what varies between runs and machines replaced by a placeholder"
    for prefix, placeholder in _prefixes(): text = text.replace(prefix, placeholder)
    for pattern, replacement in _MASKS: text = pattern.sub(replacement, text)
    return text

def _masked_output(output: dict) -> dict:
    output = copy.deepcopy(output)
    output.pop('transient', None)
    if 'text' in output: output['text'] = mask(''.join(output['text'])).splitlines(keepends=True)
    for kind, value in output.get('data', {}).items():
        if kind.startswith('text/') or kind == 'application/javascript':
            output['data'][kind] = mask(''.join(value)).splitlines(keepends=True)
    return output

def clean(nb: dict) -> dict:
    "`nb` as `nbdev_clean` leaves it, with this project's settings.ini (nbdev's own code does it)"
    from nbdev.clean import clean_nb
    from nbdev.config import get_config
    config = get_config(path=ROOT)
    clean_nb(nb, config.clear_all, config.get('allowed_metadata_keys').split(), config.get('allowed_cell_metadata_keys').split(),
             config.clean_ids)
    return nb

def execute(path: Path) -> dict:
    "The notebook at `path`, run top to bottom in an ipykernel from its own directory, with its outputs masked"
    import nbformat
    from nbclient import NotebookClient
    nb = json.loads(path.read_text(encoding='utf-8'))
    ensure_ids(nb['cells'])
    runnable = nbformat.reads(json.dumps(nb), as_version=4)   # sources joined into strings, as nbclient wants them
    NotebookClient(runnable, timeout=TIMEOUT, kernel_name='python3', record_timing=False, allow_errors=False,
                   resources={'metadata': {'path': str(path.parent.resolve())}}).execute()
    for cell, ran in zip(nb['cells'], runnable.cells):
        if cell['cell_type'] == 'code': cell['outputs'] = [_masked_output(_as_lists(output)) for output in _joined_streams(ran.outputs)]
    return nb

def _joined_streams(outputs) -> list:
    "`outputs` with each run of stream outputs to the same stream joined into one, as Jupyter shows them: how the kernel's\n    messages happened to be cut depends on timing"
    joined = []
    for output in outputs:
        previous = joined[-1] if joined else None
        if (output.get('output_type') == 'stream' and previous is not None and previous.get('output_type') == 'stream'
                and previous.get('name') == output.get('name')):
            joined[-1] = dict(previous, text=''.join(previous['text']) + ''.join(output['text']))
        else: joined.append(output)
    return joined

def _as_lists(output) -> dict:
    "An nbclient output as a notebook file holds it: multi-line text as a list of lines"
    output = json.loads(json.dumps(output))
    if isinstance(output.get('text'), str): output['text'] = output['text'].splitlines(keepends=True)
    for kind, value in output.get('data', {}).items():
        if isinstance(value, str) and (kind.startswith('text/') or kind.endswith('svg+xml')): output['data'][kind] = value.splitlines(keepends=True)
    return output

def is_clean(path: Path) -> bool:
    "Would nbdev_clean leave the notebook at `path` as it is?"
    text = path.read_text(encoding='utf-8')
    return notebook_text(clean(json.loads(text))) == text

def stale_cells(stored: dict, fresh: dict) -> list:
    "(index, source's first line) of each code cell whose stored outputs differ from the fresh run's"
    comparable = lambda cell: json.dumps([_comparable(output) for output in _joined_streams(cell.get('outputs', []))], sort_keys=True)
    return [(index, ''.join(old['source']).split('\n')[0]) for index, (old, new) in enumerate(zip(stored['cells'], fresh['cells']))
            if old['cell_type'] == 'code' and comparable(old) != comparable(new)]

def _comparable(output: dict) -> dict:
    "An output as the freshness check compares it: images by kind only (their bytes vary with library versions)"
    output = _masked_output(output)
    output.pop('execution_count', None)
    for kind in output.get('data', {}):
        if kind.startswith('image/') and not kind.endswith('svg+xml'): output['data'][kind] = '<image>'
    output.get('metadata', {}).pop('image/png', None)
    return output

def notebooks(paths: list) -> list:
    if paths: return [Path(path).resolve() for path in paths]
    return sorted(path for path in (ROOT/'nbs').rglob('*.ipynb') if not any(part.startswith(('.', '_')) for part in path.relative_to(ROOT/'nbs').parts))

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('notebooks', nargs='*', help='notebooks to run (default: every notebook under nbs/)')
    parser.add_argument('--check', action='store_true', help='write nothing; exit 1 if any stored output is stale or a notebook is not clean')
    args = parser.parse_args(argv)
    problems = 0
    for path in notebooks(args.notebooks):
        name = path.relative_to(ROOT) if ROOT in path.parents else path
        stored = json.loads(path.read_text(encoding='utf-8'))
        fresh = execute(path)
        if args.check:
            for index, first_line in stale_cells(stored, fresh):
                print(f'{name}: cell {index} ({first_line!r}) shows something else now', file=sys.stderr); problems += 1
            if not is_clean(path): print(f'{name}: nbdev_clean would change it', file=sys.stderr); problems += 1
        else:
            text = notebook_text(clean(fresh))
            if text != path.read_text(encoding='utf-8'): path.write_text(text, encoding='utf-8')
            print(f'{name}: {sum(len(cell.get("outputs", [])) for cell in fresh["cells"])} outputs stored')
    if problems: print('run: python tools/refresh_outputs.py (see CONTRIBUTING.md)', file=sys.stderr)
    return 1 if problems else 0

if __name__ == '__main__': sys.exit(main())
