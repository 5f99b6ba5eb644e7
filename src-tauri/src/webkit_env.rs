//! How WebKitGTK runs the window's page, chosen before it starts: settings
//! its web process reads from the environment it inherits. A value the
//! user set is always kept.
//!
//! Painting. Without a GPU render node, WebKit's Skia paints its tiles on
//! software GL (llvmpipe). Measured on such a machine (tests/desktop, `npm
//! run bench:memory` and `bench:timeline`, same machine state): painting
//! them on the CPU instead holds ≈ 30 MB less in the idle web process (166
//! vs 198 MB) and scrolls the timeline at a p95 frame of 71 ms against
//! 92 ms. So without one, the app asks WebKit for CPU painting;
//! `WEBKIT_SKIA_ENABLE_CPU_RENDERING=0` restores the default.
//!
//! Compositing. Without a render node the app also turns WebKit's
//! accelerated compositing off (`WEBKIT_DISABLE_COMPOSITING_MODE=1`; `=0`
//! keeps it on). Composited, each scrolling pane keeps its own tiles and
//! the page its compositor's buffers, all painted on the CPU anyway here.
//! Measured (issue 56, release build, 2 cores): the idle web process held
//! 120.5 MB without compositing against 177.0 MB with it, and showing a
//! small run's Events tab added +1.5 MB against +11 MB. (It was kept on
//! at first because WebDriver sessions failed without it: WebKitWebDriver's
//! screenshot waits for the page's next repaint, which a still page never
//! makes; the test harness now asks for one.)
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
//! default. While a run streams in, the page's short-lived objects outlive
//! a young collection or two and pile up until a full one: the heap
//! climbed from ≈ 20 to ≈ 100 MB between full collections in the soak
//! (`npm run bench:soak`, 2 000 steps with the run open, GC log). With full
//! collections from 16 MiB and at 1.5 times what survived
//! (`JSC_largeHeapSize`, `JSC_smallHeapGrowthFactor`) it stays under
//! ≈ 50 MB, the run is as fast (58 steps/s), and in two soaks the web
//! process grew +128 and +131 MB instead of +144 to +157. From 8 MiB it
//! grew less (+113 to +126 MB) but the timeline's scroll pass had 2–9
//! times as many frames over 50 ms (`npm run bench:timeline`, 45 s passes).
//!
//! The C heap. Much of what the web process allocates outside the
//! JavaScript heap goes through glibc's malloc, which raises its mmap
//! threshold each time a large block is freed, so later large blocks land
//! in the arenas, where freed memory stays resident. Measured (smaps of the
//! web process during `npm run bench:soak`): a thread arena filled to its
//! 64 MB and stayed full after a page reload. A fixed threshold (glibc's
//! default value, 128 KiB) keeps large blocks in their own mappings,
//! returned on free: in three soaks the web process grew +144 to +157 MB
//! instead of +171 to +184, and the tree held +84 to +127 MB instead of
//! +142 after a page reload. Setting `MALLOC_MMAP_THRESHOLD_` yourself
//! keeps your value. The app process itself has started by the time this
//! runs (glibc reads the variable at start, and the crate forbids the
//! `unsafe` of `mallopt`), so the desktop entry starts it with the same
//! value (`env MALLOC_MMAP_THRESHOLD_=… bearagent-desktop`, issue 56): after
//! a 2 000-step run it held +24 MB instead of +48 to +51. The app starting
//! itself again with it set was measured too: the second `exec` cost 35 to
//! 68 ms of cold start, so not that. The entry also starts it with one
//! malloc arena (`MALLOC_ARENA_MAX=1`): glibc gives each thread that meets
//! a locked arena its own, up to 8 per core, and a freed block stays in
//! its arena for that arena's threads. After the soak's run the app held
//! +19.1 and +19.1 MB instead of +24.4 and +24.7 (measured once the page's
//! web process was recycled; the web processes, which inherit it, were
//! unchanged), and the agent loop's CPU per step was the same (`agent_loop`
//! bench: 0.576 and 0.580 ms against 0.576 and 0.597). The agent's
//! commands, hooks and MCP servers start with a scrubbed environment, so
//! none of these settings reach them.

const CPU_PAINTING: &str = "WEBKIT_SKIA_ENABLE_CPU_RENDERING";
const NO_COMPOSITING: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
/// glibc's default mmap threshold (bytes), fixed: the desktop entry sets
/// it, and so does the app for its web processes (name, value).
const MMAP_THRESHOLD: (&str, &str) = ("MALLOC_MMAP_THRESHOLD_", "131072");
/// What the desktop entry starts the app with (name, value), in order:
/// the packaging test holds the entry to it.
#[cfg(test)]
pub(crate) const LAUNCHER_ENV: [(&str, &str); 2] = [
    MMAP_THRESHOLD,
    // One malloc arena: see the module's doc.
    ("MALLOC_ARENA_MAX", "1"),
];
/// Set unless the user set them (name, value); see the module's doc.
const DEFAULTS: [(&str, &str); 4] = [
    // 1 TiB: no machine reaches it, so the heap grows by JavaScriptCore's
    // default factors instead.
    ("JSC_aggressiveHeapThresholdInMB", "1048576"),
    // Collect fully once the heap is 1.5 times what survived, from 16 MiB
    // (defaults: 2 times, from 32 MiB).
    ("JSC_largeHeapSize", "16777216"),
    ("JSC_smallHeapGrowthFactor", "1.5"),
    // glibc's default, fixed: setting it turns off the threshold's growth
    // (the launcher's own setting, for a web process of an app started
    // some other way).
    MMAP_THRESHOLD,
];

/// Whether to ask for CPU painting, or for no compositing (each its own
/// variable): no render node, and the user did not choose.
fn without_gpu(has_render_node: bool, user_chose: bool) -> bool {
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
    let render_node = has_render_node();
    for name in [CPU_PAINTING, NO_COMPOSITING] {
        if without_gpu(render_node, user_chose(name)) {
            std::env::set_var(name, "1");
        }
    }
    for (name, value) in DEFAULTS {
        if !user_chose(name) {
            std::env::set_var(name, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::without_gpu;

    #[test]
    fn cpu_painting_and_no_compositing_are_asked_for_only_without_a_render_node_and_without_a_choice(
    ) {
        assert!(without_gpu(false, false));
        assert!(!without_gpu(true, false), "a GPU paints");
        assert!(!without_gpu(false, true), "the user chose");
    }
}
