//! An experiment beside the blank window: what pushing many script
//! evaluations costs WebKit's web process (driven by
//! `tests/desktop/bench/eval-probe.sh`). PROBE_MODE: `eval` (one evaluation
//! per event, as Tauri's emit delivers one), `batch` (PROBE_BATCH events per
//! evaluation), `pull` (a small evaluation asks the page to fetch the events
//! over IPC), `idle` (nothing, the same time).
use std::time::Duration;
use tauri::Manager;

#[tauri::command]
fn probe_page(from: u64, count: u64, bytes: usize) -> Vec<String> {
    (from..from + count).map(|i| payload(i, bytes)).collect()
}

fn payload(i: u64, bytes: usize) -> String {
    let mut s = format!("event {i} ");
    while s.len() < bytes {
        s.push_str(&format!(
            "{:x} line of a read_file result {} ",
            i * 7919 + s.len() as u64,
            i
        ));
    }
    s
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let mode = std::env::var("PROBE_MODE").unwrap_or_else(|_| "eval".into());
    let events = env("PROBE_EVENTS", 16_000);
    let bytes = env("PROBE_BYTES", 2_000) as usize;
    let batch = env("PROBE_BATCH", 8).max(1);
    let result = tauri::Builder::default()
        .invoke_handler(tauri::generate_handler![probe_page])
        .setup(move |app| {
            let Some(window) = app.get_webview_window("main") else { return Ok(()) };
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_secs(3));
                let _ = window.eval(
                    "window.__probe = 0; window.__pull = (from, count, bytes) => window.__TAURI_INTERNALS__.invoke('probe_page', {from, count, bytes}).then(r => { window.__probe += r.length; });",
                );
                println!("PROBE start");
                let mut i = 0;
                while i < events {
                    let n = batch.min(events - i);
                    let script = match mode.as_str() {
                        "eval" => {
                            let p = serde_json::json!({"seq": i, "text": payload(i, bytes)});
                            format!("window.__probe += 1; void ({p});")
                        }
                        "batch" => {
                            let items: Vec<_> = (i..i + n).map(|k| serde_json::json!({"seq": k, "text": payload(k, bytes)})).collect();
                            format!("window.__probe += {n}; void ({});", serde_json::Value::Array(items))
                        }
                        "pull" => format!("window.__pull({i}, {n}, {bytes});"),
                        _ => String::new(),
                    };
                    if !script.is_empty() {
                        let _ = window.eval(&script);
                    }
                    i += if mode == "eval" { 1 } else { n };
                    std::thread::sleep(Duration::from_micros(if mode == "eval" { 250 } else { 2_000 }));
                }
                println!("PROBE done");
            });
            Ok(())
        })
        .run(tauri::generate_context!());
    if let Err(e) = result {
        eprintln!("{e}");
    }
}
