"""Nothing outlives the host (issue 25, item 3): when the host process dies at any moment, mid-cell included, every
process of its sessions ends within seconds, and the cgroups it made for them are removed. (The reaper between the
bootstrap and the worker used to lose its parent-death signal when it changed uid, so a killed host left its worker,
the processes a cell had started and their cgroups behind.)"""
import glob, json, os, signal, subprocess, sys, time
import pytest

if sys.platform != 'linux': pytest.skip('the sandbox layers are Linux kernel features', allow_module_level=True)

HOST = '''
import json
from toolcall_lib.interp import Sandbox
box = Sandbox()
print(json.dumps({'worker': box._worker.pid}), flush=True)
box.run('import subprocess, time\\nsubprocess.Popen(["sleep", "300"])\\ntime.sleep(300)', timeout=600)
'''


def parent_of(pid:int) -> int:
    with open(f'/proc/{pid}/stat') as file: return int(file.read().rsplit(')', 1)[1].split()[1])


def descendants(pid:int) -> set:
    "Every process below `pid`, as the host's /proc shows them."
    children = {}
    for path in glob.glob('/proc/[0-9]*/stat'):
        try: child = int(path.split('/')[2]); children.setdefault(parent_of(child), set()).add(child)
        except (OSError, ValueError, IndexError): continue
    found, pending = set(), [pid]
    while pending:
        for child in children.get(pending.pop(), ()):
            if child not in found: found.add(child); pending.append(child)
    return found


def alive(pid:int) -> bool:
    "True while `pid` exists and is not a zombie."
    try:
        with open(f'/proc/{pid}/stat') as file: return file.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except (FileNotFoundError, ProcessLookupError): return False


def test_killing_the_host_mid_cell_ends_every_process_of_its_sessions():
    host = subprocess.Popen([sys.executable, '-c', HOST], stdout=subprocess.PIPE, text=True, cwd='/')
    try:
        worker = json.loads(host.stdout.readline())['worker']
        deadline = time.monotonic() + 10
        while not descendants(worker) and time.monotonic() < deadline: time.sleep(0.05)  # the cell's `sleep` started
        session = {parent_of(worker), worker} | descendants(worker)  # the reaper, the worker, what the cell started
        assert len(session) >= 3, session
        host.send_signal(signal.SIGKILL); host.wait()
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in session) and time.monotonic() < deadline: time.sleep(0.05)
        assert [pid for pid in session if alive(pid)] == []
        if os.geteuid() == 0:  # the host made cgroups for its session: they are gone too
            deadline = time.monotonic() + 5
            leftovers = lambda: glob.glob(f'/sys/fs/cgroup/**/toolcall-sandbox-{host.pid}-*', recursive=True)
            while leftovers() and time.monotonic() < deadline: time.sleep(0.05)
            assert leftovers() == []
    finally:
        if host.poll() is None: host.kill(); host.wait()
