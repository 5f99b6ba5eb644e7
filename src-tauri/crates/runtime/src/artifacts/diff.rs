//! Line diffs of file versions, computed in the backend with imara-diff
//! (histogram algorithm, git's line post-processing).

use imara_diff::{Algorithm, Diff, InternedInput};
use serde::Serialize;

/// Files above this size show stats first; hunks only on request.
pub const LARGE_FILE_BYTES: usize = 1024 * 1024;
const CONTEXT: u32 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    Context,
    Added,
    Removed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffLine {
    pub kind: LineKind,
    /// 1-based line numbers; absent on the side the line is not on.
    pub old_line: Option<u32>,
    pub new_line: Option<u32>,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffHunk {
    pub old_start: u32,
    pub old_len: u32,
    pub new_start: u32,
    pub new_len: u32,
    pub lines: Vec<DiffLine>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FileDiff {
    /// Either side holds binary data: sizes only.
    Binary { before_bytes: u64, after_bytes: u64 },
    /// A text diff. `hunks` is empty when the file was too large and the
    /// full diff was not asked for (`stats_only`).
    Text {
        added: u32,
        removed: u32,
        hunks: Vec<DiffHunk>,
        stats_only: bool,
    },
}

impl DiffHunk {
    /// The hunk as `diff -u` prints it, header included.
    pub fn unified(&self) -> String {
        let mut out = format!(
            "@@ -{},{} +{},{} @@\n",
            self.old_start, self.old_len, self.new_start, self.new_len
        );
        for l in &self.lines {
            out.push(match l.kind {
                LineKind::Context => ' ',
                LineKind::Added => '+',
                LineKind::Removed => '-',
            });
            out.push_str(&l.text);
            out.push('\n');
        }
        out
    }
}

fn is_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8192).any(|b| *b == 0)
}

/// The diff from `before` to `after`; `None` is an absent file (created or
/// deleted). Large files get stats only unless `full`.
pub fn diff_versions(before: Option<&[u8]>, after: Option<&[u8]>, full: bool) -> FileDiff {
    let (old, new) = (before.unwrap_or_default(), after.unwrap_or_default());
    if is_binary(old) || is_binary(new) {
        return FileDiff::Binary {
            before_bytes: old.len() as u64,
            after_bytes: new.len() as u64,
        };
    }
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    let input = InternedInput::new(old.as_ref(), new.as_ref());
    let mut diff = Diff::compute(Algorithm::Histogram, &input);
    diff.postprocess_lines(&input);
    let stats_only = !full && old.len().max(new.len()) > LARGE_FILE_BYTES;
    let hunks = if stats_only {
        Vec::new()
    } else {
        hunks(&diff, &input)
    };
    FileDiff::Text {
        added: diff.count_additions(),
        removed: diff.count_removals(),
        hunks,
        stats_only,
    }
}

fn text(input: &InternedInput<&str>, token: imara_diff::Token) -> String {
    let line = input.interner[token];
    line.strip_suffix('\n').unwrap_or(line).to_owned()
}

/// The changes of each hunk (indices into `changes`): changes within
/// 2 × `CONTEXT` lines of each other share one, like `diff -U3`. Hunks are
/// numbered from 1 in this order wherever the user picks them.
pub(crate) fn hunk_groups(changes: &[imara_diff::Hunk]) -> Vec<std::ops::RangeInclusive<usize>> {
    let mut groups = Vec::new();
    let mut i = 0;
    while i < changes.len() {
        let mut j = i;
        while j + 1 < changes.len()
            && changes[j + 1].before.start - changes[j].before.end <= 2 * CONTEXT
        {
            j += 1;
        }
        groups.push(i..=j);
        i = j + 1;
    }
    groups
}

