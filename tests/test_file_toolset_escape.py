"""FileToolset must never reach outside its root: `..`, absolute paths, symlinks (file, directory, chained, swapped in
while it works), plus size limits and non-regular files."""
import json, os, pwd, shutil, subprocess, tempfile, textwrap, threading, time
from pathlib import Path

import pytest

from toolcall_lib.toolset import MAX_PATH_BYTES, FileTooLargeError, FileToolset, PathOutsideRootError, ToolInputError

SECRET = 'TOP SECRET'


@pytest.fixture
def layout(tmp_path):
    "A root directory, and beside it an `outside` directory holding a secret; `root2` shares root's name as a prefix."
    root, outside, root2 = tmp_path / 'root', tmp_path / 'outside', tmp_path / 'root2'
    for directory in (root, outside, root2): directory.mkdir()
    (outside / 'secret.txt').write_text(SECRET)
    (root2 / 'secret.txt').write_text(SECRET)
    (root / 'inside.txt').write_text('inside')
    (root / 'sub').mkdir()
    return root, outside, root2


def outside_untouched(outside: Path, root2: Path):
    assert sorted(p.name for p in outside.iterdir()) == ['secret.txt']
    assert sorted(p.name for p in root2.iterdir()) == ['secret.txt']
    assert (outside / 'secret.txt').read_text() == SECRET


def every_operation(files: FileToolset, path: str):
    "Each tool called on `path` (write last, so a successful escape would show up as a new file outside)."
    return [lambda: files.read(path), lambda: files.list_(path), lambda: files.delete(path), lambda: files.write(path, 'pwned')]


CLIMBING = ['..', '../outside/secret.txt', 'sub/../../outside/secret.txt', 'sub/..', './../outside', 'sub/../inside.txt',
            '../root/inside.txt', 'a/b/c/../../../../x']

@pytest.mark.parametrize('path', CLIMBING)
def test_dot_dot_is_refused_everywhere(layout, path):
    root, outside, root2 = layout
    files = FileToolset(root)
    for operation in every_operation(files, path):
        with pytest.raises(PathOutsideRootError, match=r"contains '\.\.'"): operation()
    outside_untouched(outside, root2)
    assert (root / 'inside.txt').read_text() == 'inside'


def test_absolute_paths_are_refused(layout):
    root, outside, root2 = layout
    files = FileToolset(root)
    for path in ['/etc/passwd', str(outside / 'secret.txt'), str(root / 'inside.txt'), '//etc/passwd', '\\etc\\passwd', 'C:/x']:
        for operation in every_operation(files, path):
            with pytest.raises(PathOutsideRootError, match='absolute path'): operation()
    outside_untouched(outside, root2)


def test_file_symlink_pointing_outside(layout):
    root, outside, root2 = layout
    (root / 'absolute_link.txt').symlink_to(outside / 'secret.txt')
    (root / 'sub' / 'relative_link.txt').symlink_to(Path('..', '..', 'outside', 'secret.txt'))
    (root / 'prefix_link.txt').symlink_to(root2 / 'secret.txt')   # '/tmp/x/root2/...' starts with '/tmp/x/root'
    files = FileToolset(root)
    for path in ['absolute_link.txt', 'sub/relative_link.txt', 'prefix_link.txt']:
        with pytest.raises(PathOutsideRootError, match='leads outside the root'): files.read(path)
        with pytest.raises(PathOutsideRootError, match='leads outside the root'): files.write(path, 'pwned')
    outside_untouched(outside, root2)
    # the listing shows links as links, without following them
    assert {'name': 'absolute_link.txt', 'type': 'symlink', 'size': None} in files.list_()['entries']
    # deleting a link removes the link, never its target
    assert files.delete('absolute_link.txt') == "Deleted 'absolute_link.txt'."
    assert not (root / 'absolute_link.txt').is_symlink()
    outside_untouched(outside, root2)


