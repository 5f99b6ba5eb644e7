//! What the terminal shows before asking to approve a call: for a write,
//! the unified diff it would make (coloured on a terminal, cut after
//! [`MAX_DIFF_LINES`] with a count); for a command, the full command line
//! with its folder and sandbox state. Then the question and its keys.

use bearagent_runtime::artifacts::diff::FileDiff;
use bearagent_runtime::ProposedChange;

/// Longer diffs are cut, saying how many lines are left out.
pub const MAX_DIFF_LINES: usize = 40;

pub const KEYS: &str = "[y]es / [n]o / [a]lways for this run / deny the [r]est of this turn \
     / [w] yes, with the network for this command / [d] yes, and allow this fetch's domain in new \
     runs / p WORDS: yes, and allow commands starting with WORDS for this run (pw WORDS: with the \
     network; P WORDS / PW WORDS: remember it for this workspace)";

/// What the preview of a call shows.
pub enum Preview {
    /// The diff a write would make now.
    Write(ProposedChange),
    /// The write's arguments would fail now: why (the call will say so too).
    Unavailable(String),
    /// A command: its whole text and where it runs.
    Command {
        command: String,
        cwd: String,
    },
    Nothing,
}

/// The whole prompt: the preview, then "approve SUMMARY? KEYS: ".
pub fn prompt(summary: &str, preview: &Preview, colour: bool) -> String {
    let mut out = String::from("\n");
    match preview {
        Preview::Write(change) => out.push_str(&diff_text(change, colour)),
        Preview::Unavailable(why) => out.push_str(&format!("  (no preview: {why})\n")),
        Preview::Command { command, cwd } => {
            out.push_str(&format!("  in {cwd}:\n"));
            for line in command.lines() {
                out.push_str(&format!("  $ {line}\n"));
            }
        }
        Preview::Nothing => {}
    }
    out.push_str(&format!("  approve {summary}? {KEYS}: "));
    out
}

/// `--- a/PATH` / `+++ b/PATH` and the hunks, indented.
fn diff_text(change: &ProposedChange, colour: bool) -> String {
    let path = &change.path;
    let old = if change.new_file {
        "/dev/null".to_owned()
    } else {
        format!("a/{path}")
    };
    let mut out = format!("  --- {old}\n  +++ b/{path}\n");
    let hunks = match &change.diff {
        FileDiff::Binary {
            before_bytes,
            after_bytes,
        } => {
            out.push_str(&format!(
                "  binary file: {before_bytes} → {after_bytes} bytes\n"
            ));
            return out;
        }
        FileDiff::Text { hunks, .. } if hunks.is_empty() => {
            out.push_str("  (too large to show: see `bearagent changes` after it runs)\n");
            return out;
        }
        FileDiff::Text { hunks, .. } => hunks,
    };
    // The hunks as `diff -u` prints them; each line painted by its marker.
    let lines: Vec<String> = hunks
        .iter()
        .flat_map(|h| {
            let text = h.unified();
            text.split_terminator('\n')
                .map(|line| match line.as_bytes().first() {
                    Some(b'@') => paint(colour, "36", line),
                    Some(b'+') => paint(colour, "32", line),
                    Some(b'-') => paint(colour, "31", line),
                    _ => line.to_owned(),
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let total = lines.len();
    for line in lines.iter().take(MAX_DIFF_LINES) {
        out.push_str(&format!("  {line}\n"));
    }
    if total > MAX_DIFF_LINES {
        out.push_str(&format!(
            "  … {} more diff lines not shown\n",
            total - MAX_DIFF_LINES
        ));
    }
    out
}

fn paint(colour: bool, code: &str, text: &str) -> String {
    if colour {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use bearagent_runtime::artifacts::diff::diff_versions;

    fn change(before: Option<&str>, after: &str) -> ProposedChange {
        ProposedChange {
            call_id: bearagent_kernel::CallId::new("call_1").unwrap(),
            path: "calc.py".into(),
            new_file: before.is_none(),
            before_text: before.map(str::to_owned),
            after_text: after.to_owned(),
            diff: diff_versions(before.map(str::as_bytes), Some(after.as_bytes()), false),
        }
    }

    #[test]
    fn an_edit_prompt_shows_its_diff() {
        let c = change(
            Some("def add(a, b):\n    return a - b\n"),
            "def add(a, b):\n    return a + b\n",
        );
        let text = prompt(
            "edit calc.py: replace 12 bytes with 12 bytes",
            &Preview::Write(c),
            false,
        );
        insta::assert_snapshot!(text);
    }

    #[test]
    fn on_a_terminal_lines_are_coloured() {
        let c = change(Some("a\n"), "b\n");
        let text = prompt("edit calc.py", &Preview::Write(c), true);
        assert!(text.contains("\x1b[31m-a\x1b[0m"), "{text}");
        assert!(text.contains("\x1b[32m+b\x1b[0m"), "{text}");
    }

    #[test]
    fn a_long_diff_is_cut_with_a_count() {
        let after: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let text = prompt("write", &Preview::Write(change(None, &after)), false);
        assert!(text.contains("+line 38\n"), "{text}");
        assert!(!text.contains("+line 39\n"), "{text}");
        assert!(text.contains("… 61 more diff lines not shown"), "{text}");
        assert!(text.contains("--- /dev/null"), "{text}");
    }

    #[test]
    fn a_command_prompt_shows_the_whole_line_and_its_folder() {
        let preview = Preview::Command {
            command: "cargo test \\\n  --workspace".into(),
            cwd: "crates/core".into(),
        };
        let text = prompt(
            "run `cargo test` in crates/core (sandboxed, no network)",
            &preview,
            false,
        );
        insta::assert_snapshot!(text);
    }
}
