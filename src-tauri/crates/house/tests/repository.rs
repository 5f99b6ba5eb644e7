//! The repository itself keeps its floor plan (`house.toml` at its root).
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

#[test]
fn the_repository_keeps_its_floor_plan() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let report = bearagent_house::check(&root).unwrap();
    for line in &report.summary {
        println!("house: {line}");
    }
    assert!(
        report.passed(),
        "house.toml is broken:\n{}",
        report.failures.join("\n")
    );
}
