//! Threads: a follow-up run continues a finished parent run's conversation;
//! a fork continues it from one of the parent's events.

use crate::ids::{EventSeq, RunId};
use serde::{Deserialize, Serialize};

/// The run a follow-up or fork continues, and the last of its events the
/// new run's context includes (for a follow-up, the parent's last event
/// when the follow-up was created — so the context never changes later).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParentRun {
    pub run_id: RunId,
    pub through_seq: EventSeq,
    /// A fork branches at `through_seq`; a follow-up takes the whole run.
    pub fork: bool,
}

/// The run and call that started this run as a child (delegation, the
/// `task` tool): the parent's id, the `call_id` of its `task` call, how
/// deep the child is (1: a child of a top-level run) and the label the
/// parent gave it, which front ends show beside the child's approvals.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DelegatedBy {
    pub run_id: RunId,
    pub call_id: crate::ids::CallId,
    pub depth: u32,
    pub description: String,
}

/// A run that may start child runs: how deep its tree may go (counted
/// from the top-level run) and the share of its remaining budget each
/// child reserves before it starts.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delegation {
    pub max_depth: u32,
    pub share_percent: u8,
}

/// The tool that starts a child run (the tools crate defines it; the
/// reducer knows its calls by this name).
pub const TASK_TOOL: &str = "task";

/// Depth 2 and 30 % of what is left per child, unless a profile says
/// otherwise: enough for three parallel helpers that cannot together
/// spend more than the parent had.
pub const DEFAULT_MAX_DEPTH: u32 = 2;
pub const DEFAULT_SHARE_PERCENT: u8 = 30;

impl Default for Delegation {
    fn default() -> Self {
        Self {
            max_depth: DEFAULT_MAX_DEPTH,
            share_percent: DEFAULT_SHARE_PERCENT,
        }
    }
}

impl DelegatedBy {
    /// The child's run id, derived from the parent's and the call's: the
    /// same call always names the same child, so a replay of the parent
    /// finds the children it started in the store. The parent's time
    /// prefix is kept, so the child sorts beside it.
    pub fn child_run_id(parent: RunId, call_id: &crate::ids::CallId) -> RunId {
        let mut bytes = *parent.as_uuid().as_bytes();
        // FNV-1a over the parent and the call: stable across builds.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for b in bytes.iter().chain(call_id.as_str().as_bytes()) {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
        bytes[8..].copy_from_slice(&hash.to_be_bytes());
        // RFC 4122 variant bits, as the parent's v7 id has them.
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        RunId::from_uuid(uuid::Uuid::from_bytes(bytes))
    }
}

impl Delegation {
    /// Whether a run at `depth` may start a child (whose depth is one more).
    pub fn allows_child_at(&self, depth: u32) -> bool {
        depth < self.max_depth
    }

    /// What one child reserves of `remaining` (at least 1 of a count, so
    /// a child can make its one call when anything is left).
    pub fn share_of(&self, remaining: u64) -> u64 {
        let share = u64::from(self.share_percent.min(100));
        (remaining.saturating_mul(share) / 100).max(remaining.min(1))
    }
}

#[cfg(test)]
mod delegation_tests {
    use super::*;

    #[test]
    fn a_share_never_exceeds_what_is_left_and_depth_is_bounded() {
        let d = Delegation::default();
        assert_eq!(d.share_of(100), 30);
        assert_eq!(d.share_of(2), 1);
        assert_eq!(d.share_of(0), 0);
        let mut left = 10u64;
        let mut total = 0;
        for _ in 0..5 {
            let s = d.share_of(left);
            total += s;
            left -= s;
        }
        assert!(total <= 10);
        assert!(d.allows_child_at(0) && d.allows_child_at(1) && !d.allows_child_at(2));
    }

    #[test]
    fn a_call_always_names_the_same_child_and_calls_differ() {
        let parent = RunId::new();
        let a = crate::ids::CallId::new("a").unwrap();
        let b = crate::ids::CallId::new("b").unwrap();
        let child = DelegatedBy::child_run_id(parent, &a);
        assert_eq!(child, DelegatedBy::child_run_id(parent, &a));
        assert_ne!(child, DelegatedBy::child_run_id(parent, &b));
        assert_ne!(child, parent);
        assert_eq!(child.as_uuid().get_version_num(), 7);
    }
}
