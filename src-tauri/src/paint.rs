//! How WebKitGTK paints the window, chosen before it starts.
//!
//! Without a GPU render node, WebKit's Skia paints its tiles on software GL
//! (llvmpipe). Measured on such a machine (tests/desktop, `npm run
//! bench:memory` and `bench:timeline`, same machine state): painting them
//! on the CPU instead holds ≈ 30 MB less in the idle web process (166 vs
//! 198 MB) and scrolls the timeline at a p95 frame of 71 ms against 92 ms.
//! So without one, the app asks WebKit for CPU
//! painting (accelerated compositing stays on: turning that off made the
//! web process die under WebDriver). A value the user set is kept, so
//! `WEBKIT_SKIA_ENABLE_CPU_RENDERING=0` restores WebKit's default.

const CPU_PAINTING: &str = "WEBKIT_SKIA_ENABLE_CPU_RENDERING";

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

/// Call first in `run`, before any thread starts: it sets a variable of the
/// process's environment, which WebKit's web process inherits.
pub fn choose() {
    if cfg!(target_os = "linux")
        && paint_on_cpu(has_render_node(), std::env::var_os(CPU_PAINTING).is_some())
    {
        std::env::set_var(CPU_PAINTING, "1");
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
