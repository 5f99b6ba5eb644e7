//! Reverting some hunks of a run's change to a file: the file gets the
//! run's version with those hunks put back as they were before the run,
//! recorded like every review (intent, disk, outcome). The use case,
//! `Application::revert_hunks`, is in `app/review.rs`.

use crate::artifacts::diff::{diff_versions, hunk_groups, DiffHunk, FileDiff};
use imara_diff::{Algorithm, Diff, InternedInput};

/// `now` with the hunks `selected` (numbered from 1, as the diff from
/// `before` to `now` shows them) changed back to `before`'s lines.
pub fn without_hunks(before: &str, now: &str, selected: &[u32]) -> Result<String, String> {
    let input = InternedInput::new(before, now);
    let mut diff = Diff::compute(Algorithm::Histogram, &input);
    diff.postprocess_lines(&input);
    let changes: Vec<imara_diff::Hunk> = diff.hunks().collect();
    let groups = hunk_groups(&changes);
    if selected.is_empty() {
        return Err("name at least one hunk".into());
    }
    if let Some(bad) = selected
        .iter()
        .find(|n| **n == 0 || **n as usize > groups.len())
    {
        return Err(format!(
            "hunk {bad} does not exist: the diff has hunks 1 to {}",
            groups.len()
        ));
    }
    let reverted: Vec<&imara_diff::Hunk> = groups
        .iter()
        .enumerate()
        .filter(|(i, _)| selected.contains(&(*i as u32 + 1)))
        .flat_map(|(_, g)| changes[g.clone()].iter())
        .collect();
    let line = |t: &imara_diff::Token| input.interner[*t];
    let mut out = String::with_capacity(now.len());
    let mut at = 0u32;
    for change in reverted {
        for t in &input.after[at as usize..change.after.start as usize] {
            out.push_str(line(t));
        }
        for t in &input.before[change.before.start as usize..change.before.end as usize] {
            out.push_str(line(t));
        }
        at = change.after.end;
    }
    for t in &input.after[at as usize..] {
        out.push_str(line(t));
    }
    Ok(out)
}

/// What a follow-up's model is told of each reverted hunk: its unified
/// text, all of them cut to `MAX_TOLD_BYTES`.
pub(crate) const MAX_TOLD_BYTES: usize = 4 * 1024;

pub(crate) fn reverted_text(before: &str, now: &str, hunks: &[u32]) -> Vec<(u32, String)> {
    let shown = match diff_versions(Some(before.as_bytes()), Some(now.as_bytes()), true) {
        FileDiff::Text { hunks, .. } => hunks,
        FileDiff::Binary { .. } => Vec::new(),
    };
    let mut left = MAX_TOLD_BYTES;
    hunks
        .iter()
        .map(|n| {
            let text = shown
                .get((*n as usize).saturating_sub(1))
                .map(DiffHunk::unified)
                .unwrap_or_default();
            let kept = crate::run::context::preview(&text, left);
            left = left.saturating_sub(kept.len());
            (*n, kept)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::without_hunks;

    const BEFORE: &str = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\n";
    const NOW: &str = "A\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nN\n";

    #[test]
    fn reverting_one_of_two_distant_hunks_leaves_exactly_the_other() {
        assert_eq!(
            without_hunks(BEFORE, NOW, &[1]).unwrap(),
            BEFORE.replace("n\n", "N\n")
        );
        assert_eq!(
            without_hunks(BEFORE, NOW, &[2]).unwrap(),
            BEFORE.replace("a\n", "A\n")
        );
        assert_eq!(without_hunks(BEFORE, NOW, &[1, 2]).unwrap(), BEFORE);
    }

    #[test]
    fn added_and_removed_lines_and_a_missing_last_newline_come_back_byte_for_byte() {
        let before = "keep\nold 1\nold 2\nend";
        let now = "keep\nnew\nend\nextra";
        let all = without_hunks(before, now, &[1]).unwrap();
        assert_eq!(all, before);
    }

    #[test]
    fn a_hunk_that_is_not_there_is_refused_by_number() {
        let err = without_hunks(BEFORE, NOW, &[3]).unwrap_err();
        assert!(
            err.contains("hunk 3 does not exist: the diff has hunks 1 to 2"),
            "{err}"
        );
        assert!(without_hunks(BEFORE, NOW, &[0]).is_err());
        assert!(without_hunks(BEFORE, NOW, &[]).is_err());
    }
}
