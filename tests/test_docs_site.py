"""The offline docs site opened in a real browser.

`tools/build_docs.py` builds the site from every notebook once per session; it is served on localhost
and each page is opened in headless Chromium (Debian's `chromium`, at /usr/bin/chromium; install it with
`tools/ensure_chromium`), one browser driven over the DevTools protocol. Each page must show its title, the
navigation to every page and its code, run its scripts without error and fetch nothing from another host;
API pages must carry the `show_doc` signature and parameter table of every public name their notebook
exports. A screenshot of the home page goes to tests/artifacts/home.png.
"""
import ast, base64, fcntl, functools, http.server, importlib.util, json, os, re, select, subprocess, sys, tempfile
import threading, time
from dataclasses import dataclass
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NBS = ROOT/'nbs'
CHROMIUM = os.environ.get('CHROMIUM', '/usr/bin/chromium')
ARTIFACTS = Path(__file__).resolve().parent/'artifacts'
CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
                  '--disable-background-networking', '--disable-component-update', '--disable-sync',
                  '--hide-scrollbars']


@dataclass
class Visit:
    "A page as Chromium rendered it."
    dom: 'Dom'
    requests: list   # every URL the page asked for
    errors: list     # uncaught script exceptions


def _load_builder():
    spec = importlib.util.spec_from_file_location('build_docs', ROOT/'tools'/'build_docs.py')
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module

build_docs = _load_builder()


class Browser:
    """Headless Chromium with a throw-away profile, driven over the DevTools protocol on a pipe
    (`--remote-debugging-pipe`: commands in on fd 3, replies and events out on fd 4, each ending in NUL).
    Fails the test (never skips) when Chromium is missing."""
    def __init__(self, timeout: float = 60):
        if not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)):
            pytest.fail(f"{CHROMIUM} not found: run tools/ensure_chromium (installs Debian's chromium)")
        self.timeout, self.buffer, self.last_id, self.events = timeout, b'', 0, []
        self.profile = tempfile.TemporaryDirectory(prefix='chromium_profile_')
        child_reads, self.to_browser = os.pipe()
        self.from_browser, child_writes = os.pipe()
        # the child's ends are dup2'd onto 3 and 4; first move them above 9 so neither is clobbered
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (child_reads, child_writes)]
        for fd in (child_reads, child_writes): os.close(fd)
        def place_pipes(): os.dup2(high[0], 3); os.dup2(high[1], 4)
        self.process = subprocess.Popen([CHROMIUM, *CHROMIUM_FLAGS, '--remote-debugging-pipe',
                                         f'--user-data-dir={self.profile.name}', 'about:blank'],
                                        pass_fds=(3, 4), preexec_fn=place_pipes,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for fd in high: os.close(fd)
        target = self.send('Target.createTarget', url='about:blank')['targetId']
        self.session = self.send('Target.attachToTarget', targetId=target, flatten=True)['sessionId']
        for domain in ('Page', 'Runtime', 'Network'): self.send(f'{domain}.enable', in_page=True)

    def _receive(self) -> dict:
        deadline = time.monotonic() + self.timeout
        while b'\0' not in self.buffer:
            if not select.select([self.from_browser], [], [], max(0, deadline - time.monotonic()))[0]:
                raise TimeoutError(f'chromium sent nothing for {self.timeout} s')
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk: raise RuntimeError(f'chromium closed the pipe (exit status {self.process.poll()})')
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b'\0', 1)
        return json.loads(message)

    def send(self, method: str, in_page: bool = False, **params) -> dict:
        "Send one command (to the page's session if `in_page`) and return its result; events are kept."
        self.last_id += 1
        message = {'id': self.last_id, 'method': method, 'params': params}
        if in_page: message['sessionId'] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b'\0')
        while (reply := self._receive()).get('id') != self.last_id: self.events.append(reply)
        if 'error' in reply: raise RuntimeError(f'{method}: {reply["error"]}')
        return reply.get('result', {})

    def _wait_for(self, method: str):
        while not any(e.get('method') == method for e in self.events): self.events.append(self._receive())

    def open(self, url: str) -> 'Visit':
        "Load `url`; return its DOM once the load event fired, the URLs it requested and its script errors."
        self.events.clear()
        self.send('Page.navigate', in_page=True, url=url)
        self._wait_for('Page.loadEventFired')
        html = self.send('Runtime.evaluate', in_page=True, expression='document.documentElement.outerHTML',
                         returnByValue=True)['result']['value']
        requests = [e['params']['request']['url'] for e in self.events if e.get('method') == 'Network.requestWillBeSent']
        errors = [e['params']['exceptionDetails'].get('text', '') + ' ' +
                  str(e['params']['exceptionDetails'].get('exception', {}).get('description', ''))
                  for e in self.events if e.get('method') == 'Runtime.exceptionThrown']
        return Visit(Dom(html), requests, errors)

    def evaluate(self, expression: str):
        "The value of a JavaScript expression in the page open now."
        return self.send('Runtime.evaluate', in_page=True, expression=expression, returnByValue=True)['result'].get('value')

    def screenshot(self, url: str, width: int, height: int) -> bytes:
        self.send('Emulation.setDeviceMetricsOverride', in_page=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)
        self.open(url)
        return base64.b64decode(self.send('Page.captureScreenshot', in_page=True, format='png')['data'])

    def close(self):
        try: self.send('Browser.close')
        except (OSError, RuntimeError, TimeoutError): pass
        try: self.process.wait(10)
        except subprocess.TimeoutExpired: self.process.kill()
        for fd in (self.to_browser, self.from_browser): os.close(fd)
        self.profile.cleanup()


