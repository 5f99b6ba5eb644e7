//! The seccomp filter bubblewrap installs just before it execs the command
//! (so bwrap's own `unshare`/`mount` calls are not affected).
//!
//! Three seccompiler filters, each with its own errno, chained into one
//! classic-BPF program (seccompiler gives one action per filter):
//! - EPERM: debugging other processes (ptrace, process_vm_*), io_uring (a
//!   syscall surface that bypasses seccomp argument checks), mounting and the
//!   new mount API, namespaces (unshare, setns, clone with CLONE_NEW*), kernel
//!   keyrings, bpf, perf_event_open, userfaultfd, kexec, kernel modules.
//! - ENOSYS: clone3, whose flags live in memory seccomp cannot read; ENOSYS
//!   makes libc fall back to clone, whose flags are checked above.
//! - EAFNOSUPPORT (network off): socket() for any family but AF_UNIX.
//!
//! On x86_64 a guard in front also refuses x32-ABI syscall numbers, which
//! report the x86_64 audit arch and would otherwise slip past the numbers
//! matched here.

use super::error::SandboxError;
use seccompiler::{
    sock_filter, BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition,
    SeccompFilter, SeccompRule, TargetArch,
};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Refused outright with EPERM.
pub(super) const DENIED_SYSCALLS: &[(&str, i64)] = &[
    ("ptrace", libc::SYS_ptrace),
    ("process_vm_readv", libc::SYS_process_vm_readv),
    ("process_vm_writev", libc::SYS_process_vm_writev),
    ("io_uring_setup", libc::SYS_io_uring_setup),
    ("io_uring_enter", libc::SYS_io_uring_enter),
    ("io_uring_register", libc::SYS_io_uring_register),
    ("mount", libc::SYS_mount),
    ("umount2", libc::SYS_umount2),
    ("pivot_root", libc::SYS_pivot_root),
    ("chroot", libc::SYS_chroot),
    ("move_mount", libc::SYS_move_mount),
    ("open_tree", libc::SYS_open_tree),
    ("fsopen", libc::SYS_fsopen),
    ("fsconfig", libc::SYS_fsconfig),
    ("fsmount", libc::SYS_fsmount),
    ("fspick", libc::SYS_fspick),
    ("mount_setattr", libc::SYS_mount_setattr),
    ("unshare", libc::SYS_unshare),
    ("setns", libc::SYS_setns),
    ("keyctl", libc::SYS_keyctl),
    ("add_key", libc::SYS_add_key),
    ("request_key", libc::SYS_request_key),
    ("bpf", libc::SYS_bpf),
    ("perf_event_open", libc::SYS_perf_event_open),
    ("userfaultfd", libc::SYS_userfaultfd),
    ("kexec_load", libc::SYS_kexec_load),
    ("kexec_file_load", libc::SYS_kexec_file_load),
    ("init_module", libc::SYS_init_module),
    ("finit_module", libc::SYS_finit_module),
    ("delete_module", libc::SYS_delete_module),
];

/// clone() flags that create namespaces (CLONE_NEWTIME is left out: in
/// clone() that bit belongs to the exit signal; unshare is denied anyway).
const CLONE_NAMESPACE_FLAGS: &[libc::c_int] = &[
    libc::CLONE_NEWNS,
    libc::CLONE_NEWCGROUP,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
];

// Classic BPF opcodes and seccomp return values (linux/filter.h, seccomp.h).
const BPF_LD_W_ABS: u16 = 0x20;
const BPF_JMP_JA: u16 = 0x05;
const BPF_JMP_JEQ_K: u16 = 0x15;
const BPF_JMP_JGE_K: u16 = 0x35;
const BPF_RET_K: u16 = 0x06;
const X32_SYSCALL_BIT: u32 = 0x4000_0000;
const AUDIT_ARCH_X86_64: u32 = 0xC000_003E;

/// The filter as bytes for `bwrap --seccomp FD`, built once per variant.
pub(super) fn filter_bytes(network: bool) -> Result<&'static [u8], SandboxError> {
    static WITH_NET: OnceLock<Result<Vec<u8>, SandboxError>> = OnceLock::new();
    static WITHOUT_NET: OnceLock<Result<Vec<u8>, SandboxError>> = OnceLock::new();
    let cell = if network { &WITH_NET } else { &WITHOUT_NET };
    match cell.get_or_init(|| build(network).map(|program| to_bytes(&program))) {
        Ok(bytes) => Ok(bytes),
        Err(error) => Err(error.clone()),
    }
}

