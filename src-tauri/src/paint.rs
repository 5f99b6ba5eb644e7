//! How WebKitGTK paints the window, chosen before it starts.
//!
//! Without a GPU render node WebKit composites on software GL (llvmpipe).
//! Measured on such a machine (`npm run bench:timeline`, `bench:soak` in
//! tests/desktop): the timeline scrolls at a p95 frame of 52 ms composited
//! against 24 ms painted directly, and the web process holds ≈ 110 MB more.
//! So without one, the app paints without accelerated compositing. WebKit
//! reads `WEBKIT_DISABLE_COMPOSITING_MODE` set to anything as "off"; to keep
//! WebKit's default anyway, set `BEARAGENT_KEEP_COMPOSITING` (any value).

const SWITCH: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
const KEEP: &str = "BEARAGENT_KEEP_COMPOSITING";

/// Whether to turn compositing off: no render node, and the user chose
/// neither way.
fn paint_directly(has_render_node: bool, switch_set: bool, keep_set: bool) -> bool {
    !has_render_node && !switch_set && !keep_set
}

fn has_render_node() -> bool {
    std::fs::read_dir("/dev/dri").is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// Call first in `main`, before any thread starts (it sets a variable of
/// the process's environment).
pub fn choose() {
    if cfg!(target_os = "linux")
        && paint_directly(
            has_render_node(),
            std::env::var_os(SWITCH).is_some(),
            std::env::var_os(KEEP).is_some(),
        )
    {
        std::env::set_var(SWITCH, "1");
    }
}

#[cfg(test)]
mod tests {
    use super::paint_directly;

    #[test]
    fn compositing_is_turned_off_only_without_a_render_node_and_without_a_choice() {
        assert!(paint_directly(false, false, false));
        assert!(!paint_directly(true, false, false), "a GPU composites");
        assert!(
            !paint_directly(false, true, false),
            "the user set WebKit's switch"
        );
        assert!(
            !paint_directly(false, false, true),
            "the user keeps compositing"
        );
    }
}
