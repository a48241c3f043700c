"""No host writes (issue 25, item 4): starting and using a session creates no file or directory on the host outside
the session's own scratch (a tmpfs inside its mount namespace) and the user's `write_paths`. The template makes its
IPython shell outside any sandbox, so a directory IPython made for its profile would land on the host: it used to
create `/scratch/.ipython/profile_default` there, as root."""
import os, shutil, subprocess, sys
import pytest

if sys.platform != 'linux': pytest.skip('the sandbox layers are Linux kernel features', allow_module_level=True)

# a fresh interpreter: its template is started (and its shell warmed up) inside the test's own view of /scratch
SESSION = ('from toolcall_lib.interp import Sandbox\n'
           'with Sandbox() as box: assert box.run("import IPython; 1 + 1").value == "2"\n')


def test_a_session_creates_nothing_under_the_scratch_path_on_the_host():
    if not os.path.exists('/scratch'):
        completed = subprocess.run([sys.executable, '-c', SESSION], capture_output=True, text=True, timeout=120, cwd='/')
        assert completed.returncode == 0, completed.stderr[-2000:]
        assert not os.path.exists('/scratch')
        return
    # /scratch exists (made by an older version, say): look at what a session adds, in a mount namespace of its own
    # with an empty tmpfs over /scratch, which nothing outside it sees
    if os.geteuid() != 0 or not shutil.which('unshare'): pytest.skip('needs root and unshare(1) to look under an existing /scratch')
    script = f'mount -t tmpfs none /scratch && {sys.executable} -c "$0" && ls -A /scratch'
    completed = subprocess.run(['unshare', '--mount', '--propagation', 'private', 'sh', '-c', script, SESSION],
                               capture_output=True, text=True, timeout=120, cwd='/')
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert completed.stdout == ''  # it listed .ipython