def test_directory_symlink_pointing_outside(layout):
    root, outside, root2 = layout
    (root / 'out').symlink_to(outside)
    (root / 'sub' / 'up').symlink_to('..')              # stays inside: fine on its own ...
    (root / 'sub' / 'upup').symlink_to('../..')         # ... but this one climbs out
    files = FileToolset(root)
    for path in ['out/secret.txt', 'out', 'out/new.txt', 'sub/upup/outside/secret.txt', 'sub/up/out/secret.txt',
                 'sub/upup/root2/secret.txt']:
        for operation in every_operation(files, path)[:2] + every_operation(files, path)[3:]:
            with pytest.raises(PathOutsideRootError, match='leads outside the root'): operation()
    with pytest.raises(PathOutsideRootError): files.write('out/deep/er/new.txt', 'pwned')
    with pytest.raises(PathOutsideRootError): files.delete('out/secret.txt')
    outside_untouched(outside, root2)
    assert files.read('sub/up/inside.txt') == 'inside'   # a link that stays inside works


def test_chained_symlinks_are_followed_only_while_inside(layout):
    root, outside, root2 = layout
    (root / 'hop1').symlink_to('hop2')
    (root / 'hop2').symlink_to('sub/hop3')
    (root / 'sub' / 'hop3').symlink_to(outside / 'secret.txt')
    (root / 'good1').symlink_to('sub/good2')
    (root / 'sub' / 'good2').symlink_to(root / 'inside.txt')
    files = FileToolset(root)
    with pytest.raises(PathOutsideRootError): files.read('hop1')
    assert files.read('good1') == 'inside'
    (root / 'ping').symlink_to('pong')
    (root / 'pong').symlink_to('ping')
    with pytest.raises(ToolInputError, match='too many levels'): files.read('ping')
    outside_untouched(outside, root2)


def test_parent_directory_swapped_for_a_symlink_between_calls(layout):
    root, outside, root2 = layout
    files = FileToolset(root)
    assert files.write('sub/notes.txt', 'mine') == "Wrote 4 bytes to 'sub/notes.txt'."
    os.rename(root / 'sub', root / 'sub_moved')
    (root / 'sub').symlink_to(outside)
    with pytest.raises(PathOutsideRootError): files.write('sub/notes.txt', 'pwned')
    with pytest.raises(PathOutsideRootError): files.read('sub/secret.txt')
    outside_untouched(outside, root2)


def test_parent_directory_swapped_while_tools_run(layout):
    "A thread keeps swapping `sub` between a real directory and a symlink to outside; no call may ever cross over."
    root, outside, root2 = layout
    files = FileToolset(root)
    stop, swaps = threading.Event(), [0]

    def restore_real_directory():
        "Put the real directory back at `sub`, removing whatever a write created there in a gap."
        sub, away = root / 'sub', root / 'sub_away'
        while away.exists():
            if sub.is_symlink(): sub.unlink()
            elif sub.exists(): shutil.rmtree(sub, ignore_errors=True)   # a write may race with it: loop again
            try: os.rename(away, sub)
            except OSError: pass

    def swapper():
        while not stop.is_set():
            try:
                os.rename(root / 'sub', root / 'sub_away')
                (root / 'sub').symlink_to(outside)
                os.unlink(root / 'sub')
                os.rename(root / 'sub_away', root / 'sub')
                swaps[0] += 1
            except OSError:   # a write re-created `sub` (as a real directory inside the root) in a gap
                restore_real_directory()

    thread = threading.Thread(target=swapper)
    thread.start()
    leaked, succeeded = [], 0
    try:
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            for call in (lambda: files.read('sub/secret.txt'), lambda: files.write('sub/planted.txt', 'pwned'),
                         lambda: files.list_('sub'), lambda: files.delete('sub/secret.txt')):
                try: result = call()
                except ToolInputError: continue   # refused or vanished mid-swap: both fine
                succeeded += 1
                if SECRET in str(result): leaked.append(result)
    finally:
        stop.set()
        thread.join()
    assert swaps[0] > 50 and succeeded > 0
    assert leaked == []
    outside_untouched(outside, root2)


