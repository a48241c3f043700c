"""The throwaway PostgreSQL server leaves nothing behind when the test run that made it is killed (SIGKILL: no
cleanup code of its own runs) or interrupted (SIGINT, as Ctrl-C sends to the whole process group)."""
import os, signal, subprocess, sys, time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
HOLDER = f'''
import os, sys, time
sys.path.insert(0, {str(HERE)!r})
from throwaway_postgres import ThrowawayPostgres
server = ThrowawayPostgres()
pid = int((server.data / 'postmaster.pid').read_text().split()[0])
print(server.directory, pid, flush=True)
with server: time.sleep(600)
'''


def _alive(pid: int) -> bool:
    try: os.kill(pid, 0)
    except ProcessLookupError: return False
    try:   # a zombie has exited; its parent (init) just has not reaped it yet
        return Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()[0] != 'Z'
    except FileNotFoundError: return False


@pytest.mark.parametrize('how', [signal.SIGKILL, signal.SIGINT])
def test_server_and_directory_go_with_their_parent(how):
    holder = subprocess.Popen([sys.executable, '-c', HOLDER], stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        directory, pid = holder.stdout.readline().split()
        directory, pid = Path(directory), int(pid)
        assert directory.is_dir() and _alive(pid)
        os.killpg(holder.pid, how)   # the whole group, as a terminal's Ctrl-C (or a killed CI job) would
        holder.wait(timeout=60)
        deadline = time.monotonic() + 60
        while (_alive(pid) or directory.exists()) and time.monotonic() < deadline: time.sleep(0.1)
        assert not _alive(pid), 'the postgres server outlived the process that started it'
        assert not directory.exists(), f'{directory} was left behind'
    finally:
        if holder.poll() is None: holder.kill(); holder.wait()