/// Groups changes with `CONTEXT` lines around them, merging close ones,
/// like `diff -U3`.
fn hunks(diff: &Diff, input: &InternedInput<&str>) -> Vec<DiffHunk> {
    let changes: Vec<imara_diff::Hunk> = diff.hunks().collect();
    let before_len = input.before.len() as u32;
    let after_len = input.after.len() as u32;
    let mut out: Vec<DiffHunk> = Vec::new();
    for group in hunk_groups(&changes) {
        let (i, j) = (*group.start(), *group.end());
        let first = &changes[i];
        let last = &changes[j];
        let old_start = first.before.start.saturating_sub(CONTEXT);
        let new_start = first
            .after
            .start
            .saturating_sub(first.before.start - old_start);
        let old_end = (last.before.end + CONTEXT).min(before_len);
        let new_end = (last.after.end + (old_end - last.before.end)).min(after_len);
        let mut lines = Vec::new();
        let (mut o, mut n) = (old_start, new_start);
        for change in &changes[i..=j] {
            while o < change.before.start {
                lines.push(DiffLine {
                    kind: LineKind::Context,
                    old_line: Some(o + 1),
                    new_line: Some(n + 1),
                    text: text(input, input.before[o as usize]),
                });
                o += 1;
                n += 1;
            }
            for k in change.before.clone() {
                lines.push(DiffLine {
                    kind: LineKind::Removed,
                    old_line: Some(k + 1),
                    new_line: None,
                    text: text(input, input.before[k as usize]),
                });
            }
            for k in change.after.clone() {
                lines.push(DiffLine {
                    kind: LineKind::Added,
                    old_line: None,
                    new_line: Some(k + 1),
                    text: text(input, input.after[k as usize]),
                });
            }
            o = change.before.end;
            n = change.after.end;
        }
        while o < old_end && n < new_end {
            lines.push(DiffLine {
                kind: LineKind::Context,
                old_line: Some(o + 1),
                new_line: Some(n + 1),
                text: text(input, input.before[o as usize]),
            });
            o += 1;
            n += 1;
        }
        out.push(DiffHunk {
            old_start: old_start + 1,
            old_len: old_end - old_start,
            new_start: new_start + 1,
            new_len: new_end - new_start,
            lines,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(d: &FileDiff) -> Vec<(LineKind, String)> {
        match d {
            FileDiff::Text { hunks, .. } => hunks
                .iter()
                .flat_map(|h| h.lines.iter().map(|l| (l.kind, l.text.clone())))
                .collect(),
            FileDiff::Binary { .. } => vec![],
        }
    }

    #[test]
    fn a_changed_line_shows_with_three_lines_of_context() {
        let before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let after = "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n";
        let d = diff_versions(Some(before.as_bytes()), Some(after.as_bytes()), false);
        let FileDiff::Text {
            added,
            removed,
            hunks,
            stats_only,
        } = &d
        else {
            panic!()
        };
        assert_eq!((*added, *removed, *stats_only), (1, 1, false));
        assert_eq!(hunks.len(), 1);
        let h = &hunks[0];
        assert_eq!(
            (h.old_start, h.old_len, h.new_start, h.new_len),
            (2, 7, 2, 7)
        );
        assert_eq!(
            h.lines[3],
            DiffLine {
                kind: LineKind::Removed,
                old_line: Some(5),
                new_line: None,
                text: "5".into()
            }
        );
        assert_eq!(
            h.lines[4],
            DiffLine {
                kind: LineKind::Added,
                old_line: None,
                new_line: Some(5),
                text: "FIVE".into()
            }
        );
    }

    #[test]
    fn new_and_deleted_files_are_all_additions_or_removals() {
        let created = diff_versions(None, Some(b"a\nb\n"), false);
        assert_eq!(
            kinds(&created),
            vec![(LineKind::Added, "a".into()), (LineKind::Added, "b".into())]
        );
        let deleted = diff_versions(Some(b"a\n"), None, false);
        assert_eq!(kinds(&deleted), vec![(LineKind::Removed, "a".into())]);
    }

    #[test]
    fn distant_changes_are_separate_hunks_and_close_ones_merge() {
        let before: String = (1..=40).map(|i| format!("{i}\n")).collect();
        let after = before
            .replace("\n5\n", "\nfive\n")
            .replace("\n30\n", "\nthirty\n")
            .replace("\n33\n", "\nthirty-three\n");
        let FileDiff::Text { hunks, .. } =
            diff_versions(Some(before.as_bytes()), Some(after.as_bytes()), false)
        else {
            panic!()
        };
        assert_eq!(hunks.len(), 2);
        assert_eq!(hunks[1].old_start, 27);
    }

    #[test]
    fn binary_and_large_files_get_stats() {
        let d = diff_versions(Some(b"a\0b"), Some(b"a\0c"), false);
        assert_eq!(
            d,
            FileDiff::Binary {
                before_bytes: 3,
                after_bytes: 3
            }
        );
        let big: String = (0..120_000).map(|i| format!("line {i}\n")).collect();
        let changed = big.replacen("line 7\n", "line seven\n", 1);
        let FileDiff::Text {
            added,
            hunks,
            stats_only,
            ..
        } = diff_versions(Some(big.as_bytes()), Some(changed.as_bytes()), false)
        else {
            panic!()
        };
        assert!(stats_only && hunks.is_empty());
        assert_eq!(added, 1);
        let FileDiff::Text { hunks, .. } =
            diff_versions(Some(big.as_bytes()), Some(changed.as_bytes()), true)
        else {
            panic!()
        };
        assert_eq!(hunks.len(), 1);
    }
}