/// The chained program (public to the tests, which install it on a thread).
pub(super) fn build(network: bool) -> Result<BpfProgram, SandboxError> {
    let arch = target_arch()?;
    let mut eperm: BTreeMap<i64, Vec<SeccompRule>> = DENIED_SYSCALLS
        .iter()
        .map(|&(_, number)| (number, Vec::new())) // no rule: always matches
        .collect();
    let clone_rules = CLONE_NAMESPACE_FLAGS
        .iter()
        .map(|&flag| {
            let flag = u64::from(flag.unsigned_abs());
            rule(SeccompCmpOp::MaskedEq(flag), flag)
        })
        .collect::<Result<Vec<_>, _>>()?;
    eperm.insert(libc::SYS_clone, clone_rules);

    let mut programs = vec![
        compile(eperm, libc::EPERM, arch)?,
        compile(
            BTreeMap::from([(libc::SYS_clone3, Vec::new())]),
            libc::ENOSYS,
            arch,
        )?,
    ];
    if !network {
        let af_unix = u64::from(libc::AF_UNIX.unsigned_abs());
        let not_unix = vec![rule(SeccompCmpOp::Ne, af_unix)?];
        programs.push(compile(
            BTreeMap::from([(libc::SYS_socket, not_unix)]),
            libc::EAFNOSUPPORT,
            arch,
        )?);
    }
    let mut program = x32_guard(arch);
    program.extend(chain(programs));
    Ok(program)
}

fn target_arch() -> Result<TargetArch, SandboxError> {
    if cfg!(target_arch = "x86_64") {
        Ok(TargetArch::x86_64)
    } else if cfg!(target_arch = "aarch64") {
        Ok(TargetArch::aarch64)
    } else {
        Err(SandboxError::UnsupportedPlatform)
    }
}

/// A rule on the first argument (clone flags, socket domain), 32 bits wide.
fn rule(op: SeccompCmpOp, value: u64) -> Result<SeccompRule, SandboxError> {
    let condition =
        SeccompCondition::new(0, SeccompCmpArgLen::Dword, op, value).map_err(filter_error)?;
    SeccompRule::new(vec![condition]).map_err(filter_error)
}

/// A filter returning `errno` for the matching syscalls and allowing the rest.
fn compile(
    rules: BTreeMap<i64, Vec<SeccompRule>>,
    errno: i32,
    arch: TargetArch,
) -> Result<BpfProgram, SandboxError> {
    let errno = u32::try_from(errno).map_err(filter_error)?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno),
        arch,
    )
    .map_err(filter_error)?;
    BpfProgram::try_from(filter).map_err(filter_error)
}

/// Joins programs: every "allow" of one becomes a jump to the start of the
/// next, so a syscall is allowed only when all of them allow it. BPF jumps
/// are relative, so the programs' own jumps stay valid.
pub(super) fn chain(programs: Vec<BpfProgram>) -> BpfProgram {
    let count = programs.len();
    let mut out = BpfProgram::new();
    for (index, mut program) in programs.into_iter().enumerate() {
        if index + 1 < count {
            let len = program.len();
            for (at, instruction) in program.iter_mut().enumerate() {
                if instruction.code == BPF_RET_K && instruction.k == libc::SECCOMP_RET_ALLOW {
                    // Fits: the kernel caps programs at 4096 instructions.
                    let skip = u32::try_from(len - at - 1).unwrap_or(u32::MAX);
                    *instruction = stmt(BPF_JMP_JA, skip);
                }
            }
        }
        out.extend(program);
    }
    out
}

/// x86_64 only: refuse x32 syscall numbers (nr | 0x4000_0000) with ENOSYS.
fn x32_guard(arch: TargetArch) -> BpfProgram {
    if arch != TargetArch::x86_64 {
        return BpfProgram::new();
    }
    let enosys = libc::SECCOMP_RET_ERRNO | libc::ENOSYS.unsigned_abs();
    vec![
        stmt(BPF_LD_W_ABS, 4), // seccomp_data.arch
        jump(BPF_JMP_JEQ_K, AUDIT_ARCH_X86_64, 0, 3),
        stmt(BPF_LD_W_ABS, 0), // seccomp_data.nr
        jump(BPF_JMP_JGE_K, X32_SYSCALL_BIT, 0, 1),
        stmt(BPF_RET_K, enosys),
    ]
}

fn stmt(code: u16, k: u32) -> sock_filter {
    sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> sock_filter {
    sock_filter { code, jt, jf, k }
}

/// `struct sock_filter` in native byte order, as bwrap hands it to the kernel.
fn to_bytes(program: &[sock_filter]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(program.len() * 8);
    for instruction in program {
        bytes.extend_from_slice(&instruction.code.to_ne_bytes());
        bytes.push(instruction.jt);
        bytes.push(instruction.jf);
        bytes.extend_from_slice(&instruction.k.to_ne_bytes());
    }
    bytes
}

fn filter_error(error: impl std::fmt::Display) -> SandboxError {
    SandboxError::Unavailable {
        reason: format!("could not build the seccomp filter: {error}"),
        fix: "report this as a BearAgent bug".into(),
    }
}

#[cfg(test)]
#[path = "seccomp_tests.rs"]
mod tests;
