"""The smaller holes of issue 25 (item 5), each checked from inside a real session: seccomp refuses `personality`
changes that weaken the process and `modify_ldt`; a cgroup namespace hides the host's pid and cgroup paths."""
import os, sys
import pytest

if sys.platform != 'linux': pytest.skip('the sandbox layers are Linux kernel features', allow_module_level=True)
from toolcall_lib.interp import Sandbox

LIBC = 'import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n'


@pytest.fixture(scope='module')
def sandbox():
    with Sandbox(require_isolation=True) as box:
        box.run(LIBC)
        yield box


def test_personality_may_be_read_but_not_weakened(sandbox):
    # ADDR_NO_RANDOMIZE would switch address-space layout randomisation off for what the cell runs next
    assert sandbox.run('libc.personality(0x0040000), ctypes.get_errno()').value == '(-1, 1)'
    assert sandbox.run('libc.personality(0x0400000), ctypes.get_errno()').value == '(-1, 1)'  # READ_IMPLIES_EXEC
    assert sandbox.run('libc.personality(0xffffffff)').value == '0'  # asking is fine: PER_LINUX
    assert sandbox.run('libc.personality(0)').value == '0'


@pytest.mark.skipif(os.uname().machine != 'x86_64', reason='modify_ldt exists on x86 only')
def test_modify_ldt_is_refused(sandbox):
    # modify_ldt(0 = read, buffer, size): answered by the kernel unless refused
    assert sandbox.run('buffer = ctypes.create_string_buffer(16)\n'
                       'libc.syscall(154, 0, buffer, 16), ctypes.get_errno()').value == '(-1, 1)'


def test_the_cgroup_view_shows_neither_host_pid_nor_host_paths(sandbox):
    # a cgroup namespace rooted at the session's own cgroups: every hierarchy reads as "/" (it used to show, say,
    # "4:memory:/<host path>/toolcall-sandbox-<host pid>-1")
    lines = sandbox.run('print(open("/proc/self/cgroup").read(), end="")').output.splitlines()
    assert lines and all(line.split(':', 2)[2] == '/' for line in lines), lines


def test_a_cell_that_uses_up_its_descriptors_keeps_the_session():
    # the worker's own work after the cell needs no new descriptor: the session and its state survive (the worker
    # used to die listing /proc/self/task, and the host blamed the CPU limit)
    with Sandbox(require_isolation=True, max_open_files=64) as box:
        box.run('kept = 41')
        result = box.run('held = []\nwhile True: held.append(open("/dev/null"))')
        assert result.error.splitlines()[-1] == "OSError: [Errno 24] Too many open files: '/dev/null'", result.error
        assert not result.state_lost and result.notes == ()
        assert box.run('len(held) > 50, kept + 1').value == '(True, 42)'
        assert box.run('del held; open("/dev/null").close(); "descriptors back"').value == "'descriptors back'"


def test_a_worker_that_fails_after_a_cell_says_why():
    # whatever breaks the worker's own work after a cell (here the cell breaks it on purpose), the result names it
    # instead of guessing at the CPU limit
    with Sandbox(require_isolation=True) as box:
        result = box.run('import sys\nsys.modules["toolcall_sandbox.worker"]._end_child_processes = lambda: 1 / 0')
        assert result.state_lost and result.error == ('SandboxError: the sandbox worker failed in its own work after the cell '
                                                      "(ZeroDivisionError('division by zero')), so the session was restarted")
        assert box.run('1 + 1').value == '2'
