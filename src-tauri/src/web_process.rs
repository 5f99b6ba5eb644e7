//! The window's web process, recycled when it holds far more than it did
//! when the page was new (issue 56).
//!
//! Why. WebKit's web process keeps what a long session made it allocate:
//! rendering a 2 000-step run live left it ≈ 140 MB above its idle size,
//! and neither leaving the run nor a page reload returned that (it sits in
//! WebKit's own allocator). A new web process starts at its idle size. The
//! page renders from the store, and its route, tab and reading place are
//! kept across the reload (ui/src/lib/app/recycle.ts), so a recycle costs
//! the person nothing they could lose: it is never done while a run of this
//! app is in progress, and the page does not offer while something typed
//! would be lost or while the person is at it.
//!
//! The size "when new" is taken 5 s after the page mounts (at mount it is
//! still loading), and lowered whenever an idle offer finds it smaller.
//!
//! WebKitWebDriver ends its session when the web process ends, so a window
//! driven by WebDriver is not recycled unless `BEARAGENT_WEB_RECYCLE=on`
//! (the recycling test and the soak bench opt in).
//!
//! Only the shell has a web process, so this lives here, not in the
//! application API.

use serde::Serialize;
use specta::Type;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// How far above its size when the page was new the web process may grow
/// before an idle page is recycled. Without compositing (the default
/// without a GPU, webkit_env.rs) a 2 000-step run followed live leaves
/// +49 to +53 MB, and a page new with that run open holds +28 to +34 MB
/// (bench:soak): 72 MB let it stay. Composited, scrolling a long run's
/// timeline leaves +36 to +61 MB (bench:scroll-memory); recycling then
/// costs a reload that puts the person back at the same row.
const DEFAULT_ABOVE_MB: u64 = 40;
/// How long the person has left the page alone before it offers.
const DEFAULT_IDLE_SECS: u64 = 15;

/// What the page is told when it is ready: when to offer a recycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Type)]
pub struct RecyclePolicy {
    /// Offer after this long without input (ms).
    pub idle_ms: u64,
    /// Recycling is off (`BEARAGENT_WEB_RECYCLE=off`).
    pub off: bool,
}

/// What an idle page's offer came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum IdleOutcome {
    /// The web process will be ended and the page reloaded in a moment.
    Recycling { web_kb: u64, baseline_kb: u64 },
    /// Kept: not far enough above its size when new.
    Kept { web_kb: u64, baseline_kb: u64 },
    /// Kept: a run is in progress.
    RunsActive,
    /// Kept: the web process could not be found or read, or recycling is off
    /// (by the user, or because WebDriver drives the window: its session
    /// ends with the web process, so tests and benches opt in).
    Unknown,
}

/// The policy's numbers, from the environment once (tests and benches set them).
#[derive(Debug, Clone, Copy)]
struct Limits {
    above_kb: u64,
    idle_ms: u64,
    off: bool,
    /// Recycle even when WebDriver drives the window (`BEARAGENT_WEB_RECYCLE=on`).
    under_automation: bool,
}

impl Limits {
    fn from_env() -> Self {
        let number = |name: &str, default: u64| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(default)
        };
        let mode = std::env::var("BEARAGENT_WEB_RECYCLE").ok();
        Self {
            above_kb: number("BEARAGENT_WEB_RECYCLE_ABOVE_MB", DEFAULT_ABOVE_MB) * 1024,
            idle_ms: number("BEARAGENT_WEB_RECYCLE_IDLE_SECS", DEFAULT_IDLE_SECS) * 1000,
            off: mode.as_deref() == Some("off"),
            under_automation: mode.as_deref() == Some("on"),
        }
    }
}

/// The web process's size when its page was new, per web process.
pub struct Recycler {
    limits: Limits,
    /// (pid, PSS in kB) of the current web process when its page was ready,
    /// or less if it was smaller at a later offer.
    baseline: Mutex<Option<(u32, u64)>>,
    /// The window is driven by WebDriver (set by `watch`).
    automated: Arc<AtomicBool>,
}

