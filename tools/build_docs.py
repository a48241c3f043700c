#!/usr/bin/env python3
"""Build the documentation site offline: notebooks -> Markdown -> static HTML in `_docs/`.

`nbdev_docs` (quarto) stays the publishing route wherever quarto is installed. This builder is for
machines without quarto, and needs no network:

1. every notebook under `nbs/` (the same set `nbdev_test` sees) is executed with execnb's `CaptureShell`
   in its own directory, so each page shows what its code shows on the machine that builds the site
   (the outputs stored in the notebooks, kept fresh by tools/refresh_outputs.py, are replaced);
2. nbdev's own processors then shape it the way `nbdev_docs` would: a `show_doc` cell is added for every
   exported name that lacks one, `#| hide` and `#| export` cells are dropped, the first `# Title` and
   `> description` become the page's title, and backticked names link to their API pages;
3. cells become Markdown (code fenced, `show_doc` and other Markdown output as is, images as files);
4. mkdocs with the mkdocs-material theme (settings in `tools/mkdocs.yml`) builds the site.

Pages keep nbdev's names (`nbs/00_schema.ipynb` -> `schema.html`), `index.ipynb` is the home page, top
level notebooks form the API reference, a package of notebooks (a numbered folder, `nbs/03_parse/` -> `parse/`) is
a group inside it, and each other sub-folder (`nbs/tutorials/`) is a section of its own.

    python tools/build_docs.py                  # build into _docs/ (doc_path in settings.ini)
    python tools/build_docs.py --dest /tmp/site --strict
"""
from __future__ import annotations

import argparse, base64, logging, multiprocessing, os, re, shutil, sys, tempfile, time, traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from html.parser import HTMLParser
from urllib.parse import unquote, urljoin, urlsplit

from mkdocs.exceptions import Abort

TOOLS_DIR = Path(__file__).resolve().parent
BASE_CONFIG = TOOLS_DIR/'mkdocs.yml'
IMAGE_SUFFIXES = {'.png', '.jpg', '.jpeg', '.gif', '.svg', '.webp'}
SECTION_TITLES = {'': 'API reference', 'tutorials': 'Tutorials'}
SECTION_ORDER = ['tutorials', 'guides', '']  # a reader's order: learn, then apply, then look up; other folders follow

# Kept in the builder rather than as a separate file: it only styles what this builder emits.
EXTRA_CSS = """\
.nb-description { font-size: 1.15em; color: var(--md-default-fg-color--light); margin-top: -.6em; }
/* cell outputs (fenced as `text`) sit under their code, set apart from it */
.md-typeset .language-text.highlight pre > code { background: transparent;
  border-left: .2rem solid var(--md-default-fg-color--lightest); }
.md-typeset .nb-stderr .language-text.highlight pre > code { border-left-color: #e0a000; }
/* long lines wrap instead of hiding past the right edge on a laptop screen */
.md-typeset pre > code { white-space: pre-wrap; overflow-wrap: anywhere; }
.md-typeset blockquote { overflow-wrap: anywhere; }
.nb-source { font-size: .8em; margin-top: -.4em; }
"""


class DocsBuildError(Exception):
    "The docs build stopped; the message names the notebook and what to fix."


@dataclass(frozen=True)
class Page:
    "One notebook's page: where it comes from, where its Markdown goes, and its title."
    notebook: str   # path relative to nbs/, posix
    markdown: str   # path relative to the docs root, posix
    title: str = ''
    seconds: float = 0.0  # time to execute and write it

    @property
    def section(self) -> str: return self.markdown.split('/')[0] if '/' in self.markdown else ''


@dataclass(frozen=True)
class SiteSettings:
    "What every page's worker needs to know about the whole site."
    nbs_path: Path
    docs_dir: Path
    page_names: dict       # notebook path relative to nbs/ -> page path relative to the docs root
    source_url: str = ''   # `{git_url}/blob/{branch}/`: where links to repository files outside nbs/ go
    skip_flags: tuple = () # cells with these directives are not run (settings.ini's tst_flags, as nbdev_test)
    execute: bool = False  # run every cell again (True) or keep the stored outputs and run only what show_doc needs


