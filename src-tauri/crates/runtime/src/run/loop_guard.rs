//! Loop detection's memory: a model that asks for the same tool with the
//! same (normalised) arguments again after `max` identical calls that all
//! returned the same result is going round in circles. What the run does
//! about it (refuse, then ask the user) is `loops.rs`, a floor above.

use bearagent_kernel::ContentHash;
use bearagent_tools::PreparedCall;
use std::collections::VecDeque;

/// How many executed calls are remembered (more than any sane threshold).
const REMEMBERED: usize = 32;

#[derive(Debug, Default)]
pub(crate) struct LoopGuard {
    /// Signature and result hash of each executed call, most recent last.
    recent: VecDeque<(String, ContentHash)>,
    /// The signature last refused as a loop.
    refused: Option<String>,
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LoopCheck {
    Run,
    /// Not executed: the model is told why.
    Refuse {
        repeats: u32,
    },
    /// Asked again after being refused: the user decides.
    AskUser {
        repeats: u32,
    },
}

/// The tool and its normalised arguments (object keys sorted), so spacing
/// or key order cannot disguise a repeat.
pub(crate) fn signature(call: &PreparedCall) -> String {
    format!("{}({})", call.tool(), call.args())
}

impl LoopGuard {
    pub(crate) fn check(&self, signature: &str, max: u32) -> LoopCheck {
        let n = max as usize;
        if n == 0 {
            return LoopCheck::Run;
        }
        if self.refused.as_deref() == Some(signature) {
            return LoopCheck::AskUser { repeats: max };
        }
        let last: Vec<&(String, ContentHash)> = self.recent.iter().rev().take(n).collect();
        let repeating = last.len() == n
            && last
                .iter()
                .all(|(s, h)| s == signature && Some(h) == last.first().map(|f| &f.1));
        if repeating {
            LoopCheck::Refuse { repeats: max }
        } else {
            LoopCheck::Run
        }
    }

    pub(crate) fn refused(&mut self, signature: String) {
        self.refused = Some(signature);
    }

    /// The user let a repeating call go on: it starts a fresh count.
    pub(crate) fn user_continued(&mut self) {
        self.refused = None;
        self.recent.clear();
    }

    pub(crate) fn executed(&mut self, signature: String, result: ContentHash) {
        if self.refused.as_deref() != Some(signature.as_str()) {
            self.refused = None;
        }
        self.recent.push_back((signature, result));
        if self.recent.len() > REMEMBERED {
            self.recent.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bearagent_store::hash_bytes;

    #[test]
    fn three_identical_calls_with_identical_results_make_the_fourth_a_loop() {
        let mut g = LoopGuard::default();
        let same = hash_bytes(b"same result");
        for _ in 0..3 {
            assert_eq!(g.check("read_file({\"path\":\"a\"})", 3), LoopCheck::Run);
            g.executed("read_file({\"path\":\"a\"})".into(), same.clone());
        }
        assert_eq!(
            g.check("read_file({\"path\":\"a\"})", 3),
            LoopCheck::Refuse { repeats: 3 }
        );
        // Another call is fine meanwhile.
        assert_eq!(g.check("read_file({\"path\":\"b\"})", 3), LoopCheck::Run);
        g.refused("read_file({\"path\":\"a\"})".into());
        assert_eq!(
            g.check("read_file({\"path\":\"a\"})", 3),
            LoopCheck::AskUser { repeats: 3 }
        );
        g.user_continued();
        assert_eq!(g.check("read_file({\"path\":\"a\"})", 3), LoopCheck::Run);
    }

    #[test]
    fn a_changing_result_or_another_call_in_between_is_not_a_loop() {
        let mut g = LoopGuard::default();
        for i in 0..5 {
            g.executed("list_dir({})".into(), hash_bytes(format!("{i}").as_bytes()));
        }
        assert_eq!(g.check("list_dir({})", 3), LoopCheck::Run);
        let same = hash_bytes(b"x");
        g.executed("a()".into(), same.clone());
        g.executed("b()".into(), same.clone());
        g.executed("a()".into(), same.clone());
        assert_eq!(g.check("a()", 3), LoopCheck::Run);
        // A different executed call clears a refusal.
        g.refused("a()".into());
        g.executed("b()".into(), same);
        assert_eq!(g.check("a()", 3), LoopCheck::Run);
        // 0 turns detection off.
        assert_eq!(LoopGuard::default().check("a()", 0), LoopCheck::Run);
    }
}