impl Recycler {
    pub fn from_env() -> Self {
        Self {
            limits: Limits::from_env(),
            baseline: Mutex::new(None),
            automated: Arc::new(AtomicBool::new(false)),
        }
    }

    fn off(&self) -> bool {
        self.limits.off || (self.automated.load(Ordering::Relaxed) && !self.limits.under_automation)
    }

    pub fn policy(&self) -> RecyclePolicy {
        RecyclePolicy {
            idle_ms: self.limits.idle_ms,
            off: self.off(),
        }
    }

    /// The page is new: remember the web process's size now.
    pub fn page_ready(&self) {
        let measured = web_process().and_then(|pid| pss_kb(pid).map(|kb| (pid, kb)));
        if let Some((pid, kb)) = measured {
            tracing::info!(pid, kb, "the page is ready in its web process");
        }
        if let Ok(mut baseline) = self.baseline.lock() {
            *baseline = measured;
        }
    }

    /// The page has been left alone: whether to recycle its web process.
    pub fn page_idle(&self, runs_active: bool) -> IdleOutcome {
        if self.off() {
            return IdleOutcome::Unknown;
        }
        let Some(pid) = web_process() else {
            return IdleOutcome::Unknown;
        };
        let Ok(mut baseline) = self.baseline.lock() else {
            return IdleOutcome::Unknown;
        };
        // A web process whose page never said it was ready has no baseline.
        let Some(baseline_kb) = baseline.filter(|(p, _)| *p == pid).map(|(_, kb)| kb) else {
            return IdleOutcome::Unknown;
        };
        let Some(web_kb) = pss_kb(pid) else {
            return IdleOutcome::Unknown;
        };
        let outcome = decide(web_kb, baseline_kb, self.limits.above_kb, runs_active);
        *baseline = match outcome {
            IdleOutcome::Recycling { .. } => None,
            _ => Some((pid, baseline_kb.min(web_kb))),
        };
        outcome
    }
}

/// Ends the window's web process; `watch` reloads the page in a new one.
pub fn terminate(window: &tauri::WebviewWindow) {
    let ended = window.with_webview(|webview| {
        #[cfg(target_os = "linux")]
        {
            use webkit2gtk::WebViewExt;
            webview.inner().terminate_web_process();
        }
        #[cfg(not(target_os = "linux"))]
        let _ = webview;
    });
    if let Err(e) = ended {
        tracing::warn!(error = %e, "could not end the web process");
    }
}

