//! The app process's freed heap, given back to the system once it is idle
//! (issue 56).
//!
//! glibc returns freed memory by itself only from the top of its heap: after
//! a long run, pages freed below a block still in use stay resident for as
//! long as the app lives. The desktop app runs with one malloc arena
//! (`MALLOC_ARENA_MAX=1`, src-tauri/src/webkit_env.rs), so that is one heap.
//! Measured (`BENCH_VIEWS=run npm run bench:soak`, a 2 000-step run): the
//! app process held +15 MB of heap after the run; `malloc_trim(0)` once the
//! page was idle took it from 22.5 to 13.7 MB, below its size before the run.
//!
//! Why `unsafe` here, in a workspace that forbids it: the call is a foreign
//! function, so Rust cannot see that it is sound, and no maintained crate
//! wraps it. It takes no pointer and only walks glibc's own free lists under
//! their locks. It is the only `unsafe` in BearAgent; this crate exists so
//! that the exception is this one function, named in house.toml.

/// Hands the pages glibc holds free back to the system. Call only when the
/// process is idle: glibc locks the heap while it walks it (milliseconds),
/// so an allocating thread waits meanwhile. True when anything was given
/// back; false also where there is no glibc (other allocators return
/// memory themselves).
pub fn give_back_freed() -> bool {
    trim()
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code, reason = "malloc_trim is FFI; see the module's doc")]
fn trim() -> bool {
    // SAFETY: malloc_trim(0) takes no pointer, has no precondition, and is
    // thread-safe: glibc holds each arena's lock while it trims it.
    unsafe { libc::malloc_trim(0) == 1 }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::give_back_freed;

    /// The process's resident size (kB), from /proc.
    fn resident_kb() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    /// 64 MB in 16 KB blocks (below the mmap threshold: on the heap), a
    /// live block allocated after them, then all but that one freed: the
    /// freed pages sit below a block in use, where only a trim returns them.
    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn pages_freed_below_a_live_block_are_given_back() {
        let blocks: Vec<Vec<u8>> = (0..4_096)
            .map(|i| vec![(i % 250) as u8 + 1; 16 * 1024])
            .collect();
        let live = vec![7u8; 1024];
        drop(blocks);
        let freed = resident_kb();
        assert!(give_back_freed(), "pages were freed below a live block");
        let trimmed = resident_kb();
        assert!(
            trimmed + 32 * 1024 < freed,
            "resident {freed} kB before the trim, {trimmed} kB after"
        );
        assert_eq!(live[0], 7);
    }
}
