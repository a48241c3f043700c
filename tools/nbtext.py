"""Edit notebooks as plain text: `python tools/nbtext.py to-text nbs/00_schema.ipynb` writes
`nbs/00_schema.pct.py` (cells separated by `# %%` and `# %% [markdown]` lines); `to-nb` turns it back.
The notebook stays the source of truth: convert back, delete the text copy, then run nbdev_export.

`to-nb` keeps what the text does not show: a cell whose source is unchanged keeps its id, metadata and outputs;
an edited cell keeps its id and metadata but loses its now stale outputs (`python tools/refresh_outputs.py NB`
brings them back); a new cell gets an id made from its content. The notebook is written as `nbdev_clean` writes it."""
import difflib, hashlib, json, sys
from pathlib import Path

MARK_CODE, MARK_MD = '# %%', '# %% [markdown]'

def cell_id(cell: dict, taken: set) -> str:
    "An id for a new `cell` made from its type and source (so that two people adding the same cell agree), not in `taken`"
    text = cell['cell_type'] + '\n' + ''.join(cell['source'])
    for n in range(10000):
        candidate = hashlib.sha1(f'{text}\n{n}'.encode()).hexdigest()[:8]
        if candidate not in taken: return candidate
    raise ValueError('no free cell id')

def ensure_ids(cells: list) -> list:
    "`cells`, each with an id (the ones they have are kept)"
    taken = {cell['id'] for cell in cells if cell.get('id')}
    for cell in cells:
        if not cell.get('id'):
            cell['id'] = cell_id(cell, taken); taken.add(cell['id'])
    return cells

def notebook_text(nb: dict) -> str:
    "A notebook written as `nbdev_clean` (execnb's `nb2str`) writes it: sorted keys, one-space indent, a final newline"
    return json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + '\n'

def nb_to_text(nb_path: Path) -> str:
    nb = json.loads(nb_path.read_text(encoding='utf-8'))
    parts = []
    for cell in nb['cells']:
        src = ''.join(cell['source'])
        if cell['cell_type'] == 'markdown':
            parts.append(MARK_MD + '\n' + '\n'.join('# ' + l if l else '#' for l in src.split('\n')))
        else: parts.append(MARK_CODE + '\n' + src)
    return '\n\n'.join(parts) + '\n'

def text_to_cells(text: str) -> list:
    cells, kind, lines = [], None, []
    def flush():
        if kind is None: return
        while lines and not lines[-1].strip(): lines.pop()
        body = [l[2:] if l.startswith('# ') else l[1:] if l.startswith('#') else l for l in lines] if kind == 'markdown' else lines
        src = '\n'.join(body)
        cell = {'cell_type': kind, 'metadata': {}, 'source': src.splitlines(keepends=True)}
        if kind == 'code': cell.update(execution_count=None, outputs=[])
        cells.append(cell)
    for line in text.split('\n'):
        if line.rstrip() == MARK_MD or line.rstrip() == MARK_CODE:
            flush(); kind, lines = ('markdown' if line.rstrip() == MARK_MD else 'code'), []
        elif kind is not None: lines.append(line)
    flush()
    return cells

def merge_cells(old: list, new: list) -> list:
    "`new` cells, taking ids, metadata and (for unchanged sources) outputs from the matching `old` cells"
    key = lambda cell: (cell['cell_type'], ''.join(cell['source']))
    matcher = difflib.SequenceMatcher(None, [key(c) for c in old], [key(c) for c in new], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == 'equal':
            for offset in range(i2 - i1): new[j1 + offset] = old[i1 + offset]
        elif tag == 'replace':   # edited in place: the same cell, pairwise while the kinds agree
            for before, after in zip(old[i1:i2], new[j1:j2]):
                if before['cell_type'] != after['cell_type']: continue
                if before.get('id'): after['id'] = before['id']
                after['metadata'] = before.get('metadata', {})
    return ensure_ids(new)

def text_to_nb(text: str, old: dict | None = None) -> dict:
    "The notebook for `text`; `old` (the notebook it was made from) lends its ids, metadata and unchanged outputs"
    if old is None:
        return {'cells': ensure_ids(text_to_cells(text)), 'nbformat': 4, 'nbformat_minor': 5,
                'metadata': {'kernelspec': {'display_name': 'python3', 'language': 'python', 'name': 'python3'}}}
    return dict(old, cells=merge_cells(old['cells'], text_to_cells(text)), nbformat_minor=max(old.get('nbformat_minor', 5), 5))

if __name__ == '__main__':
    cmd, path = sys.argv[1], Path(sys.argv[2])
    if cmd == 'to-text':
        out = path.with_suffix('.pct.py'); out.write_text(nb_to_text(path), encoding='utf-8')
    elif cmd == 'to-nb':
        out = path.with_name(path.name.replace('.pct.py', '.ipynb'))
        old = json.loads(out.read_text(encoding='utf-8')) if out.exists() else None
        out.write_text(notebook_text(text_to_nb(path.read_text(encoding='utf-8'), old)), encoding='utf-8')
    else: sys.exit(f'unknown command {cmd!r}: use to-text or to-nb')
    print(out)
