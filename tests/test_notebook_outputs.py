"""Every notebook runs top to bottom in a real Jupyter kernel (nbclient + ipykernel, from its own directory, every
cell included as Run All runs them), and the outputs stored in it are the ones its cells show now (after masking
what varies between runs: tools/refresh_outputs.py). Every notebook is in the form `nbdev_clean` leaves unchanged,
with cell ids. When one of these fails: `python tools/refresh_outputs.py NOTEBOOK` (CONTRIBUTING.md)."""
import json, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT/'tools'))
import refresh_outputs
from nbtext import nb_to_text, notebook_text, text_to_nb

NOTEBOOKS = refresh_outputs.notebooks([])
IDS = [str(path.relative_to(ROOT/'nbs')) for path in NOTEBOOKS]


def test_notebooks_found():
    assert len(NOTEBOOKS) >= 10 and ROOT/'nbs'/'index.ipynb' in NOTEBOOKS


@pytest.mark.parametrize('path', NOTEBOOKS, ids=IDS)
def test_nbdev_clean_changes_nothing(path):
    assert refresh_outputs.is_clean(path), f'nbdev_clean would rewrite {path.name}: python tools/refresh_outputs.py {path.relative_to(ROOT)}'
    cells = json.loads(path.read_text(encoding='utf-8'))['cells']
    assert all(cell.get('id') for cell in cells), f'{path.name} has cells without ids'


@pytest.mark.parametrize('path', NOTEBOOKS, ids=IDS)
def test_stored_outputs_are_fresh(path):
    stored = json.loads(path.read_text(encoding='utf-8'))
    fresh = refresh_outputs.execute(path)   # raises if a cell fails, as Jupyter's Run All would stop there
    assert [cell.get('id') for cell in fresh['cells']] == [cell.get('id') for cell in stored['cells']]
    stale = refresh_outputs.stale_cells(stored, fresh)
    assert not stale, f'{path.name}: stale outputs in cells {stale}: python tools/refresh_outputs.py {path.relative_to(ROOT)}'


def test_masking_hides_what_varies_and_keeps_the_rest():
    shown = f"CallResult('nap', ok=True, value='a', elapsed=0.301) <Foo at 0x7f3a2b1c> {ROOT}/nbs/x.py /tmp/tmpab_c1/data.csv 2026-11-27T03:50:00Z until 2026-12-06."
    assert refresh_outputs.mask(shown) == "CallResult('nap', ok=True, value='a', elapsed=…) <Foo> <checkout>/nbs/x.py /tmp/… <date> until <date>."
    assert refresh_outputs.mask("{'days': 3, 'city': 'Oslo'}") == "{'days': 3, 'city': 'Oslo'}"
    # a session handle with no digit in it (random letters) and a session's own uid vary too
    assert refresh_outputs.mask("No sandbox session 'abcdefghijklmnopqrstuv' (pass session=\"Abc_defghijklmnopqrs\")") == \
        "No sandbox session '<token>' (pass session=\"<token>\")"
    assert refresh_outputs.mask('runs as host uid 2147352577, never root') == 'runs as host uid <uid>, never root'

def test_stream_outputs_are_compared_as_jupyter_shows_them():
    "How the kernel cut a cell's printing into messages depends on timing: runs of one stream count as one output."
    cut = [{'output_type': 'stream', 'name': 'stdout', 'text': ['a\n']}, {'output_type': 'stream', 'name': 'stdout', 'text': ['b\n']}]
    whole = [{'output_type': 'stream', 'name': 'stdout', 'text': ['a\n', 'b\n']}]
    cell = lambda outputs: {'cell_type': 'code', 'source': ['print()'], 'outputs': outputs}
    assert refresh_outputs.stale_cells({'cells': [cell(cut)]}, {'cells': [cell(whole)]}) == []
    assert refresh_outputs.stale_cells({'cells': [cell(cut)]}, {'cells': [cell(whole[:0])]}) == [(0, 'print()')]


def test_a_changed_output_is_stale():
    stored = {'cells': [{'cell_type': 'code', 'source': ['1+1'], 'outputs': [{'output_type': 'execute_result', 'data': {'text/plain': ['2']}, 'metadata': {}, 'execution_count': None}]}]}
    fresh = json.loads(json.dumps(stored))
    assert refresh_outputs.stale_cells(stored, fresh) == []
    fresh['cells'][0]['outputs'][0]['data']['text/plain'] = ['3']
    assert refresh_outputs.stale_cells(stored, fresh) == [(0, '1+1')]
    fresh['cells'][0]['outputs'] = []
    assert refresh_outputs.stale_cells(stored, fresh) == [(0, '1+1')]


def test_nbtext_round_trip_keeps_ids_outputs_and_metadata(tmp_path):
    path = ROOT/'nbs'/'01_dispatch.ipynb'
    original = json.loads(path.read_text(encoding='utf-8'))
    assert any(cell.get('outputs') for cell in original['cells'])
    assert notebook_text(text_to_nb(nb_to_text(path), original)) == path.read_text(encoding='utf-8')
    text = nb_to_text(path)
    index = next(i for i, cell in enumerate(original['cells']) if cell.get('outputs'))
    first_line = original['cells'][index]['source'][0]
    edited = text_to_nb(text.replace(first_line, first_line.rstrip('\n') + '  # edited\n', 1), json.loads(path.read_text(encoding='utf-8')))
    cell = edited['cells'][index]
    assert cell['id'] == original['cells'][index]['id'] and cell['outputs'] == []   # same cell, stale outputs dropped
    assert [c['id'] for c in edited['cells']] == [c['id'] for c in original['cells']]
    added = text_to_nb('# %%\nnew_cell = 1\n\n' + text, original)
    assert added['cells'][0]['id'] not in {c['id'] for c in original['cells']} and added['cells'][1:] == original['cells']
