// The seccomp filter of a worker process (docs/harness.md, "The boundary"): installed by the
// worker's own code after its CUDA context exists and before the implementation is loaded, so
// that the loaded code (static constructors included) can never trace, signal or write to
// another process, open a file for writing, map or re-protect memory as executable, start a
// thread or a process, install a signal handler or a timer, or reach the network. Plain C++17
// (Linux), unit-tested without a GPU (tests/gpu/test_sandbox_filter.cpp).
//
// The judge does not rely on this filter for its verdicts: the worker holds nothing the judge
// trusts. The filter keeps a hostile worker from reaching the judge and the rest of the machine,
// and turns an attempt into a refusal the report can name.
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace socratic::harness {

/// Exit status of a worker that tried a refused system call (its SIGSYS handler exits with it).
constexpr int sandbox_exit_code = 97;

/// When the filter goes on: `load` before the implementation is loaded (the dynamic loader
/// still maps the library's code, read-only opens are allowed); `run` after it, until the end
/// (nothing may become executable any more). The two stack: `run` only adds refusals.
enum class SandboxPhase { load, run };

/// A refused call as the worker reports it (written by the SIGSYS handler, see below).
struct SandboxRefusalRecord {
  std::uint32_t magic = 0x53425846u;  // "SBXF"
  std::int32_t syscall_nr = -1;
  std::uint64_t arg0 = 0, arg2 = 0;
};

namespace detail {

struct NamedSyscall {
  long nr;
  const char* name;
};

// Refused whatever their arguments. Guarded: not every architecture has every call.
inline const std::vector<NamedSyscall>& always_refused() {
  static const std::vector<NamedSyscall> list = {
#define SOCRATIC_REFUSE(name) {__NR_##name, #name},
#ifdef __NR_ptrace
      SOCRATIC_REFUSE(ptrace)
#endif
#ifdef __NR_process_vm_readv
      SOCRATIC_REFUSE(process_vm_readv)
#endif
#ifdef __NR_process_vm_writev
      SOCRATIC_REFUSE(process_vm_writev)
#endif
#ifdef __NR_process_madvise
      SOCRATIC_REFUSE(process_madvise)
#endif
#ifdef __NR_kcmp
      SOCRATIC_REFUSE(kcmp)
#endif
#ifdef __NR_pidfd_open
      SOCRATIC_REFUSE(pidfd_open)
#endif
#ifdef __NR_pidfd_getfd
      SOCRATIC_REFUSE(pidfd_getfd)
#endif
#ifdef __NR_pidfd_send_signal
      SOCRATIC_REFUSE(pidfd_send_signal)
#endif
#ifdef __NR_sched_setaffinity
      SOCRATIC_REFUSE(sched_setaffinity)  // the judge puts both workers on one CPU (worker_link.hpp)
#endif
#ifdef __NR_execve
      SOCRATIC_REFUSE(execve)
#endif
#ifdef __NR_execveat
      SOCRATIC_REFUSE(execveat)
#endif
#ifdef __NR_fork
      SOCRATIC_REFUSE(fork)
#endif
#ifdef __NR_vfork
      SOCRATIC_REFUSE(vfork)
#endif
#ifdef __NR_clone
      SOCRATIC_REFUSE(clone)
#endif
#ifdef __NR_tkill
      SOCRATIC_REFUSE(tkill)
#endif
#ifdef __NR_rt_sigqueueinfo
      SOCRATIC_REFUSE(rt_sigqueueinfo)
#endif
#ifdef __NR_rt_tgsigqueueinfo
      SOCRATIC_REFUSE(rt_tgsigqueueinfo)
#endif
#ifdef __NR_rt_sigaction
      SOCRATIC_REFUSE(rt_sigaction)
#endif
#ifdef __NR_signal
      SOCRATIC_REFUSE(signal)
#endif
#ifdef __NR_timer_create
      SOCRATIC_REFUSE(timer_create)
#endif
#ifdef __NR_timer_settime
      SOCRATIC_REFUSE(timer_settime)
#endif
#ifdef __NR_setitimer
      SOCRATIC_REFUSE(setitimer)
#endif
#ifdef __NR_alarm
      SOCRATIC_REFUSE(alarm)
#endif
#ifdef __NR_timerfd_create
      SOCRATIC_REFUSE(timerfd_create)
#endif
#ifdef __NR_socket
      SOCRATIC_REFUSE(socket)
#endif
#ifdef __NR_socketpair
      SOCRATIC_REFUSE(socketpair)
#endif
#ifdef __NR_connect
      SOCRATIC_REFUSE(connect)
#endif
#ifdef __NR_bind
      SOCRATIC_REFUSE(bind)
#endif
#ifdef __NR_listen
      SOCRATIC_REFUSE(listen)
#endif
#ifdef __NR_accept
      SOCRATIC_REFUSE(accept)
#endif
#ifdef __NR_accept4
      SOCRATIC_REFUSE(accept4)
#endif
#ifdef __NR_shmat
      SOCRATIC_REFUSE(shmat)
#endif
#ifdef __NR_shmget
      SOCRATIC_REFUSE(shmget)
#endif
#ifdef __NR_memfd_create
      SOCRATIC_REFUSE(memfd_create)
#endif
#ifdef __NR_memfd_secret
      SOCRATIC_REFUSE(memfd_secret)
#endif
#ifdef __NR_personality
      SOCRATIC_REFUSE(personality)
#endif
#ifdef __NR_modify_ldt
      SOCRATIC_REFUSE(modify_ldt)
#endif
#ifdef __NR_remap_file_pages
      SOCRATIC_REFUSE(remap_file_pages)
#endif
#ifdef __NR_userfaultfd
      SOCRATIC_REFUSE(userfaultfd)
#endif
#ifdef __NR_io_uring_setup
      SOCRATIC_REFUSE(io_uring_setup)
#endif
#ifdef __NR_io_uring_enter
      SOCRATIC_REFUSE(io_uring_enter)
#endif
#ifdef __NR_io_uring_register
      SOCRATIC_REFUSE(io_uring_register)
#endif
#ifdef __NR_bpf
      SOCRATIC_REFUSE(bpf)
#endif
#ifdef __NR_perf_event_open
      SOCRATIC_REFUSE(perf_event_open)
#endif
#ifdef __NR_unshare
      SOCRATIC_REFUSE(unshare)
#endif
#ifdef __NR_setns
      SOCRATIC_REFUSE(setns)
#endif
#ifdef __NR_mount
      SOCRATIC_REFUSE(mount)
#endif
#ifdef __NR_umount2
      SOCRATIC_REFUSE(umount2)
#endif
#ifdef __NR_pivot_root
      SOCRATIC_REFUSE(pivot_root)
#endif
#ifdef __NR_chroot
      SOCRATIC_REFUSE(chroot)
#endif
#ifdef __NR_open_tree
      SOCRATIC_REFUSE(open_tree)
#endif
#ifdef __NR_move_mount
      SOCRATIC_REFUSE(move_mount)
#endif
#ifdef __NR_fsopen
      SOCRATIC_REFUSE(fsopen)
#endif
#ifdef __NR_fsmount
      SOCRATIC_REFUSE(fsmount)
#endif
#ifdef __NR_keyctl
      SOCRATIC_REFUSE(keyctl)
#endif
#ifdef __NR_add_key
      SOCRATIC_REFUSE(add_key)
#endif
#ifdef __NR_request_key
      SOCRATIC_REFUSE(request_key)
#endif
#ifdef __NR_creat
      SOCRATIC_REFUSE(creat)
#endif
#ifdef __NR_unlink
      SOCRATIC_REFUSE(unlink)
#endif
#ifdef __NR_unlinkat
      SOCRATIC_REFUSE(unlinkat)
#endif
#ifdef __NR_rename
      SOCRATIC_REFUSE(rename)
#endif
#ifdef __NR_renameat
      SOCRATIC_REFUSE(renameat)
#endif
#ifdef __NR_renameat2
      SOCRATIC_REFUSE(renameat2)
#endif
#ifdef __NR_link
      SOCRATIC_REFUSE(link)
#endif
#ifdef __NR_linkat
      SOCRATIC_REFUSE(linkat)
#endif
#ifdef __NR_symlink
      SOCRATIC_REFUSE(symlink)
#endif
#ifdef __NR_symlinkat
      SOCRATIC_REFUSE(symlinkat)
#endif
#ifdef __NR_mkdir
      SOCRATIC_REFUSE(mkdir)
#endif
#ifdef __NR_mkdirat
      SOCRATIC_REFUSE(mkdirat)
#endif
#ifdef __NR_rmdir
      SOCRATIC_REFUSE(rmdir)
#endif
#ifdef __NR_mknod
      SOCRATIC_REFUSE(mknod)
#endif
#ifdef __NR_mknodat
      SOCRATIC_REFUSE(mknodat)
#endif
#ifdef __NR_chmod
      SOCRATIC_REFUSE(chmod)
#endif
#ifdef __NR_fchmod
      SOCRATIC_REFUSE(fchmod)
#endif
#ifdef __NR_fchmodat
      SOCRATIC_REFUSE(fchmodat)
#endif
#ifdef __NR_chown
      SOCRATIC_REFUSE(chown)
#endif
#ifdef __NR_fchown
      SOCRATIC_REFUSE(fchown)
#endif
#ifdef __NR_lchown
      SOCRATIC_REFUSE(lchown)
#endif
#ifdef __NR_fchownat
      SOCRATIC_REFUSE(fchownat)
#endif
#ifdef __NR_truncate
      SOCRATIC_REFUSE(truncate)
#endif
#ifdef __NR_setxattr
      SOCRATIC_REFUSE(setxattr)
#endif
#ifdef __NR_lsetxattr
      SOCRATIC_REFUSE(lsetxattr)
#endif
#ifdef __NR_fsetxattr
      SOCRATIC_REFUSE(fsetxattr)
#endif
#ifdef __NR_removexattr
      SOCRATIC_REFUSE(removexattr)
#endif
#ifdef __NR_lremovexattr
      SOCRATIC_REFUSE(lremovexattr)
#endif
#ifdef __NR_fremovexattr
      SOCRATIC_REFUSE(fremovexattr)
#endif
#ifdef __NR_utimensat
      SOCRATIC_REFUSE(utimensat)
#endif
#ifdef __NR_utimes
      SOCRATIC_REFUSE(utimes)
#endif
#ifdef __NR_utime
      SOCRATIC_REFUSE(utime)
#endif
#ifdef __NR_name_to_handle_at
      SOCRATIC_REFUSE(name_to_handle_at)
#endif
#ifdef __NR_open_by_handle_at
      SOCRATIC_REFUSE(open_by_handle_at)
#endif
#ifdef __NR_fanotify_init
      SOCRATIC_REFUSE(fanotify_init)
#endif
#ifdef __NR_setuid
      SOCRATIC_REFUSE(setuid)
#endif
#ifdef __NR_setgid
      SOCRATIC_REFUSE(setgid)
#endif
#ifdef __NR_setreuid
      SOCRATIC_REFUSE(setreuid)
#endif
#ifdef __NR_setregid
      SOCRATIC_REFUSE(setregid)
#endif
#ifdef __NR_setresuid
      SOCRATIC_REFUSE(setresuid)
#endif
#ifdef __NR_setresgid
      SOCRATIC_REFUSE(setresgid)
#endif
#ifdef __NR_setgroups
      SOCRATIC_REFUSE(setgroups)
#endif
#ifdef __NR_capset
      SOCRATIC_REFUSE(capset)
#endif
#ifdef __NR_reboot
      SOCRATIC_REFUSE(reboot)
#endif
#ifdef __NR_kexec_load
      SOCRATIC_REFUSE(kexec_load)
#endif
#ifdef __NR_kexec_file_load
      SOCRATIC_REFUSE(kexec_file_load)
#endif
#ifdef __NR_init_module
      SOCRATIC_REFUSE(init_module)
#endif
#ifdef __NR_finit_module
      SOCRATIC_REFUSE(finit_module)
#endif
#ifdef __NR_delete_module
      SOCRATIC_REFUSE(delete_module)
#endif
#ifdef __NR_swapon
      SOCRATIC_REFUSE(swapon)
#endif
#ifdef __NR_swapoff
      SOCRATIC_REFUSE(swapoff)
#endif
#ifdef __NR_acct
      SOCRATIC_REFUSE(acct)
#endif
#ifdef __NR_quotactl
      SOCRATIC_REFUSE(quotactl)
#endif
#ifdef __NR_iopl
      SOCRATIC_REFUSE(iopl)
#endif
#ifdef __NR_ioperm
      SOCRATIC_REFUSE(ioperm)
#endif
#ifdef __NR_syslog
      SOCRATIC_REFUSE(syslog)
#endif
#undef SOCRATIC_REFUSE
  };
  return list;
}

// Calls with conditions (the block that checks each is in build_filter below).
inline const std::vector<NamedSyscall>& conditional() {
  static const std::vector<NamedSyscall> list = {
      {__NR_mmap, "mmap"},         {__NR_mprotect, "mprotect"},
#ifdef __NR_pkey_mprotect
      {__NR_pkey_mprotect, "pkey_mprotect"},
#endif
#ifdef __NR_open
      {__NR_open, "open"},
#endif
      {__NR_openat, "openat"},     {__NR_kill, "kill"},
      {__NR_tgkill, "tgkill"},     {__NR_prctl, "prctl"},
#ifdef __NR_seccomp
      {__NR_seccomp, "seccomp"},
#endif
  };
  return list;
}

#if defined(__x86_64__)
constexpr std::uint32_t audit_arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr std::uint32_t audit_arch = AUDIT_ARCH_AARCH64;
#else
#error "sandbox_filter.hpp: unsupported architecture (x86_64 and aarch64 are known)"
#endif

constexpr std::uint32_t ret_allow = SECCOMP_RET_ALLOW;
constexpr std::uint32_t ret_trap = SECCOMP_RET_TRAP;
constexpr std::uint32_t ret_kill = SECCOMP_RET_KILL_PROCESS;
constexpr std::uint32_t ret_enosys = SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);

constexpr std::uint32_t nr_offset = offsetof(struct seccomp_data, nr);
constexpr std::uint32_t arch_offset = offsetof(struct seccomp_data, arch);
// The low and high 32 bits of argument i (little-endian: the low word first).
inline std::uint32_t arg_low(int i) {
  return static_cast<std::uint32_t>(offsetof(struct seccomp_data, args) + 8 * i);
}
inline std::uint32_t arg_high(int i) { return arg_low(i) + 4; }

using Program = std::vector<sock_filter>;

inline sock_filter stmt(std::uint16_t code, std::uint32_t k) { return BPF_STMT(code, k); }
inline sock_filter jump(std::uint16_t code, std::uint32_t k, std::uint8_t jt, std::uint8_t jf) {
  return BPF_JUMP(code, k, jt, jf);
}
inline sock_filter ret(std::uint32_t action) { return stmt(BPF_RET | BPF_K, action); }

/// `if ((arg & mask) != 0) return action;` on the low word of argument i (flags and protections
/// fit in 32 bits), then falls through.
inline void refuse_if_any_bit(Program& p, int i, std::uint32_t mask, std::uint32_t action) {
  p.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, arg_low(i)));
  p.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, mask, 0, 1));
  p.push_back(ret(action));
}

