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