class Dom(HTMLParser):
    "The parts of a rendered page the checks look at."
    def __init__(self, html: str):
        super().__init__()
        self.title, self.h1, self.nav_links, self.ids, self.links = '', '', set(), {}, []
        self.code_blocks = self.python_blocks = self.copy_buttons = 0
        self.root_classes = []
        self._stack, self._text_into = [], None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get('class') or '').split()
        if tag not in ('br', 'img', 'input', 'meta', 'link', 'hr', 'path', 'source'): self._stack.append((tag, classes))
        if 'id' in attrs: self.ids[attrs['id']] = tag
        if tag == 'html': self.root_classes = classes
        if tag == 'a' and attrs.get('href'): self.links.append(attrs['href'])
        if tag == 'button' and attrs.get('data-md-type') == 'copy': self.copy_buttons += 1
        if tag == 'title': self._text_into = 'title'
        elif tag == 'h1' and not self.h1: self._text_into = 'h1'
        elif tag == 'a' and 'md-nav__link' in classes and any('md-nav--primary' in c for _, cs in self._stack for c in cs):
            self.nav_links.add(attrs.get('href', ''))
        elif tag == 'code' and any(t == 'pre' for t, _ in self._stack[:-1]):
            self.code_blocks += 1
            if any('language-python' in cs for _, cs in self._stack): self.python_blocks += 1

    def handle_endtag(self, tag):
        for i in range(len(self._stack) - 1, -1, -1):
            if self._stack[i][0] == tag:
                del self._stack[i:]
                break
        if tag in ('title', 'h1'): self._text_into = None

    def handle_data(self, data):
        if self._text_into == 'title': self.title += data
        elif self._text_into == 'h1' and not any('headerlink' in cs for _, cs in self._stack): self.h1 += data


def notebook_title(cells: list) -> str:
    "The first `# Title` of a notebook's Markdown (what nbdev makes the page title), as text."
    for cell in cells:
        if cell['cell_type'] != 'markdown': continue
        for line in ''.join(cell['source']).splitlines():
            if line.startswith('# ') and line[2:].strip(): return line[2:].strip().replace('`', '')
    return ''


def _directives(source: str) -> dict:
    "`#| name` / `#| key: value` lines at the top of a cell, as {name: value}."
    found = {}
    for line in source.splitlines():
        if not line.startswith('#|'): break
        key, _, value = line[2:].partition(':')
        if key.split(): found[key.split()[0]] = value.strip() or ' '.join(key.split()[1:])
    return found


