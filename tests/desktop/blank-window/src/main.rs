//! A blank Tauri 2 window: the baseline the desktop benches measure the app
//! against (memory beside it, cold start to first paint beside it).
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> std::process::ExitCode {
    match tauri::Builder::default().run(tauri::generate_context!()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("blank window failed: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