/// `return (argument i == value) ? allow : action;` comparing all 64 bits.
inline void allow_only_value(Program& p, int i, std::uint64_t value, std::uint32_t action) {
  p.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, arg_high(i)));
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(value >> 32), 0, 3));
  p.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, arg_low(i)));
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(value), 0, 1));
  p.push_back(ret(ret_allow));
  p.push_back(ret(action));
}

/// Appends `if (nr == syscall) { block }` (the block always returns).
inline void guarded_block(Program& p, long nr, const Program& block) {
  p.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, nr_offset));
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(nr), 0,
                   static_cast<std::uint8_t>(block.size())));
  p.insert(p.end(), block.begin(), block.end());
}

// prctl options a worker may use: naming (glibc, the CUDA runtime), reading its own state.
constexpr std::uint32_t allowed_prctl[] = {PR_SET_NAME,      PR_GET_NAME,     PR_GET_DUMPABLE,
                                           PR_GET_NO_NEW_PRIVS, PR_GET_SECCOMP, PR_CAPBSET_READ,
                                           PR_GET_TIMERSLACK, 0x53564d41 /* PR_SET_VMA */};

// Open flags that write or create.
constexpr std::uint32_t open_write_flags =
    O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND
#ifdef __O_TMPFILE
    | __O_TMPFILE