def shown_code_cells(cells: list) -> int:
    "Code cells whose source a reader of the page should see (not hidden, exported, echo: false or show_doc)."
    count = 0
    for cell in cells:
        source = ''.join(cell['source'])
        code = '\n'.join(l for l in source.splitlines() if not l.startswith('#|')).strip()
        directives = _directives(source)
        hidden = directives.keys() & {'hide', 'export', 'exporti', 'default_exp'} or \
            directives.get('echo') == 'false' or directives.get('include') == 'false'
        if cell['cell_type'] == 'code' and code and not hidden and not code.startswith('show_doc'): count += 1
    return count


def exported_names(cells: list) -> list[tuple]:
    """(name, parameters, first docstring line) of each public function and class a notebook exports;
    parameters is None for a class, else the function's parameter names other than self/cls."""
    names = []
    for cell in cells:
        if cell['cell_type'] != 'code': continue
        source = ''.join(cell['source'])
        directives = _directives(source).keys()
        if not directives & {'export', 'exports'} or 'hide' in directives: continue
        try: tree = ast.parse(source)
        except SyntaxError: continue  # IPython syntax; such cells export no definitions
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not node.name.startswith('_'):
                docstring = (ast.get_docstring(node) or '').strip().split('\n')[0]
                if isinstance(node, ast.ClassDef): parameters = None
                else:
                    arguments = node.args
                    parameters = [a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs
                                  + [arguments.vararg, arguments.kwarg] if a and a.arg not in ('self', 'cls')]
                names.append((_patched_name(node), parameters, docstring))
    return names


def _patched_name(node) -> str:
    "`Chat.stream` for a function fastcore's `@patch` adds to a class (`def stream(self:Chat, ...)`), else its own name."
    decorators = [d.id if isinstance(d, ast.Name) else getattr(d, 'attr', '') for d in getattr(node, 'decorator_list', [])]
    arguments = getattr(node, 'args', None)
    first = (arguments.posonlyargs + arguments.args)[:1] if arguments else []
    if 'patch' in decorators and first and isinstance(first[0].annotation, ast.Name):
        return f'{first[0].annotation.id}.{node.name}'
    return node.name


def anchor(name: str) -> str:
    "The id the builder gives a show_doc heading named `name`: nbdev's anchor (`Chat.stream` -> `chat.stream`)."
    return name.lower()


@pytest.fixture(scope='module')
def site(tmp_path_factory):
    "Build the site once (from the notebooks' stored outputs) and serve it on localhost."
    # the notebooks as the build reads them (other work may change them while the test runs)
    cells = {nb: json.loads((NBS/nb).read_text(encoding='utf-8'))['cells'] for nb in build_docs.find_notebooks(NBS)}
    pages = {nb: build_docs.page_path(nb) for nb in cells}
    out = tmp_path_factory.mktemp('docs_site')
    dest, markdown = out/'_docs', out/'markdown'
    result = subprocess.run([sys.executable, str(ROOT/'tools'/'build_docs.py'), '--dest', str(dest),
                             '--keep-markdown', str(markdown), '--strict'],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f'docs build failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}'
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args): pass
    handler = functools.partial(Quiet, directory=str(dest))
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    site_url = build_docs.published_url()
    try: yield dict(url=f'http://127.0.0.1:{server.server_address[1]}/', dest=dest, markdown=markdown/'docs',
                    pages=pages, cells=cells, site_url=site_url, build_output=result.stdout)
    finally:
        server.shutdown()
        server.server_close()


def page_url(site, page: str) -> str: return site['url'] + page[:-len('.md')] + '.html'


@pytest.fixture(scope='module')
def browser():
    browser = Browser()
    yield browser
    browser.close()


@pytest.fixture(scope='module')
def visits(browser, site):
    "Every page as Chromium rendered it, keyed by notebook."
    return {notebook: browser.open(page_url(site, page)) for notebook, page in site['pages'].items()}


@pytest.fixture(scope='module')
def rendered(visits):
    "Every page's rendered DOM, keyed by notebook."
    return {notebook: visit.dom for notebook, visit in visits.items()}


def test_every_notebook_has_a_page(site):
    assert 'index.ipynb' in site['pages'], 'nbs/index.ipynb is the home page'
    for notebook, page in site['pages'].items():
        assert (site['dest']/page).with_suffix('.html').is_file(), f'{notebook}: no page {page}'