/// At setup: a page whose web process ended (recycled, or crashed) is
/// reloaded in a new one instead of leaving a blank window; a crash loop is
/// not chased. And the web context is told it serves one local document:
/// WebKit then keeps no page or resource cache for navigation.
pub fn watch(app: &tauri::App, recycler: &Recycler) {
    use tauri::Manager;
    let Some(window) = app.get_webview_window("main") else {
        tracing::warn!("no main window to watch");
        return;
    };
    let keep_default_cache =
        std::env::var("BEARAGENT_WEB_CACHE_MODEL").is_ok_and(|v| v == "default");
    let automated = recycler.automated.clone();
    let watched = window.with_webview(move |webview| {
        #[cfg(target_os = "linux")]
        {
            use webkit2gtk::WebViewExt;
            let inner = webview.inner();
            automated.store(inner.is_controlled_by_automation(), Ordering::Relaxed);
            reload_when_ended(&inner, keep_default_cache);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (webview, keep_default_cache, automated);
    });
    if let Err(e) = watched {
        tracing::warn!(error = %e, "the window's web process is not watched");
    }
}

#[cfg(target_os = "linux")]
fn reload_when_ended(webview: &webkit2gtk::WebView, keep_default_cache: bool) {
    use std::cell::Cell;
    use std::time::{Duration, Instant};
    use webkit2gtk::{CacheModel, WebContextExt, WebProcessTerminationReason, WebViewExt};
    const CRASH_RELOAD_GAP: Duration = Duration::from_secs(10);
    if !keep_default_cache {
        if let Some(context) = webview.context() {
            context.set_cache_model(CacheModel::DocumentViewer);
        }
    }
    let last_crash = Cell::new(None::<Instant>);
    webview.connect_web_process_terminated(move |webview, reason| {
        let recycled = matches!(reason, WebProcessTerminationReason::TerminatedByApi);
        let too_soon = last_crash
            .get()
            .is_some_and(|t| t.elapsed() < CRASH_RELOAD_GAP);
        tracing::warn!(?reason, "the window's web process ended");
        if recycled || !too_soon {
            if !recycled {
                last_crash.set(Some(Instant::now()));
            }
            webview.reload();
        }
    });
}

/// The rule, apart from measuring.
fn decide(web_kb: u64, baseline_kb: u64, above_kb: u64, runs_active: bool) -> IdleOutcome {
    if runs_active {
        IdleOutcome::RunsActive
    } else if web_kb > baseline_kb.saturating_add(above_kb) {
        IdleOutcome::Recycling {
            web_kb,
            baseline_kb,
        }
    } else {
        IdleOutcome::Kept {
            web_kb,
            baseline_kb,
        }
    }
}

/// This process's WebKit web process (its child; the kernel truncates the
/// name to 15 bytes).
fn web_process() -> Option<u32> {
    let me = std::process::id();
    let entries = std::fs::read_dir("/proc").ok()?;
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .find(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                parent_and_name(&stat)
                    .is_some_and(|(ppid, name)| ppid == me && name.starts_with("WebKitWebProces"))
            })
        })
}

/// (parent pid, command name) from a /proc/PID/stat line.
fn parent_and_name(stat: &str) -> Option<(u32, &str)> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let name = stat.get(open + 1..close)?;
    let ppid = stat.get(close + 2..)?.split(' ').nth(1)?.parse().ok()?;
    Some((ppid, name))
}

/// Proportional set size of a process, kB, from /proc/PID/smaps_rollup.
fn pss_kb(pid: u32) -> Option<u64> {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    pss_of(&rollup)
}

fn pss_of(rollup: &str) -> Option<u64> {
    rollup
        .lines()
        .find_map(|l| l.strip_prefix("Pss:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idle_page_is_recycled_only_far_above_its_size_when_new_and_never_during_a_run() {
        let mb = 1024;
        assert_eq!(
            decide(300 * mb, 175 * mb, 96 * mb, false),
            IdleOutcome::Recycling {
                web_kb: 300 * mb,
                baseline_kb: 175 * mb
            }
        );
        assert!(matches!(
            decide(230 * mb, 175 * mb, 96 * mb, false),
            IdleOutcome::Kept { .. }
        ));
        assert_eq!(
            decide(300 * mb, 175 * mb, 96 * mb, true),
            IdleOutcome::RunsActive
        );
    }

    #[test]
    fn stat_lines_give_parent_and_name_even_with_spaces_and_parentheses() {
        let stat = "4319 (WebKitWebProces) S 4283 4248 2942 0 -1";
        assert_eq!(parent_and_name(stat), Some((4283, "WebKitWebProces")));
        let odd = "12 (a (b) c) R 7 12 12 0";
        assert_eq!(parent_and_name(odd), Some((7, "a (b) c")));
        assert_eq!(parent_and_name("garbage"), None);
    }

    #[test]
    fn pss_is_read_from_the_rollup() {
        let rollup = "00400000-7ffd [rollup]\nRss:              484000 kB\nPss:              175904 kB\nPss_Anon: 1 kB\n";
        assert_eq!(pss_of(rollup), Some(175_904));
        assert_eq!(pss_of("Rss: 1 kB\n"), None);
    }

    #[test]
    fn this_process_is_found_by_its_parent_and_measured() {
        // The test process has no web process; its own PSS is readable.
        assert_eq!(web_process(), None);
        assert!(pss_kb(std::process::id()).is_some_and(|kb| kb > 0));
    }
}