#endif
    ;

}  // namespace detail

/// @brief The BPF program for a phase (exposed for tests). `self` is the worker's pid: the only
/// process kill() and tgkill() may name.
inline std::vector<sock_filter> sandbox_filter_program(SandboxPhase phase, pid_t self) {
  using namespace detail;
  Program p;
  // Foreign architectures (a 32-bit entry into a 64-bit process) are killed outright.
  p.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, arch_offset));
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, audit_arch, 1, 0));
  p.push_back(ret(ret_kill));
  p.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, nr_offset));
#if defined(__x86_64__)
  p.push_back(jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));  // the x32 ABI
  p.push_back(ret(ret_kill));
#endif
  // clone3 takes its flags in memory the filter cannot read: ENOSYS makes glibc fall back to
  // clone, which is refused below with a name in the report.
#ifdef __NR_clone3
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1));
  p.push_back(ret(ret_enosys));
#endif
#ifdef __NR_openat2
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat2, 0, 1));
  p.push_back(ret(ret_enosys));
#endif
  for (const auto& s : always_refused()) {
    p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(s.nr), 0, 1));
    p.push_back(ret(ret_trap));
  }

  {  // mmap: no executable anonymous or writable mapping while loading; nothing executable after.
    Program b;
    if (phase == SandboxPhase::run) {
      refuse_if_any_bit(b, 2, PROT_EXEC, ret_trap);
    } else {
      b.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, arg_low(2)));
      b.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 5));  // not executable: allow
      b.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, PROT_WRITE, 3, 0));  // writable and executable
      b.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, arg_low(3)));
      b.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, MAP_ANONYMOUS, 1, 0));  // executable, no file
      b.push_back(ret(ret_allow));
      b.push_back(ret(ret_trap));
    }
    b.push_back(ret(ret_allow));
    guarded_block(p, __NR_mmap, b);
  }
  // mprotect never adds execute: the loader maps code executable from the start.
  for (long nr : {static_cast<long>(__NR_mprotect)
#ifdef __NR_pkey_mprotect
                      ,
                  static_cast<long>(__NR_pkey_mprotect)
#endif
       }) {
    Program b;
    refuse_if_any_bit(b, 2, PROT_EXEC, ret_trap);
    b.push_back(ret(ret_allow));
    guarded_block(p, nr, b);
  }
  {  // Files open read-only (the loader, the CUDA runtime's own reads); never for writing.
    Program b;
    refuse_if_any_bit(b, 2, open_write_flags, ret_trap);
    b.push_back(ret(ret_allow));
    guarded_block(p, __NR_openat, b);
#ifdef __NR_open
    Program o;
    refuse_if_any_bit(o, 1, open_write_flags, ret_trap);
    o.push_back(ret(ret_allow));
    guarded_block(p, __NR_open, o);
#endif
  }
  {  // Signals only to itself (abort() raises SIGABRT with tgkill on its own pid).
    Program k;
    allow_only_value(k, 0, static_cast<std::uint64_t>(self), ret_trap);
    guarded_block(p, __NR_kill, k);
    Program t;
    allow_only_value(t, 0, static_cast<std::uint64_t>(self), ret_trap);
    guarded_block(p, __NR_tgkill, t);
  }
  {  // prctl: a short list of harmless options.
    Program b;
    b.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, arg_low(0)));
    const std::size_t n = std::size(allowed_prctl);
    for (std::size_t i = 0; i < n; ++i)
      b.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, allowed_prctl[i],
                       static_cast<std::uint8_t>(n - i), 0));
    b.push_back(ret(ret_trap));
    b.push_back(ret(ret_allow));
    guarded_block(p, __NR_prctl, b);
  }