def test_pages_render_title_navigation_and_code(site, rendered):
    html_pages = {page[:-len('.md')] + '.html' for page in site['pages'].values()}
    for notebook, dom in rendered.items():
        page = site['pages'][notebook]
        title = notebook_title(site['cells'][notebook])
        assert title, f'{notebook} has no "# Title" heading'
        assert dom.h1.strip() == title, f'{page}: <h1> is {dom.h1!r}, expected {title!r}'
        assert dom.title.strip().startswith(title), f'{page}: <title> {dom.title!r} does not start with {title!r}'
        # hrefs in the navigation are relative to the page
        links = {os.path.normpath(os.path.join(os.path.dirname(page), h.split('#')[0]))
                 for h in dom.nav_links if h and not h.startswith('#')}
        assert html_pages <= links | {page[:-3] + '.html'}, f'{page}: navigation lacks {sorted(html_pages - links)}'
        # the theme's bundled script ran (offline): it marks <html> and adds a copy button to each code block
        assert 'js' in dom.root_classes and 'no-js' not in dom.root_classes, f'{page}: the theme script did not run'
        assert dom.copy_buttons >= dom.code_blocks, f'{page}: {dom.code_blocks} code blocks, {dom.copy_buttons} enhanced'
        shown = shown_code_cells(site['cells'][notebook])
        assert dom.python_blocks >= shown, f'{page}: {shown} code cells to show, {dom.python_blocks} rendered'
        fences = (site['markdown']/page).read_text(encoding='utf-8').count('\n```python')
        assert dom.python_blocks >= fences, f'{page}: {fences} python blocks written, {dom.python_blocks} rendered'


def _words(text: str) -> list[str]: return re.findall(r'[A-Za-z0-9]+', text)


def _contains_words(text: str, words: list[str]) -> bool:
    "`words` appear in `text` one after the other (markup between them stripped)."
    return ' '.join(words) in ' '.join(_words(text))


def test_api_pages_show_docs_of_exported_names(site, rendered):
    "Every exported public name gets show_doc output, whether the notebook called show_doc or the build added it."
    checked = 0
    for notebook, dom in rendered.items():
        if '/' in notebook or notebook == 'index.ipynb': continue
        html = (site['dest']/site['pages'][notebook]).with_suffix('.html').read_text(encoding='utf-8')
        for name, parameters, docstring in exported_names(site['cells'][notebook]):
            name_anchor = anchor(name)
            assert dom.ids.get(name_anchor, '').startswith('h'), f'{notebook}: no show_doc heading for exported {name}'
            start = html.index(f'id="{name_anchor}"')
            end = html.find('<hr', start)
            section_html = html[start:end if end > 0 else None]
            section = unescape(re.sub(r'<[^>]+>', ' ', section_html))
            if parameters is not None: assert f'{name} (' in section, f'{notebook}: no signature under {name}'
            if parameters:  # show_doc's table lists the docments of the parameters
                assert '<table>' in section_html and all(p in section for p in parameters), \
                    f'{notebook}: no docments table for {name}{tuple(parameters)}: comment its parameters'
            if docstring:
                assert _contains_words(section, _words(docstring)[:6]), f'{notebook}: docstring of {name} not shown'
            checked += 1
    assert checked, 'no exported names found in the API notebooks'


def test_known_name_has_signature_and_docments_table(site, rendered):
    "get_schema (nbs/00_schema) as a reader meets it: heading, signature, a table row per parameter."
    if '00_schema.ipynb' not in site['pages']: pytest.fail('nbs/00_schema.ipynb is expected to exist')
    parameters = {name: params for name, params, _ in exported_names(site['cells']['00_schema.ipynb'])}['get_schema']
    assert rendered['00_schema.ipynb'].ids.get('get_schema') == 'h3'
    html = (site['dest']/'schema.html').read_text(encoding='utf-8')
    section = html[html.index('id="get_schema"'):]
    section = section[:section.find('<hr')] if '<hr' in section else section
    text = unescape(re.sub(r'<[^>]+>', ' ', section))
    assert 'get_schema (' in text and '<table>' in section and 'Details' in text
    for parameter in parameters: assert f'<td>{parameter}</td>' in section, f'get_schema: no table row for {parameter}'


