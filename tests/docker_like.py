"""A launcher that makes this process look like a process in a Docker container with the default profile, then runs a
command: `python docker_like.py [--allow-namespaces] COMMAND ARGS...`.

Docker's default seccomp profile (for a container without CAP_SYS_ADMIN) refuses the namespace and mount system
calls with EPERM (`unshare`, `setns`, `mount`, `umount2`, `pivot_root` and the new mount API), refuses `clone` when
its flags ask for a new namespace, and answers `clone3` with ENOSYS (so the C library falls back to `clone`, whose
flags the filter can see). This launcher installs a filter with those rules (after `no_new_privs`, as Docker does)
and execs the command, which inherits it. With `--allow-namespaces` it installs no namespace rule, only drops
CAP_SYS_ADMIN from the bounding set: a container whose profile allows user namespaces."""
import ctypes, os, sys

SYSCALLS = {  # machine -> the numbers this filter needs (arch/x86/entry/syscalls/syscall_64.tbl; asm-generic/unistd.h)
    'x86_64': dict(unshare=272, setns=308, mount=165, umount2=166, pivot_root=155, open_tree=428, move_mount=429, fsopen=430,
                   fsconfig=431, fsmount=432, fspick=433, mount_setattr=442, clone=56, clone3=435),
    'aarch64': dict(unshare=97, setns=268, mount=40, umount2=39, pivot_root=41, open_tree=428, move_mount=429, fsopen=430,
                    fsconfig=431, fsmount=432, fspick=433, mount_setattr=442, clone=220, clone3=435)}
AUDIT_ARCH = {'x86_64': 0xc000003e, 'aarch64': 0xc00000b7}
REFUSED = ('unshare', 'setns', 'mount', 'umount2', 'pivot_root', 'open_tree', 'move_mount', 'fsopen', 'fsconfig', 'fsmount',
           'fspick', 'mount_setattr')
CLONE_NAMESPACE_FLAGS = 0x7e020000  # CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
LD_W_ABS, JEQ_K, JSET_K, RET_K = 0x20, 0x15, 0x45, 0x06
ALLOW, EPERM, ENOSYS = 0x7fff0000, 0x00050000 | 1, 0x00050000 | 38
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, PR_CAPBSET_DROP, CAP_SYS_ADMIN = 38, 22, 2, 24, 21


class SockFilter(ctypes.Structure):
    _fields_ = [('code', ctypes.c_uint16), ('jt', ctypes.c_uint8), ('jf', ctypes.c_uint8), ('k', ctypes.c_uint32)]

class SockFprog(ctypes.Structure):
    _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.POINTER(SockFilter))]


def program(machine:str) -> list:
    "The filter's BPF instructions (code, jt, jf, k) for `machine`."
    numbers = SYSCALLS[machine]
    steps = [(LD_W_ABS, 0, 0, 4), (JEQ_K, 1, 0, AUDIT_ARCH[machine]), (RET_K, 0, 0, EPERM), (LD_W_ABS, 0, 0, 0)]
    for name in REFUSED: steps += [(JEQ_K, 0, 1, numbers[name]), (RET_K, 0, 0, EPERM)]
    steps += [(JEQ_K, 0, 1, numbers['clone3']), (RET_K, 0, 0, ENOSYS)]
    steps += [(JEQ_K, 0, 3, numbers['clone']), (LD_W_ABS, 0, 0, 16),  # clone's flags: the low word of its first argument
              (JSET_K, 0, 1, CLONE_NAMESPACE_FLAGS), (RET_K, 0, 0, EPERM)]
    return steps + [(RET_K, 0, 0, ALLOW)]


def install(allow_namespaces:bool=False):
    "Make this process (and what it execs) look like a process in a default Docker container."
    libc = ctypes.CDLL(None, use_errno=True)
    def check(result, what):
        if result != 0: raise OSError(ctypes.get_errno(), f'{what}: {os.strerror(ctypes.get_errno())}')
    if os.geteuid() == 0: check(libc.prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0), 'PR_CAPBSET_DROP')
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 'PR_SET_NO_NEW_PRIVS')
    if allow_namespaces: return
    steps = program(os.uname().machine)
    instructions = (SockFilter * len(steps))(*[SockFilter(*step) for step in steps])
    check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(SockFprog(len(steps), instructions)), 0, 0), 'PR_SET_SECCOMP')


if __name__ == '__main__':
    arguments = sys.argv[1:]
    allow_namespaces = arguments[:1] == ['--allow-namespaces']
    if allow_namespaces: arguments = arguments[1:]
    install(allow_namespaces)
    os.execvp(arguments[0], arguments)
