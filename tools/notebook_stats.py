"""How the notebooks read: per notebook, the code cells, how many show an output, the longest cells, and the exported
cells over the length a reader takes in at once.

    python tools/notebook_stats.py                 # every notebook under nbs/, worst share first, then the totals
    python tools/notebook_stats.py nbs/00_schema.ipynb
    python tools/notebook_stats.py --list          # also list each exported cell longer than --long (25) lines

A cell "shows an output" when its stored outputs are not empty (hidden cells count as code cells without one: a reader
of the rendered page does not see them either). Exit status 0; the goal the notebooks issue sets (a third of code cells
with an output, no exported cell over ~25 lines) is printed beside the totals, not enforced here."""
import argparse, json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cell_lines(cell) -> list:
    source = cell.get('source', '')
    return (''.join(source) if isinstance(source, list) else source).splitlines()


def is_exported(cell) -> bool:
    return any(line.strip().startswith(('#| export', '#|export')) for line in cell_lines(cell)[:3])


def notebook_stats(path:Path, long:int) -> dict:
    cells = [c for c in json.loads(path.read_text(encoding='utf-8'))['cells'] if c['cell_type'] == 'code']
    lengths = [len(cell_lines(c)) for c in cells]
    return {'notebook': str(path.relative_to(ROOT / 'nbs')) if path.is_relative_to(ROOT / 'nbs') else str(path),
            'code': len(cells), 'shown': sum(bool(c.get('outputs')) for c in cells),
            'mean lines': sum(lengths) / len(cells) if cells else 0.0, 'longest': max(lengths, default=0),
            'long exported': [(i, n) for i, (c, n) in enumerate(zip(cells, lengths)) if is_exported(c) and n > long]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('notebooks', nargs='*', type=Path)
    parser.add_argument('--long', type=int, default=25, help='an exported cell longer than this many lines counts as long')
    parser.add_argument('--list', action='store_true', help='list each long exported cell')
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.notebooks] or sorted(p for p in (ROOT / 'nbs').rglob('*.ipynb') if '.ipynb_checkpoints' not in p.parts)
    rows = sorted((notebook_stats(p, args.long) for p in paths), key=lambda r: (r['shown'] / r['code'] if r['code'] else 1, r['notebook']))
    width = max(len(r['notebook']) for r in rows) + 2
    print('notebook'.ljust(width) + f"{'code':>6}{'shown':>7}{'share':>7}{'mean':>6}{'max':>5}{'>' + str(args.long):>6}")
    for r in rows:
        share = r['shown'] / r['code'] if r['code'] else 0
        print(r['notebook'].ljust(width) + f"{r['code']:>6}{r['shown']:>7}{share:>7.0%}{r['mean lines']:>6.1f}{r['longest']:>5}{len(r['long exported']):>6}")
    code, shown = sum(r['code'] for r in rows), sum(r['shown'] for r in rows)
    long_cells = [(r['notebook'], i, n) for r in rows for i, n in r['long exported']]
    print(f"\n{shown} of {code} code cells show an output ({shown / code:.0%}; goal: at least 33%); "
          f"{len(long_cells)} exported cells over {args.long} lines (goal: none)")
    if args.list:
        for notebook, i, n in long_cells: print(f'  {notebook}: code cell {i} has {n} lines')
    return 0


if __name__ == '__main__': sys.exit(main())