def page_path(notebook_relpath: str) -> str:
    "Markdown path of a notebook's page: nbdev's naming (`00_schema.ipynb` -> `schema`, `03_parse/01_core.ipynb` -> `parse/core`), lower-cased."
    parts = [re.sub(r'^\d+[a-zA-Z0-9]*_', '', part) for part in notebook_relpath.lower().split('/')]
    name = parts[-1]
    parts[-1] = name[:-len('.ipynb')] + '.md' if name.endswith('.ipynb') else name + '.md'
    return '/'.join(parts)


def nbdev_page_link(notebook_relpath: str) -> str:
    "The page nbdev's symbol links name for a notebook (`04_interp/05_host.ipynb` -> `04_interp/host.md`)."
    folder, _, name = notebook_relpath.rpartition('/')
    name = re.sub(r'^\d+[a-zA-Z0-9]*_', '', name).removesuffix('.ipynb') + '.md'
    return f'{folder}/{name}' if folder else name


def package_folder(notebook_relpath: str) -> str:
    "The numbered folder a notebook of a package of notebooks sits in (`03_parse`), or '' for any other notebook."
    folder = notebook_relpath.split('/')[0] if '/' in notebook_relpath else ''
    return folder if re.match(r'\d+', folder) else ''


def find_notebooks(nbs_path: Path) -> list[str]:
    "Notebooks under `nbs_path`, as `nbdev_test` finds them (names starting with `_` or `.` skipped), sorted."
    from nbdev.doclinks import nbglob
    found = [Path(p).relative_to(nbs_path).as_posix() for p in nbglob(nbs_path)]
    return sorted(found, key=lambda p: (p.count('/'), p))


# ---------------------------------------------------------------- executing and processing one notebook

def _cell_options(cell) -> dict:
    "Directives of `cell`: nbdev's parsed ones plus quarto `#| key: value` lines still left in the source."
    options = {k.rstrip(':'): ' '.join(v) for k, v in (getattr(cell, 'directives_', None) or {}).items()}
    for line in (cell.get('source') or '').splitlines():
        if not line.startswith('#|'): break
        key, _, value = line[2:].partition(':')
        options[key.strip()] = value.strip()
    return options


def _needed_by_show_doc(cell) -> bool:
    """Does `show_doc` need this cell run when the stored outputs are kept: a cell of imports only, or a `show_doc`
    call? Exported cells are not run again: their names come from the exported module (see `_make_executor`)."""
    import ast, warnings
    from nbdev.processors import _do_eval
    with warnings.catch_warnings():   # nbdev warns of a cell that mixes imports with code: those are not run here
        warnings.simplefilter('ignore')
        if not _do_eval(cell): return False
    if cell.directives_.keys() & {'export', 'exports', 'exporti'}: return False
    return all(isinstance(tree, (ast.Import, ast.ImportFrom)) for tree in cell.parsed_()) or 'show_doc(' in cell.source


def _module_names_cell(nb) -> str:
    "Code that puts every name of the module a notebook exports (`#| default_exp`) into the shell's namespace."
    from nbdev.config import get_config
    for cell in nb.cells:
        exp = (getattr(cell, 'directives_', None) or {}).get('default_exp')
        if exp:
            module = f"{get_config().lib_path.name}.{exp[0]}"
            return (f"import importlib as _importlib, types as _types\n"
                    f"_module_attrs = set(vars(_types.ModuleType('m'))) | {{'__builtins__', '__file__', '__cached__', '__path__', '__all__'}}\n"
                    f"globals().update({{k: v for k, v in vars(_importlib.import_module({module!r})).items() "
                    f"if k not in _module_attrs}})")
    return ''


