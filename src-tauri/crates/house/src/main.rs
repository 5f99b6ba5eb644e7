//! `bearagent-house check [ROOT]`: checks the repository against its
//! `house.toml` and exits non-zero naming every breach.
//! `bearagent-house debt [ROOT]`: prints a `[[debt]]` entry for every
//! breach found today (to review, never to paste blindly).

use bearagent_house::{check, find_root, Report};
use std::path::PathBuf;
use std::process::ExitCode;

fn root_from(arg: Option<String>) -> Result<PathBuf, String> {
    if let Some(dir) = arg {
        return Ok(PathBuf::from(dir));
    }
    let cwd = std::env::current_dir().map_err(|e| format!("current folder: {e}"))?;
    find_root(&cwd).ok_or_else(|| "no house.toml here or in any folder above".to_string())
}

fn print_check(report: &Report) {
    for line in &report.summary {
        println!("house: {line}");
    }
    for note in &report.notes {
        println!("house: note: {note}");
    }
    for failure in &report.failures {
        eprintln!("house: FAIL {failure}");
    }
    if report.passed() {
        println!("house: ok");
    } else {
        eprintln!("house: {} failure(s)", report.failures.len());
    }
}

fn run() -> Result<bool, String> {
    let mut args = std::env::args().skip(1);
    let command = args.next().unwrap_or_else(|| "check".to_string());
    let root = root_from(args.next())?;
    let report = check(&root)?;
    match command.as_str() {
        "check" => {
            print_check(&report);
            Ok(report.passed())
        }
        "debt" => {
            for v in &report.violations {
                println!("{}", v.debt_toml());
            }
            Ok(true)
        }
        other => Err(format!("unknown command {other}; use check or debt")),
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("house: {e}");
            ExitCode::from(2)
        }
    }
}