def test_pages_load_nothing_from_the_network(site):
    "The site must work offline: no script, stylesheet, font or image from another host."
    pattern = re.compile(r'<(?:script|link|img|iframe|source)\b[^>]*\b(?:src|href)="(?:https?:)?//', re.IGNORECASE)
    for html in site['dest'].rglob('*.html'):
        # a `<link rel="canonical">` (the page's published address) names another host but fetches nothing
        found = [m.group(0) for m in pattern.finditer(html.read_text(encoding='utf-8')) if 'rel="canonical"' not in m.group(0)]
        assert not found, f'{html.name} loads {found[0]!r}'
    for css in site['dest'].rglob('*.css'):
        assert '@import url(http' not in css.read_text(encoding='utf-8'), f'{css.name} imports a remote stylesheet'


def test_pages_run_their_scripts_and_stay_on_the_local_site(site, visits):
    for notebook, visit in visits.items():
        page = site['pages'][notebook]
        assert not visit.errors, f'{page}: script errors {visit.errors}'
        assert visit.requests, f'{page}: no requests seen'
        remote = [u for u in visit.requests if not u.startswith((site['url'], 'data:', 'blob:', 'about:'))]
        assert not remote, f'{page} fetched {remote}: the site must work offline'


def test_home_page_screenshot(site, browser):
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS/'home.png'
    shot.unlink(missing_ok=True)
    shot.write_bytes(browser.screenshot(site['url'] + 'index.html', 1280, 900))
    data = shot.read_bytes()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    width, height = int.from_bytes(data[16:20], 'big'), int.from_bytes(data[20:24], 'big')
    assert (width, height) == (1280, 900)
    from PIL import Image
    with Image.open(shot) as image:
        colours = image.convert('RGB').getcolors(maxcolors=1 << 16)
    # a blank or error page has a handful of colours; a rendered page with text and a header has many
    assert colours is None or len(colours) > 50, f'screenshot looks blank ({len(colours)} colours)'


def test_every_page_links_to_its_notebook(site, rendered):
    "A reader can go from any page to the notebook it is made from (the source of truth)."
    for notebook, dom in rendered.items():
        target = f'nbs/{notebook}'
        assert any(h.endswith(target) and h.startswith('http') for h in dom.links), f'{notebook}: no link to {target}'


def test_no_broken_links(site):
    """Every internal link and image of the built site, the 404 page's included, leads to a file that exists, every
    anchor to an id its page has, no link leaves the site's path, and no page shows raw Markdown (a link inside a
    link, an empty-text link): `check_site`, which a docs build can run too (`--check`)."""
    problems = build_docs.check_site(site['dest'], site['site_url'])
    assert not problems, f'{len(problems)} problems in the site:\n' + '\n'.join(problems[:40])


def test_the_checker_finds_what_it_looks_for(tmp_path):
    "check_site itself: a page with a missing file, a missing anchor, a root-absolute link and raw Markdown."
    (tmp_path/'a.html').write_text('<h1 id="top">A</h1><a href="b.html#top">b</a><a href="b.html#nowhere">x</a>'
                                   '<a href="missing.html">m</a><a href="/index.html">r</a>'
                                   '<a href="https://example.org/x">elsewhere</a><p>[[`parse`](x.md)](y.md)</p>'
                                   '<code>[code](kept.md)</code>')
    (tmp_path/'b.html').write_text('<h2 id="top">B</h2><a href="a.html">a</a>'
                                   '<a href="https://docs.example/site/a.html#top">self</a>'
                                   '<a href="https://docs.example/other/a.html">out</a>')
    problems = build_docs.check_site(tmp_path, 'https://docs.example/site/')
    assert len(problems) == 6, problems   # the link inside a link shows two raw targets
    for expected in ('b.html#nowhere: no anchor', 'missing.html points to a file', '/index.html leaves the site',
                     "raw Markdown in the text: '[`parse`]'", "'](y.md)'", 'other/a.html leaves the site'):
        assert any(expected in p for p in problems), (expected, problems)


def test_build_prints_progress_and_its_time(site):
    "The build says how far it is, page by page, and how long it took; stdout carries nothing else but mkdocs' log."
    lines = site['build_output'].splitlines()
    progress = [line for line in lines if re.match(r'\[\d+/\d+\] ', line)]
    assert len(progress) == len(site['pages']), lines[:5]
    assert re.search(r'^built \d+ pages into .* in \d+\.\d s', site['build_output'], re.MULTILINE)
    assert not [line for line in lines if line.startswith('{')], 'JSON lines on stdout'


