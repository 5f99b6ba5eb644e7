//! The app process's own C heap (issue 56, lever 7).
//!
//! glibc raises its mmap threshold each time a large block is freed, so
//! later large blocks land in its arenas, where freed memory stays
//! resident. A run's loop state is made of such blocks: after a 2 000-step
//! run the app process held +41 to +51 MB; started with the threshold fixed
//! at glibc's default value (`MALLOC_MMAP_THRESHOLD_=131072`, which turns
//! the growth off) it held about half that. glibc reads the variable only
//! when a process starts, and this crate forbids the `unsafe` a `mallopt`
//! call needs, so the app starts itself again with it set: one `exec` at
//! the very start, before any thread or window exists. The web process
//! inherits it too (`webkit_env`). A value the user set is kept, and no
//! second `exec` happens.

const THRESHOLD: (&str, &str) = ("MALLOC_MMAP_THRESHOLD_", "131072");

/// Call first in `main`. Returns only if the app is already started with the
/// variable set, or if starting it again failed (the app then runs as is).
pub fn restart_with_fixed_threshold() {
    if !cfg!(all(target_os = "linux", target_env = "gnu"))
        || std::env::var_os(THRESHOLD.0).is_some()
    {
        return;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let Ok(exe) = std::env::current_exe() else {
            return;
        };
        // `exec` returns only on failure; the app then starts without it.
        let error = std::process::Command::new(exe)
            .args(std::env::args_os().skip(1))
            .env(THRESHOLD.0, THRESHOLD.1)
            .exec();
        eprintln!("BearAgent could not restart itself with a fixed mmap threshold: {error}");
    }
}