def _make_executor(notebook_path: Path, skip_flags: set, execute: bool = False):
    """A processor that runs code cells in one `CaptureShell`, skipping cells `nbdev_test` skips: every cell when
    `execute`, else only the cells `show_doc` needs (exports and imports, as `nbdev_docs`), the other cells keeping
    the outputs stored in the notebook (tests/test_notebook_outputs.py keeps those fresh)."""
    from execnb.shell import CaptureShell
    from fastcore.basics import str2bool
    from nbdev.process import Processor

    class execute_cells(Processor):
        def begin(self):
            frontmatter = getattr(self.nb, 'frontmatter_', {}) or {}
            self.skip_all = not execute or str2bool(frontmatter.get('skip_exec', False))
            self.shell = CaptureShell(notebook_path)
            self.shell.run_cell('from nbdev.showdoc import show_doc')
            self.module_names = _module_names_cell(self.nb) if self.skip_all else ''
            if self.module_names: self.shell.run_cell(self.module_names)

        def cell(self, cell):
            if cell.cell_type != 'code' or not cell.source: return
            if self.skip_all and not (self.module_names and _needed_by_show_doc(cell)): return  # stored outputs kept
            options = _cell_options(cell)
            if options.get('eval', '').lower() == 'false' or skip_flags & options.keys(): return
            if 'nbdev_export' + '(' in cell.source: return
            self.shell.cell(cell)
            if self.shell.exc:
                first_line = cell.source.strip().splitlines()[0][:80]
                raise DocsBuildError(f'{notebook_path}: the cell starting {first_line!r} raised; make the notebook '
                                     f'pass `nbdev_test --path {notebook_path}` first.\n'
                                     + ''.join(traceback.format_exception(self.shell.exc)[-6:]))
    return execute_cells


def _is_private(symbol: str) -> bool:
    "Is a dotted name private: does any part start with one underscore (`_jsonable`, `Chat._step`; not `__call__`)?"
    return any(part.startswith('_') and not part.startswith('__') for part in symbol.split('.'))


def _show_docs_in_order():
    """nbdev's `add_show_docs`, but the `show_doc` cells of one exported cell come in definition order
    (nbdev inserts each right after the cell, which puts the last definition first)."""
    from execnb.nbio import mk_cell
    from nbdev.processors import _def_names, _get_nm, _show_docs, _want_doc, add_show_docs, cell_lang
    from nbdev.process import NbCell

    class add_show_docs_in_order(add_show_docs):
        def begin(self):
            cells = self.nb.cells
            exports = [cell for cell in cells if _want_doc(cell)]
            shown_docs = {_get_nm(tree) for tree in _show_docs([t for cell in cells for t in (NbCell.parsed_(cell) or [])])}
            for cell in reversed(exports):
                if cell_lang(cell) != 'python': raise ValueError(f"{cell.metadata.language} can't export:\n{cell.source}")
                for name in reversed(_def_names(cell, shown_docs)):  # each goes right after the cell: last one first
                    new_cell = mk_cell(f'show_doc({name})')
                    new_cell.has_sd = True
                    cells.insert(cell.idx_ + 1, new_cell)
            self.nb.has_docs_ = shown_docs or exports
    return add_show_docs_in_order


def _add_public_links():
    """nbdev's `add_links`, except that private names stay plain code: they have no `show_doc` of their own,
    and nbdev's lookup sends a name defined in several modules (`_jsonable`) to whichever it met last."""
    from nbdev.doclinks import NbdevLookup

    from nbdev.config import get_config
    lib = get_config().lib_path
    # a module's own name (`parse`, `interp`) names the module in prose, not a function of that name in another one
    modules = {p.stem for p in lib.iterdir() if (p.suffix == '.py' or (p/'__init__.py').exists())}

    class PublicLookup(NbdevLookup):
        def doc(self, sym): return None if _is_private(sym) or sym in modules else super().doc(sym)

    def add_public_links(cell):
        lookup = PublicLookup()
        if cell.cell_type == 'markdown': cell.source = lookup.linkify(cell.source)
        for output in cell.get('outputs', []):
            if hasattr(output, 'data') and hasattr(output['data'], 'text/markdown'):
                output.data['text/markdown'] = [lookup.link_line(line) for line in output.data['text/markdown']]
    return add_public_links


def process_notebook(notebook_path: Path, skip_flags: set, execute: bool = False):
    "Read, execute (see `_make_executor`) and process a notebook with nbdev's processors; returns the processed notebook."
    from execnb.nbio import read_nb
    from nbdev.frontmatter import FrontmatterProc
    from nbdev.process import NBProcessor
    from nbdev.processors import (clean_magics, clean_show_doc, filter_stream_, hide_, hide_line, mv_exports,
                                  populate_language, rm_export, rm_header_dash, strip_ansi, strip_hidden_metadata)
    # nbdev_docs' processor list, with these changes: with `execute` every cell is run again (by default only those
    # show_doc needs, as nbdev_docs), before hide_line/rm_export touch the code; the quarto-only ones (warning comment, code-fold) are left out;
    # show_doc cells come in definition order, and private names are not linked.
    procs = [FrontmatterProc, populate_language, _show_docs_in_order(), _make_executor(notebook_path, skip_flags, execute),
             strip_ansi, hide_line, filter_stream_, rm_header_dash, clean_show_doc, rm_export, clean_magics,
             hide_, _add_public_links(), mv_exports, strip_hidden_metadata]
    processor = NBProcessor(nb=read_nb(notebook_path), procs=procs)
    processor.process()
    return processor.nb