#ifdef __NR_seccomp
  {  // The worker installs the run phase itself, after loading; nothing may add filters later.
    Program b;
    b.push_back(ret(phase == SandboxPhase::load ? ret_allow : ret_trap));
    guarded_block(p, __NR_seccomp, b);
  }
#endif
  p.push_back(ret(ret_allow));
  return p;
}

/// @brief The name of a system call the filter refuses ("mprotect"), or "syscall N".
inline std::string sandbox_syscall_name(long nr) {
  for (const auto* list : {&detail::always_refused(), &detail::conditional()})
    for (const auto& s : *list)
      if (s.nr == nr) return s.name;
  return "syscall " + std::to_string(nr);
}

namespace detail {
inline int& sandbox_report_fd() {
  static int fd = -1;
  return fd;
}

extern "C" inline void socratic_sandbox_sigsys(int, siginfo_t* info, void* context) {
  SandboxRefusalRecord r;
  r.syscall_nr = info ? info->si_syscall : -1;
#if defined(__x86_64__)
  if (context) {
    const auto* uc = static_cast<const ucontext_t*>(context);
    r.arg0 = static_cast<std::uint64_t>(uc->uc_mcontext.gregs[REG_RDI]);
    r.arg2 = static_cast<std::uint64_t>(uc->uc_mcontext.gregs[REG_RDX]);
  }
#else
  (void)context;
#endif
  const int fd = sandbox_report_fd();
  if (fd >= 0) {
    ssize_t ignored = ::write(fd, &r, sizeof r);
    (void)ignored;
  }
  ::_exit(sandbox_exit_code);
}
}  // namespace detail