_re_private = re.compile(r'(?<![\w.])_[A-Za-z]\w*')


def _first_section(html: str) -> list[tuple[str, str]]:
    "A built page from its <h1> to its first <h2> (what a reader sees first), as (kind, text) pieces in order: 'code' for a python block, 'text' otherwise."
    start = html.index('<h1')
    end = html.find('<h2', start)
    section = html[start:end if end > 0 else None]
    strip = lambda fragment: unescape(re.sub(r'<[^>]+>', ' ', fragment))
    pieces, position = [], 0
    for block in re.finditer(r'<div class="language-python highlight">(.*?)</div>', section, re.DOTALL):
        pieces += [('text', strip(section[position:block.start()])), ('code', strip(block.group(1)))]
        position = block.end()
    return pieces + [('text', strip(section[position:]))]


def test_pages_lead_with_public_names(site):
    """Each page opens with a working example of the public API: its first section has Python code using a public
    name of the library, and no underscore-prefixed name appears before that code."""
    public = {name for cells in site['cells'].values() for name, _, _ in exported_names(cells)}
    word = re.compile(r'[A-Za-z_]\w*')
    for notebook, page in site['pages'].items():
        seen = ''
        for kind, text in _first_section((site['dest']/page).with_suffix('.html').read_text(encoding='utf-8')):
            if kind == 'code' and public & set(word.findall(text)): break
            seen += text
        else:
            pytest.fail(f'{page}: the first section has no code using a public name (open with a working example)')
        private = _re_private.search(seen)
        assert private is None, f'{page}: the first section shows {private.group()!r} before its first example'


def test_code_is_never_clipped_and_pages_are_kept_as_screenshots(site, browser):
    "On a laptop screen (1366x768) no code block hides text past its right edge; each page's screenshot is kept."
    ARTIFACTS.mkdir(exist_ok=True)
    clipped = {}
    for notebook, page in site['pages'].items():
        shot = browser.screenshot(page_url(site, page), 1366, 768)
        (ARTIFACTS/(page[:-len('.md')].replace('/', '_') + '.png')).write_bytes(shot)
        hidden = browser.evaluate("[...document.querySelectorAll('pre > code, .md-typeset blockquote')]"
                                  ".filter(e => e.scrollWidth > e.clientWidth + 1).length")
        if hidden: clipped[page] = hidden
    assert not clipped, f'code blocks wider than the page (text hidden): {clipped}'


def test_show_docs_come_in_definition_order(site):
    """A page documents the names one exported cell defines in the order it defines them (nbdev inserts the
    show_doc cells it adds in reverse: the dispatch page would list ToolCallError's subclasses before it)."""
    for notebook, page in site['pages'].items():
        if '/' in notebook or notebook == 'index.ipynb': continue
        html = (site['dest']/page).with_suffix('.html').read_text(encoding='utf-8')
        names = [name for name, _, _ in exported_names(site['cells'][notebook])]
        positions = [html.find(f'id="{anchor(name)}"') for name in names]
        shown = [name for name, _ in sorted(zip(names, positions), key=lambda pair: pair[1])]
        assert shown == names, f'{notebook}: show_doc order {shown} differs from the definition order {names}'


_re_linked_private = re.compile(r'\[`(_[A-Za-z][\w.]*)(?:\(\))?`\]\(')


def test_private_names_are_not_linked(site):
    """Backticked private names stay plain code: they have no show_doc of their own, and nbdev's lookup sends
    a name several modules define (`_jsonable`) to whichever module it met last."""
    linked = {page: _re_linked_private.findall((site['markdown']/page).read_text(encoding='utf-8'))
              for page in site['pages'].values()}
    assert not any(linked.values()), {page: names for page, names in linked.items() if names}
    schema_page = (site['markdown']/'schema.md').read_text(encoding='utf-8')
    assert '`_jsonable`' in schema_page and '](dispatch.md#call_func)' in (site['markdown']/'mcp.md').read_text(encoding='utf-8')