def test_size_limits(layout):
    root, outside, root2 = layout
    files = FileToolset(root, max_read_bytes=10, max_write_bytes=10)
    assert files.write('ok.txt', '0123456789') == "Wrote 10 bytes to 'ok.txt'."
    assert files.read('ok.txt') == '0123456789'
    with pytest.raises(FileTooLargeError, match='at most 10 bytes'): files.write('ok.txt', '01234567890')
    assert files.read('ok.txt') == '0123456789'   # the refused write changed nothing
    with pytest.raises(FileTooLargeError): files.write('new.txt', 'ééééé é')   # 7 characters, 13 bytes
    assert not (root / 'new.txt').exists()
    (root / 'big.txt').write_text('x' * 11)
    with pytest.raises(FileTooLargeError, match='over 10 bytes'): files.read('big.txt')
    files = FileToolset(root, max_list_entries=2)
    listing = files.list_()
    assert len(listing['entries']) == 2 and listing['truncated'] is True


def test_non_regular_files_and_bad_paths_fail_cleanly(layout):
    root, outside, root2 = layout
    os.mkfifo(root / 'pipe')
    files = FileToolset(root)
    started = time.monotonic()
    with pytest.raises(ToolInputError, match='not a regular file'): files.read('pipe')   # must not block on the FIFO
    assert time.monotonic() - started < 5
    with pytest.raises(ToolInputError, match='NUL'): files.read('a\x00b')
    with pytest.raises(ToolInputError, match='too long'): files.write('x' * 300, 'y')
    with pytest.raises(ToolInputError, match='is a file, not a directory'): files.write('inside.txt/child.txt', 'y')
    with pytest.raises(ToolInputError, match='is a directory'): files.write('sub', 'y')
    assert not any(name.endswith('.tmp') for name in os.listdir(root))   # no temporary files left behind


def test_writes_are_atomic_replacements(layout):
    root, outside, root2 = layout
    files = FileToolset(root)
    files.write('data.txt', 'old')
    before = (root / 'data.txt').stat().st_ino
    files.write('data.txt', 'new')
    assert (root / 'data.txt').read_text() == 'new'
    assert (root / 'data.txt').stat().st_ino != before   # replaced by rename, never truncated in place
    assert sorted(os.listdir(root)) == ['data.txt', 'inside.txt', 'sub']