/// @brief Installs the handler that reports a refused call: it writes a SandboxRefusalRecord to
/// `report_fd` (one write, async-signal-safe) and exits with sandbox_exit_code. Call once,
/// before the first phase (the filter then refuses rt_sigaction to everyone after it).
inline bool install_sandbox_reporter(int report_fd, std::string& error) {
  detail::sandbox_report_fd() = report_fd;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = &detail::socratic_sandbox_sigsys;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSYS, &sa, nullptr) != 0) {
    error = std::string("sigaction(SIGSYS): ") + std::strerror(errno);
    return false;
  }
  return true;
}

/// @brief Drops every capability (effective, permitted, inheritable and the bounding set) and
/// sets no_new_privs, so that even a worker started by root cannot read another process's
/// memory through /proc or regain rights through exec. Idempotent.
inline bool drop_privileges(std::string& error) {
  for (int cap = 0; cap <= 63; ++cap) {
    if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0) break;  // past the last capability
    prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);                // fails without CAP_SETPCAP: fine
  }
  __user_cap_header_struct header{};
  header.version = _LINUX_CAPABILITY_VERSION_3;
  header.pid = 0;
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capset, &header, data) != 0) {
    error = std::string("capset: ") + std::strerror(errno);
    return false;
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    error = std::string("prctl(PR_SET_NO_NEW_PRIVS): ") + std::strerror(errno);
    return false;
  }
  return true;
}

/// @brief Installs the filter of `phase` for this process's calling thread and every thread it
/// starts later (the worker has only its main thread and the CUDA driver's own by then; TSYNC
/// puts the filter on those too). Needs no_new_privs (drop_privileges sets it).
inline bool install_sandbox_filter(SandboxPhase phase, std::string& error) {
  std::vector<sock_filter> program = sandbox_filter_program(phase, ::getpid());
  sock_fprog fprog{};
  fprog.len = static_cast<unsigned short>(program.size());
  fprog.filter = program.data();
  const long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &fprog);
  if (rc != 0) {
    error = std::string("seccomp(SECCOMP_SET_MODE_FILTER): ") +
            (rc > 0 ? "thread " + std::to_string(rc) + " could not be synchronised"
                    : std::string(std::strerror(errno)));
    return false;
  }
  return true;
}

}  // namespace socratic::harness