# ---------------------------------------------------------------- cells to Markdown

def fenced(text: str, language: str = '') -> str:
    "`text` in a backtick fence longer than any backtick run inside it."
    longest = run = 0
    for char in text:
        run = run + 1 if char == '`' else 0
        longest = max(longest, run)
    fence = '`' * max(3, longest + 1)
    return f'{fence}{language}\n{text.rstrip()}\n{fence}'


def _joined(value) -> str: return ''.join(value) if isinstance(value, list) else str(value)


class MarkdownWriter:
    "Turns one processed notebook into the Markdown of its page, writing images beside it."
    def __init__(self, page: Page, site: SiteSettings):
        self.page, self.site, self.docs_dir = page, site, site.docs_dir
        depth = page.markdown.count('/')
        self.to_root = '../' * depth
        self.asset_dir = Path(page.markdown).with_suffix('').name + '_files'
        self.n_assets = 0

    # -- links
    def links(self, markdown: str) -> str:
        """Point relative links at what the site has: a notebook's page (`00_core.ipynb#greet` or `core.html#greet`
        -> `core.md#greet`), a file under nbs/ copied beside the pages, or a repository file outside nbs/ on the
        git host."""
        return re.sub(r'\]\(([^()\s:#]+)(#[^()\s]*)?\)', self._relative_link, markdown)

    def _relative_link(self, match) -> str:
        target, anchor = match.group(1), match.group(2) or ''
        if target.endswith('.html'):  # the published name of a page (quarto's `schema.html`)
            page = os.path.normpath(f'{Path(self.page.markdown).parent}/{target[:-len(".html")]}.md').replace(os.sep, '/')
            if page in self.site.page_names.values(): return f']({self.to_root}{page}{anchor})'
        nbs_path = self.site.nbs_path
        resolved = Path(os.path.normpath(nbs_path/Path(self.page.notebook).parent/target))
        if resolved.is_relative_to(nbs_path):
            relative = resolved.relative_to(nbs_path).as_posix()
            if relative in self.site.page_names:
                return f']({self.to_root}{self.site.page_names[relative]}{anchor})'
            if resolved.is_file() and resolved.suffix != '.ipynb':
                (self.docs_dir/relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(resolved, self.docs_dir/relative)
        elif self.site.source_url and resolved.exists() and resolved.is_relative_to(nbs_path.parent):
            return f']({self.site.source_url}{resolved.relative_to(nbs_path.parent).as_posix()}{anchor})'
        return match.group(0)

    # -- assets
    def _asset(self, data: bytes, suffix: str) -> str:
        self.n_assets += 1
        name = f'{self.asset_dir}/output_{self.n_assets}{suffix}'
        target = self.docs_dir/Path(self.page.markdown).parent/name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return name

    # -- cells
    def markdown_cell(self, cell) -> str:
        source = self.links(cell.source)
        for name, bundle in (cell.get('attachments') or {}).items():
            for mime, data in bundle.items():
                if mime.startswith('image/'):
                    suffix = '.' + mime.split('/')[1].split('+')[0]
                    content = data.encode() if mime == 'image/svg+xml' else base64.b64decode(_joined(data))
                    source = source.replace(f'attachment:{name}', self._asset(content, suffix))
        return source

    def output(self, output) -> str:
        kind = output.get('output_type')
        if kind == 'stream':
            text = _joined(output.get('text', ''))
            if not text.strip(): return ''
            return fenced(text, 'text') if output.get('name') != 'stderr' else \
                f'<div class="nb-stderr" markdown="1">\n\n{fenced(text, "text")}\n\n</div>'
        if kind == 'error':  # execution already stops on errors; kept for notebooks run elsewhere
            raise DocsBuildError(f'{self.page.notebook}: an output is an error ({output.get("ename")})')
        data = output.get('data', {})
        if 'text/markdown' in data: return self.links(_joined(data['text/markdown']))
        for mime, suffix in (('image/png', '.png'), ('image/jpeg', '.jpg')):
            if mime in data:
                name = self._asset(base64.b64decode(_joined(data[mime])), suffix)
                width = (output.get('metadata', {}).get(mime) or {}).get('width')
                return f'![output]({name})' + (f'{{ width="{width}" }}' if width else '')
        if 'image/svg+xml' in data: return f'![output]({self._asset(_joined(data["image/svg+xml"]).encode(), ".svg")})'
        if 'text/html' in data: return f'<div class="nb-output">\n{_joined(data["text/html"]).strip()}\n</div>'
        if 'text/plain' in data: return fenced(_joined(data['text/plain']), 'text')
        return ''

    def code_cell(self, cell) -> str:
        options = _cell_options(cell)
        if options.get('include', '').lower() == 'false': return ''
        code = '\n'.join(l for l in cell.source.splitlines() if not l.startswith('#|')).strip('\n')
        is_show_doc = code.startswith('show_doc')
        parts = []
        if code.strip() and options.get('echo', '').lower() != 'false':
            block = fenced(code, 'python')
            if 'exports' in options:
                block = '??? note "Exported source"\n\n' + '\n'.join('    ' + l if l else l for l in block.splitlines())
            parts.append(block)
        if options.get('output', '').lower() != 'false':
            outputs = [o for o in map(self.output, cell.get('outputs', [])) if o.strip()]
            parts += [_show_doc_heading(o) for o in outputs] if is_show_doc else outputs
        return '\n\n'.join(parts)

    def page_markdown(self, nb) -> tuple[str, str]:
        "(title, Markdown) of the processed notebook `nb`."
        frontmatter = getattr(nb, 'frontmatter_', {}) or {}
        title = str(frontmatter.get('title') or Path(self.page.markdown).stem.replace('_', ' '))
        description = str(frontmatter.get('description') or '')
        plain_title, plain_description = title.replace('`', ''), description.replace('`', '')  # nav, <title>, <meta>
        head = ['---', f'title: {_yaml_str(plain_title)}'] + \
               ([f'description: {_yaml_str(plain_description)}'] if description else [])
        blocks = ['\n'.join(head + ['---']), f'# {title}']
        if description: blocks.append(f'{description}\n{{: .nb-description }}')
        if self.site.source_url:  # every page links to the notebook it is made from
            notebook = (self.site.nbs_path/self.page.notebook).relative_to(self.site.nbs_path.parent).as_posix()
            blocks.append(f'[source: `{notebook}`]({self.site.source_url}{notebook})\n{{: .nb-source }}')
        for cell in nb.cells:
            if cell.cell_type == 'markdown': blocks.append(self.markdown_cell(cell))
            elif cell.cell_type == 'code': blocks.append(self.code_cell(cell))
        return plain_title, '\n\n'.join(b.strip('\n') for b in blocks if b.strip()) + '\n'


def _show_doc_heading(markdown: str) -> str:
    "Give a `show_doc` heading nbdev's anchor (`#greeter.__call__`), and keep `__x__` in it from turning bold."
    lines = markdown.split('\n')
    for i, line in enumerate(lines):
        hashes, _, name = line.partition(' ')
        if hashes and set(hashes) == {'#'} and len(hashes) <= 6 and name.strip() and ' ' not in name.strip():
            name = name.strip()
            # Python-Markdown reads `__x__` as bold even here; only dunder names need the escapes
            escape = lambda s: s.replace('_', r'\_') if '__' in s else s
            lines[i] = f'{hashes} {escape(name)} {{ #{escape(name.lower())} }}'
            break
    return '\n'.join(lines)


def _yaml_str(s: str) -> str: return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def render_page(page: Page, site: SiteSettings) -> Page:
    "Execute, process and write one notebook's page (runs in a fresh worker process); returns it titled."
    start = time.perf_counter()
    notebook_path = site.nbs_path/page.notebook
    project_root = str(site.nbs_path.parent)
    if project_root not in sys.path: sys.path.insert(0, project_root)
    cwd, in_test = os.getcwd(), os.environ.get('IN_TEST')
    # Run exactly what `nbdev_test` runs, which is checked to work offline: same skipped cells, same IN_TEST.
    os.environ['IN_TEST'] = '1'
    os.chdir(notebook_path.parent)
    try: nb = process_notebook(notebook_path, set(site.skip_flags), site.execute)
    finally:
        os.chdir(cwd)
        if in_test is None: del os.environ['IN_TEST']
        else: os.environ['IN_TEST'] = in_test
    title, markdown = MarkdownWriter(page, site).page_markdown(nb)
    target = site.docs_dir/page.markdown
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(markdown, encoding='utf-8')
    return Page(page.notebook, page.markdown, title, time.perf_counter() - start)


# ---------------------------------------------------------------- the site

_re_explicit_id = re.compile(r'^#{1,6} .*\{ #(\S+) \}$', re.MULTILINE)


def link_symbols(pages: list[Page], docs_dir: Path, link_prefix: str):
    """Re-point the links nbdev's `add_links` made to the published site (`{link_prefix}schema.html#get_schema`)
    at this site's pages; an anchor no page defines (a private name has no `show_doc`) becomes a page link."""
    anchors = {p.markdown: {a.replace('\\', '') for a in _re_explicit_id.findall((docs_dir/p.markdown).read_text())}
               for p in pages}
    # nbdev's links name a page by its notebook's folder and the notebook's name without its number
    # (`04_interp/host.html`); this site's pages drop the folder's number too (`interp/host.md`)
    pages_by_link = {p.markdown: p.markdown for p in pages}
    pages_by_link.update({nbdev_page_link(p.notebook): p.markdown for p in pages})
    pattern = re.compile(r'\]\(' + re.escape(link_prefix) + r'([\w./-]+?)\.html(#[^)\s]*)?\)')
    for page in pages:
        to_root = '../' * page.markdown.count('/')
        def local(match):
            target, anchor = pages_by_link.get(match.group(1) + '.md'), (match.group(2) or '')[1:]
            if target not in anchors: return match.group(0)
            return f']({to_root}{target}' + (f'#{anchor}' if anchor in anchors[target] else '') + ')'
        path = docs_dir/page.markdown
        path.write_text(pattern.sub(local, path.read_text(encoding='utf-8')), encoding='utf-8')


def navigation(pages: list[Page]) -> list:
    """mkdocs `nav`: Home, then a section per folder. Top-level notebooks are the API reference, and a package of
    notebooks (a numbered folder, `nbs/03_parse/`) is a group inside it, at its place in the dependency order."""
    sections: dict[str, list] = {}
    api: list[tuple] = []      # (sort key, nav entry) for the API reference
    packages: dict[str, list] = {}
    home = []
    for page in pages:
        package = package_folder(page.notebook)
        if page.markdown == 'index.md': home = [{'Home': 'index.md'}]
        elif package: packages.setdefault(package, []).append({page.title: page.markdown})
        elif page.section: sections.setdefault(page.section, []).append({page.title: page.markdown})
        else: api.append((page.notebook, {page.title: page.markdown}))
    api += [(folder, {page_path(folder).removesuffix('.md'): entries}) for folder, entries in packages.items()]
    if api: sections[''] = [entry for _, entry in sorted(api, key=lambda pair: pair[0])]
    order = [s for s in SECTION_ORDER if s in sections] + sorted(s for s in sections if s not in SECTION_ORDER)
    return home + [{SECTION_TITLES.get(s, s.replace('_', ' ').title()): sections[s]} for s in order]


def _render_all(pages: list[Page], site: SiteSettings, workers: int, progress=None) -> list[Page]:
    # A fresh process per notebook, so notebooks cannot see each other's state (as under nbdev_test); they
    # are forked from a server that has nbdev loaded already. `progress(done, total, page)` is told of each page.
    context = multiprocessing.get_context('forkserver')
    context.set_forkserver_preload(['nbdev.processors', 'execnb.shell'])
    with ProcessPoolExecutor(workers, mp_context=context, max_tasks_per_child=1) as pool:
        futures = {pool.submit(render_page, p, site): i for i, p in enumerate(pages)}
        done = [None] * len(pages)
        for count, future in enumerate(as_completed(futures), 1):
            done[futures[future]] = page = future.result()
            if progress: progress(count, len(pages), page)
        return done


def published_url() -> str:
    "The address the site is published at (settings.ini's doc_host and doc_baseurl, ending in /), or ''."
    from nbdev.config import get_config
    config = get_config()
    if not config.get('doc_host'): return ''
    return urljoin(config.get('doc_host', '') + '/', config.get('doc_baseurl', '')).rstrip('/') + '/'


def _check_destination(dest: Path, project_root: Path, nbs_path: Path):
    "Refuse to let mkdocs empty a folder that is not an earlier build."
    if dest in (project_root, *project_root.parents) or dest.is_relative_to(nbs_path):
        raise DocsBuildError(f'refusing to build into {dest}: choose an empty folder or the docs folder')
    if dest.exists() and any(dest.iterdir()) and not (dest/'index.html').exists():
        raise DocsBuildError(f'{dest} is not empty and holds no earlier build; choose an empty folder')


def build(dest: str | Path | None = None, strict: bool = False, workers: int | None = None,
          keep_markdown: str | Path | None = None, execute: bool = False, progress=None) -> list[Page]:
    """Build the site into `dest` (default: settings.ini's doc_path); returns the pages built. Pages show the
    notebooks' stored outputs unless `execute`; `progress(done, total, page)` is called as each page is written."""
    from nbdev.config import get_config
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config
    import yaml

    config = get_config()
    nbs_path, project_root = Path(config.nbs_path).resolve(), Path(config.config_path).resolve()
    dest = Path(dest or config.doc_path).resolve()
    _check_destination(dest, project_root, nbs_path)
    notebooks = find_notebooks(nbs_path)
    if not notebooks: raise DocsBuildError(f'no notebooks found in {nbs_path}')
    pages = [Page(nb, page_path(nb)) for nb in notebooks]
    link_prefix = published_url()

    with tempfile.TemporaryDirectory(prefix='toolcall_docs_') as staging:
        staging = Path(staging)
        docs_dir = staging/'docs'
        docs_dir.mkdir()
        for image in nbs_path.rglob('*'):  # images the notebooks' prose refers to by relative path
            relative = image.relative_to(nbs_path)
            if image.suffix.lower() in IMAGE_SUFFIXES and not any(part[0] in '._' for part in relative.parts):
                (docs_dir/relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(image, docs_dir/relative)
        workers = max(1, workers or min(os.cpu_count() or 1, len(pages)))
        git_url = config.get('git_url', '').rstrip('/')
        site = SiteSettings(nbs_path, docs_dir, {p.notebook: p.markdown for p in pages},
                            f"{git_url}/blob/{config.get('branch', 'main')}/" if git_url else '',
                            tuple(config.get('tst_flags', '').split()), execute)
        pages = _render_all(pages, site, workers, progress)
        if link_prefix: link_symbols(pages, docs_dir, link_prefix)
        (docs_dir/'stylesheets').mkdir()
        (docs_dir/'stylesheets'/'extra.css').write_text(EXTRA_CSS)
        site_config = {'INHERIT': str(BASE_CONFIG), 'site_name': config.get('title', config.lib_name),
                       'site_description': config.get('description', ''), 'docs_dir': str(docs_dir),
                       'site_dir': str(dest), 'nav': navigation(pages), 'extra_css': ['stylesheets/extra.css']}
        # the published address: the 404 page, served at any depth, needs it for its links (without it they are
        # root-absolute and leave the site's path); every other page links relatively and works offline
        if link_prefix: site_config['site_url'] = link_prefix
        config_file = staging/'mkdocs.yml'
        config_file.write_text(yaml.safe_dump(site_config, sort_keys=False, allow_unicode=True))
        mkdocs_build(load_config(str(config_file), strict=strict))
        if keep_markdown:
            shutil.rmtree(keep_markdown, ignore_errors=True)
            shutil.copytree(staging, keep_markdown)
    return pages


# ---------------------------------------------------------------- checking the built site

class _PageScan(HTMLParser):
    "Ids, links and the prose text (outside code) of one HTML page."
    def __init__(self):
        super().__init__()
        self.ids, self.links, self.text, self._in_code = set(), [], [], 0
    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get('id'): self.ids.add(attrs['id'])
        if tag == 'a' and attrs.get('name'): self.ids.add(attrs['name'])
        for key in ('href', 'src'):
            if attrs.get(key) and tag in ('a', 'img', 'link', 'script'): self.links.append(attrs[key])
        if tag in ('code', 'pre', 'script', 'style'): self._in_code += 1
    def handle_endtag(self, tag):
        if tag in ('code', 'pre', 'script', 'style') and self._in_code: self._in_code -= 1
    def handle_data(self, data):
        if not self._in_code: self.text.append(data)


_RAW_MARKDOWN = re.compile(r'\]\([^)\s]*\)|\[`[^`\]]+`\]|\[\]\(')   # a link's `](target)`, a "[`name`]", an empty-text link


def check_site(site: str | Path, site_url: str = '') -> list[str]:
    """Every problem a reader would meet in the built site at `site`: an internal link or image whose file does not
    exist, an anchor its page does not define, a link that leaves the site's path (root-absolute, or `site_url`'s
    host with another path), and Markdown left raw in a page's text. Returns one line per problem (empty: none)."""
    site = Path(site).resolve()
    scans = {}
    for page in sorted(site.rglob('*.html')):
        scan = _PageScan()
        scan.feed(page.read_text(encoding='utf-8', errors='replace'))
        scans[page] = scan
    problems = []
    base = urlsplit(site_url) if site_url else None
    for page, scan in scans.items():
        name = page.relative_to(site).as_posix()
        for link in scan.links:
            parts = urlsplit(link)
            if parts.scheme in ('mailto', 'data', 'javascript'): continue
            if (parts.scheme or parts.netloc) and not (base and parts.netloc == base.netloc): continue  # another site
            if parts.scheme or parts.netloc or parts.path.startswith('/'):
                root = base.path.rstrip('/') + '/' if base else '/'
                if not base or not parts.path.startswith(root):
                    problems.append(f'{name}: {link} leaves the site (its pages are under {root})'); continue
                target = site/parts.path[len(root):]
            else: target = (page.parent/parts.path).resolve() if parts.path else page
            if target.is_dir(): target = target/'index.html'
            if not target.exists():
                problems.append(f'{name}: {link} points to a file that does not exist'); continue
            if parts.fragment and target.suffix == '.html':
                ids = scans[target].ids if target in scans else set()
                if unquote(parts.fragment) not in ids: problems.append(f'{name}: {link}: no anchor #{parts.fragment}')
        for match in _RAW_MARKDOWN.finditer(' '.join(scan.text)):
            problems.append(f'{name}: raw Markdown in the text: {match.group(0)!r}')
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description='Build the docs site from the notebooks, offline (mkdocs-material).')
    parser.add_argument('--dest', help="output folder (default: doc_path in settings.ini, i.e. _docs)")
    parser.add_argument('--strict', action='store_true', help='fail on mkdocs warnings such as broken links')
    parser.add_argument('--workers', type=int, help='notebooks executed in parallel (default: number of CPUs)')
    parser.add_argument('--keep-markdown', help='also copy the generated Markdown and mkdocs.yml to this folder')
    parser.add_argument('--check', action='store_true',
                        help='then check every internal link, anchor and page text of the site (exit 1 on a problem)')
    parser.add_argument('--execute', action='store_true',
                        help="run every notebook's cells again (default: show the outputs stored in the notebooks)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format='%(levelname)-7s - %(message)s')
    dest = Path(args.dest).resolve() if args.dest else None
    keep = Path(args.keep_markdown).resolve() if args.keep_markdown else None
    os.chdir(TOOLS_DIR.parent)  # settings.ini is found from the working directory
    start = time.perf_counter()
    def progress(done, total, page): print(f'[{done}/{total}] {page.notebook} ({page.seconds:.1f} s)', flush=True)
    try: pages = build(dest, strict=args.strict, workers=args.workers, keep_markdown=keep, execute=args.execute,
                       progress=progress)
    except (DocsBuildError, Abort) as e:
        print(f'build_docs: {e}', file=sys.stderr)
        return 1
    slowest = ', '.join(f'{p.notebook} {p.seconds:.1f} s' for p in sorted(pages, key=lambda p: -p.seconds)[:3])
    print(f'built {len(pages)} pages into {dest or "_docs"} in {time.perf_counter() - start:.1f} s (slowest: {slowest})')
    if args.check:
        from nbdev.config import get_config
        problems = check_site(dest or Path(get_config().doc_path), published_url())
        for problem in problems: print(f'build_docs: {problem}', file=sys.stderr)
        print(f'checked the site: {len(problems)} problems')
        if problems: return 1
    return 0


if __name__ == '__main__': sys.exit(main())