def test_deep_and_unencodable_paths_are_refused_before_touching_the_disk(layout):
    "One file_write must not nest thousands of directories (one open descriptor each), nor crash on a lone surrogate."
    root, outside, root2 = layout
    files = FileToolset(root)
    deep = 'd/' * (MAX_PATH_BYTES // 2) + 'x.txt'
    for operation in every_operation(files, deep):
        with pytest.raises(ToolInputError, match='paths may be at most'): operation()
    for operation in every_operation(files, 'bad\ud800name'):
        with pytest.raises(ToolInputError, match='unpaired surrogates'): operation()
    assert sorted(os.listdir(root)) == ['inside.txt', 'sub']


def test_listing_skips_an_entry_deleted_while_it_is_listed(layout, monkeypatch):
    "file_list reads the names, then stats each: a concurrent delete (or a write's temporary file) in between is skipped."
    root, outside, root2 = layout
    (root / 'sub' / 'keep.txt').write_text('k')
    (root / 'sub' / 'gone.txt').write_text('g')
    real_scandir = os.scandir

    def scandir_then_delete(directory):
        entries = list(real_scandir(directory))
        (root / 'sub' / 'gone.txt').unlink()

        class Scan:
            def __enter__(self): return iter(entries)
            def __exit__(self, *exc_info): pass
        return Scan()

    files = FileToolset(root)
    monkeypatch.setattr(os, 'scandir', scandir_then_delete)
    listing = files.list_('sub')
    assert listing['entries'] == [{'name': 'keep.txt', 'type': 'file', 'size': 1}]


def test_a_rewrite_keeps_the_file_permissions(layout):
    root, outside, root2 = layout
    files = FileToolset(root)
    for name, mode in [('private.txt', 0o600), ('script.sh', 0o755), ('shared.txt', 0o664)]:
        (root / name).write_text('old')
        (root / name).chmod(mode)
        files.write(name, 'new')
        assert (root / name).read_text() == 'new' and (root / name).stat().st_mode & 0o7777 == mode


# --- The root itself swapped for a symlink (issue 30): the toolset pins its root when it is made. ---

def swap_root_for_link(root: Path, target: Path) -> Path:
    "Move `root` away and put a symlink to `target` at its path, as whoever can write the root's parent could; where it went."
    moved = root.with_name(root.name + '_moved')
    os.rename(root, moved)
    root.symlink_to(target)
    return moved


def test_root_swapped_for_a_symlink_after_construction(layout):
    root, outside, root2 = layout
    files = FileToolset(root)
    moved = swap_root_for_link(root, outside)
    with pytest.raises(ToolInputError, match="no file or directory at 'secret.txt'"): files.read('secret.txt')
    with pytest.raises(ToolInputError, match="no file or directory"): files.delete('secret.txt')
    assert files.read('inside.txt') == 'inside'   # still the directory it was given
    assert files.write('planted.txt', 'pwned') == "Wrote 5 bytes to 'planted.txt'."
    assert [entry['name'] for entry in files.list_()['entries']] == ['inside.txt', 'planted.txt', 'sub']
    assert (moved / 'planted.txt').read_text() == 'pwned'
    outside_untouched(outside, root2)


def test_an_absolute_link_inside_the_root_stays_in_the_pinned_root(layout):
    "A link naming the root's path goes back to the pinned directory, not to whatever the path holds after a swap."
    root, outside, root2 = layout
    (root / 'sub' / 'back').symlink_to(root / 'inside.txt')
    (root / 'sub' / 'dir').symlink_to(root)
    files = FileToolset(root)
    swap_root_for_link(root, root2)
    assert files.read('sub/back') == 'inside'
    with pytest.raises(ToolInputError, match='no file or directory'): files.read('sub/dir/secret.txt')
    files.write('sub/dir/new.txt', 'x')
    outside_untouched(outside, root2)


def test_root_swapped_while_tools_run(layout):
    "A thread keeps swapping the root between the real directory and a symlink to outside; no call may cross over."
    root, outside, root2 = layout
    files = FileToolset(root)
    stop, swaps, away = threading.Event(), [0], root.with_name('root_away')

    def swapper():
        while not stop.is_set():
            os.rename(root, away)
            root.symlink_to(outside)
            os.unlink(root)
            os.rename(away, root)
            swaps[0] += 1

    thread = threading.Thread(target=swapper)
    thread.start()
    leaked, succeeded = [], 0
    try:
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            for call in (lambda: files.read('secret.txt'), lambda: files.write('planted.txt', 'pwned'), lambda: files.list_(),
                         lambda: files.delete('secret.txt'), lambda: files.read('inside.txt')):
                try: result = call()
                except ToolInputError: continue
                succeeded += 1
                if SECRET in str(result) or 'secret.txt' in str(result): leaked.append(result)
    finally:
        stop.set()
        thread.join()
    assert swaps[0] > 50 and succeeded > 0
    assert leaked == []
    outside_untouched(outside, root2)
    assert sorted(os.listdir(root)) == ['inside.txt', 'planted.txt', 'sub']


def test_closed_toolset_refuses_calls(layout):
    root, outside, root2 = layout
    with FileToolset(root) as files: assert files.read('inside.txt') == 'inside'
    with pytest.raises(Exception, match='was closed'): files.read('inside.txt')


def test_non_utf8_file_names_are_listed_as_valid_text(layout):
    root, outside, root2 = layout
    (root / os.fsdecode(b'bad\xffname.txt')).write_text('x')
    (root / os.fsdecode(b'\xed\xa0\x80')).mkdir()   # the UTF-8-like encoding of a lone surrogate: not UTF-8 either
    listing = FileToolset(root).list_()
    names = [entry['name'] for entry in listing['entries']]
    assert names == ['bad\\xffname.txt', 'inside.txt', 'sub', '\\xed\\xa0\\x80']   # in the order of the names on disk
    assert json.dumps(listing, ensure_ascii=False).encode('utf-8')   # encodable: a server can send it


SWAP_SCRIPT = textwrap.dedent('''
    import json, os, shutil, tempfile
    from pathlib import Path
    from toolcall_lib.toolset import FileToolset, ToolInputError
    base = Path(tempfile.mkdtemp(prefix='toolcall-filetoolset-'))
    root, outside = base / 'root', base / 'outside'
    root.mkdir(); outside.mkdir()
    (outside / 'secret.txt').write_text('TOP SECRET')
    (root / 'inside.txt').write_text('inside')
    files = FileToolset(root)
    os.rename(root, base / 'moved'); root.symlink_to(outside)
    outcome = {'uid': os.getuid()}
    for name, call in [('read', lambda: files.read('secret.txt')), ('write', lambda: files.write('planted.txt', 'pwned')),
                       ('list', lambda: [e['name'] for e in files.list_()['entries']]), ('delete', lambda: files.delete('secret.txt'))]:
        try: outcome[name] = call()
        except ToolInputError as error: outcome[name] = f'refused: {error}'
    outcome['outside'] = sorted(os.listdir(outside)); outcome['moved'] = sorted(os.listdir(base / 'moved'))
    files.close(); os.unlink(root); shutil.rmtree(base)
    print(json.dumps(outcome))
''')


def test_root_swap_as_an_unprivileged_user():
    "The same swap with the toolset running as an ordinary user (`nobody` when the tests run as root)."
    from test_sandbox_nonroot import unprivileged_command
    import site
    # that user may have to run the system's Python (ours can live under root's home): give it this checkout and our packages
    importable = [str(Path(__file__).resolve().parents[1]), *site.getsitepackages()]
    completed = subprocess.run(unprivileged_command() + ['-c', SWAP_SCRIPT], capture_output=True, text=True, timeout=60, cwd='/',
                               env={**os.environ, 'PYTHONPATH': os.pathsep.join(importable)})
    assert completed.returncode == 0, completed.stderr
    outcome = json.loads(completed.stdout)
    assert outcome['uid'] != 0
    assert outcome == {'uid': outcome['uid'], 'read': "refused: there is no file or directory at 'secret.txt'; use file_list to see what exists",
                       'write': "Wrote 5 bytes to 'planted.txt'.", 'list': ['inside.txt', 'planted.txt'],
                       'delete': "refused: there is no file or directory at 'secret.txt'; use file_list to see what exists",
                       'outside': ['secret.txt'], 'moved': ['inside.txt', 'planted.txt']}


@pytest.fixture
def world_reachable_tmp():
    "A fresh directory under /tmp that other users can reach (pytest's own tmp_path is private to its user)."
    path = Path(tempfile.mkdtemp(prefix='toolcall-filetoolset-'))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_root_swap_by_an_unprivileged_user_does_not_reach_a_root_only_file(world_reachable_tmp):
    "A toolset running as root over a directory an unprivileged user owns: that user swaps the root for a link to a root-only directory."
    if os.geteuid() != 0: pytest.skip('needs root: the toolset runs as root, the swap as nobody')
    from test_sandbox_nonroot import unprivileged_command
    tmp_path = world_reachable_tmp
    nobody = pwd.getpwnam('nobody').pw_uid
    shared, private = tmp_path / 'shared', tmp_path / 'private'
    shared.mkdir(); private.mkdir(mode=0o700)
    (private / 'secret.txt').write_text(SECRET)
    (private / 'secret.txt').chmod(0o600)
    root = shared / 'root'
    root.mkdir()
    (root / 'inside.txt').write_text('inside')
    for path in (shared, root, root / 'inside.txt'): os.chown(path, nobody, -1)
    files = FileToolset(root)
    swap = f'import os; os.rename({str(root)!r}, {str(root) + "_moved"!r}); os.symlink({str(private)!r}, {str(root)!r})'
    completed = subprocess.run(unprivileged_command() + ['-c', swap], capture_output=True, text=True, timeout=60, cwd='/')
    assert completed.returncode == 0, completed.stderr
    assert root.is_symlink()
    with pytest.raises(ToolInputError, match='no file or directory'): files.read('secret.txt')
    files.write('planted.txt', 'pwned')
    assert sorted(os.listdir(private)) == ['secret.txt'] and (private / 'secret.txt').read_text() == SECRET
    assert (shared / 'root_moved' / 'planted.txt').read_text() == 'pwned'
