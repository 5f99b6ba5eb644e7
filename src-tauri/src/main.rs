// Hide the console window of release builds on Windows.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

// A long-lived process with many threads: mimalloc returns freed memory to
// the system where glibc's per-thread arenas kept it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    bearagent_desktop::run()
}
