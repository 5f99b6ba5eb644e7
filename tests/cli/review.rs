//! Review at hunk grain from the terminal: `changes RUN_ID PATH` numbers a
//! file's hunks, `revert RUN_ID PATH --hunk N` reverts only those.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::{json, Value};

const BEFORE: &str = "# Guide\n\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n\nLanguages: English.\n";
const AFTER: &str =
    "# Guide (en, fr)\n\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n\nLanguages: English, French.\n";

#[test]
fn a_run_that_edits_two_distant_places_then_revert_hunk_1_leaves_exactly_the_second_change() {
    let env = support::env();
    env.write("guide.md", BEFORE);
    let r = env.run(
        json!([
            {"tool_call": {"tool_name": "edit_file", "arguments": {"path": "guide.md", "old_string": "# Guide\n", "new_string": "# Guide (en, fr)\n"}}},
            {"tool_call": {"tool_name": "edit_file", "arguments": {"path": "guide.md", "old_string": "English.", "new_string": "English, French."}}},
            {"final_answer": "done"}
        ]),
        &["--approve", "all"],
        "add French to the guide",
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(env.read("guide.md").unwrap(), AFTER);
    let run_id = r.run_id();

    let listed = env.bearagent(&["changes", &run_id, "guide.md", "--json"]);
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let hunks = listed["hunks"].as_array().unwrap();
    assert_eq!(hunks.len(), 2);
    assert_eq!(hunks[0]["index"], 1);
    assert_eq!(
        (
            hunks[0]["old_start"].as_u64(),
            hunks[0]["old_lines"].as_u64()
        ),
        (Some(1), Some(4))
    );
    assert!(hunks[0]["diff"]
        .as_str()
        .unwrap()
        .contains("+# Guide (en, fr)"));
    assert!(hunks[1]["diff"]
        .as_str()
        .unwrap()
        .contains("+Languages: English, French."));
    let human = env.bearagent(&["changes", &run_id, "guide.md"]);
    assert!(String::from_utf8_lossy(&human.stdout)
        .starts_with("hunk 1\n@@ -1,4 +1,4 @@\n-# Guide\n+# Guide (en, fr)\n"));

    let reverted = env.bearagent(&["revert", &run_id, "guide.md", "--hunk", "1"]);
    assert!(
        reverted.status.success(),
        "{}",
        String::from_utf8_lossy(&reverted.stderr)
    );
    assert_eq!(
        env.read("guide.md").unwrap(),
        BEFORE.replace("English.", "English, French.")
    );
    let events = env.events_of(&run_id);
    let last = events.last().unwrap();
    assert_eq!(last["payload"]["type"], "artifact_hunks_reverted");
    assert_eq!(last["payload"]["hunks"], json!([1]));

    // What is left is one hunk; a hunk that is not there is a usage error, and nothing moves.
    let listed = env.bearagent(&["changes", &run_id, "guide.md", "--json"]);
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed["hunks"].as_array().unwrap().len(), 1);
    let bad = env.bearagent(&["revert", &run_id, "guide.md", "--hunk", "2"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("hunk 2 does not exist"));
    let two = env.bearagent(&["revert", &run_id, "--hunk", "1"]);
    assert_eq!(two.status.code(), Some(2), "--hunk needs one file");
    assert_eq!(
        env.read("guide.md").unwrap(),
        BEFORE.replace("English.", "English, French.")
    );
}
