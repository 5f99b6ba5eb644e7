//! How WebKitGTK runs the window's page, chosen before it starts: settings
//! its web process reads from the environment it inherits. A value the
//! user set is always kept.
//!
//! Painting. Without a GPU render node, WebKit's Skia paints its tiles on
//! software GL (llvmpipe). Measured on such a machine (tests/desktop, `npm
//! run bench:memory` and `bench:timeline`, same machine state): painting
//! them on the CPU instead holds ≈ 30 MB less in the idle web process (166
//! vs 198 MB) and scrolls the timeline at a p95 frame of 71 ms against
//! 92 ms. So without one, the app asks WebKit for CPU painting (accelerated
//! compositing stays on: turning that off made the web process die under
//! WebDriver); `WEBKIT_SKIA_ENABLE_CPU_RENDERING=0` restores the default.
//!
//! The JavaScript heap. On a machine with 16 GB of RAM or more,
//! JavaScriptCore grows its heap "aggressively": about three times what
//! survived the last full collection before it collects again. A browser
//! tab lives minutes; this page lives as long as the app. Measured (GC log,
//! `JSC_logGC=1`, one scroll pass over a finished 12 000-event run on a
//! 24 GB machine): ≈ 17.5 MB survives each full collection, yet the heap
//! reached 175 MB between them, and the web process held +106 MB after the
//! pass. With the threshold of that mode out of reach the heap peaks at
//! ≈ 55 MB and the web process holds +36 to +61 MB (`npm run
//! bench:scroll-memory`); the same pass in the blank window's plain list
//! adds +27 MB. `JSC_aggressiveHeapThresholdInMB=16384` restores the
//! default.

const CPU_PAINTING: &str = "WEBKIT_SKIA_ENABLE_CPU_RENDERING";
const AGGRESSIVE_HEAP_THRESHOLD: &str = "JSC_aggressiveHeapThresholdInMB";
/// 1 TiB: no machine reaches it, so the heap grows by JavaScriptCore's
/// default factors instead.
const NO_AGGRESSIVE_HEAP: &str = "1048576";

/// Whether to ask for CPU painting: no render node, and the user did not choose.
fn paint_on_cpu(has_render_node: bool, user_chose: bool) -> bool {
    !has_render_node && !user_chose
}

fn has_render_node() -> bool {
    std::fs::read_dir("/dev/dri").is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

fn user_chose(name: &str) -> bool {
    std::env::var_os(name).is_some()
}

/// Call first in `run`, before any thread starts: it sets variables of the
/// process's environment, which WebKit's web process inherits.
pub fn choose() {
    if !cfg!(target_os = "linux") {
        return;
    }
    if paint_on_cpu(has_render_node(), user_chose(CPU_PAINTING)) {
        std::env::set_var(CPU_PAINTING, "1");
    }
    if !user_chose(AGGRESSIVE_HEAP_THRESHOLD) {
        std::env::set_var(AGGRESSIVE_HEAP_THRESHOLD, NO_AGGRESSIVE_HEAP);
    }
}

#[cfg(test)]
mod tests {
    use super::paint_on_cpu;

    #[test]
    fn cpu_painting_is_asked_for_only_without_a_render_node_and_without_a_choice() {
        assert!(paint_on_cpu(false, false));
        assert!(!paint_on_cpu(true, false), "a GPU paints");
        assert!(!paint_on_cpu(false, true), "the user chose");
    }
}
