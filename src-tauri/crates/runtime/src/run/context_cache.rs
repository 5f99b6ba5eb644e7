//! The loop's context, kept between steps, so a step costs what its new
//! events add, not what the whole run holds.

use super::context::{
    cut_oldest, head_digest, head_parts, item_bytes, latest_compaction, measured, output_cap,
    profile_version, unfitted_history, BuiltContext, ContextInput,
};
use super::context_events::{history_from_events, CURRENT};
use super::context_profile::ContextProfile;
use super::recorded_texts::{instructions_in, summary_text};
use crate::AppError;
use bearagent_kernel::{ContentHash, EventEnvelope, EventPayload, HistoryItem};
use bearagent_providers::{ModelRequest, ToolSchema};
use bearagent_store::Store;
use sha2::Digest;
use std::sync::Arc;

/// The history items of the events already seen, so a step maps only its
/// new events (a compaction starts it over). "What the model saw" never
/// uses it — it rebuilds from the events — and the tests check the two
/// agree byte for byte, digest included.
#[derive(Debug, Default)]
pub struct ContextCache {
    /// Events of the run already mapped into `items`.
    seen: usize,
    /// The history, already fitted to the caps: old results that had to
    /// go are markers (once cut, a result stays cut as the history grows).
    /// Shared with the request sent; unshared again by the next step.
    items: Arc<Vec<HistoryItem>>,
    /// Sum of [`item_bytes`] over `items`.
    total: usize,
    /// Items before this index were already considered for cutting.
    next: usize,
    /// The JSON length of each item, and their sum: a step measures only
    /// what changed, not the whole request.
    json_lens: Vec<u64>,
    json_total: u64,
    /// The SHA-256 of each item's JSON, for the request's digest.
    item_digests: Vec<[u8; 32]>,
    /// The request without its history, measured once while its system
    /// prompt and tools stay the same (they are the same most steps).
    head: Option<Head>,
    chain: DigestChain,
    /// The instructions and summary the events reference.
    pub(super) texts: ReferencedTexts,
    started: bool,
}

/// The project instructions and the latest compaction summary a run's
/// events reference, read from the blob store again only when a new event
/// loads instructions or compacts (not on every step).
#[derive(Debug, Default)]
pub(super) struct ReferencedTexts {
    seen: usize,
    instructions: Arc<Vec<(String, String)>>,
    summary: Option<Arc<str>>,
    started: bool,
}

/// The instructions in force, and the summary of the thread's latest compaction.
pub(super) type Texts = (Arc<Vec<(String, String)>>, Option<Arc<str>>);

impl ReferencedTexts {
    pub(super) fn read(
        &mut self,
        store: &Store,
        ancestors: &[Vec<EventEnvelope>],
        events: &[EventEnvelope],
    ) -> Result<Texts, AppError> {
        let fresh = !self.started || self.seen > events.len();
        let new = events.get(self.seen..).unwrap_or(&[]);
        if fresh
            || new
                .iter()
                .any(|e| matches!(e.payload, EventPayload::InstructionsLoaded { .. }))
        {
            self.instructions = Arc::new(instructions_in(store, events)?);
        }
        if fresh
            || new
                .iter()
                .any(|e| matches!(e.payload, EventPayload::ContextCompacted { .. }))
        {
            self.summary = summary_text(store, ancestors, events)?.map(Arc::from);
        }
        self.seen = events.len();
        self.started = true;
        Ok((self.instructions.clone(), self.summary.clone()))
    }
}

#[derive(Debug)]
struct Head {
    system: String,
    tools: Arc<Vec<ToolSchema>>,
    max_output_tokens: Option<u32>,
    /// Length of the request's JSON with an empty history.
    bytes: u64,
    digest: [u8; 32],
}

impl ContextCache {
    /// The same request [`super::context::build`] makes from `input`.
    pub fn build(&mut self, input: &ContextInput<'_>) -> BuiltContext {
        let new = input.events.get(self.seen..).unwrap_or(&[]);
        // A compaction rewrites the history's start, and so does a todo
        // list updated after one (the start repeats the latest list).
        let compacted = || latest_compaction(input.ancestors, input.events).is_some();
        let restart = !self.started
            || self.seen > input.events.len()
            || new.iter().any(|e| match e.payload {
                EventPayload::ContextCompacted { .. } => true,
                EventPayload::TodoUpdated { .. } => compacted(),
                _ => false,
            });
        let items = Arc::make_mut(&mut self.items);
        let added = if restart {
            items.clear();
            self.json_lens.clear();
            self.item_digests.clear();
            self.json_total = 0;
            self.total = 0;
            self.next = 0;
            unfitted_history(input, CURRENT)
        } else {
            history_from_events(new, input.caps, CURRENT)
        };
        let mut changed_from = items.len();
        self.total += added.iter().map(item_bytes).sum::<usize>();
        for item in &added {
            let (len, digest) = measured(item);
            self.json_lens.push(len);
            self.item_digests.push(digest);
            self.json_total += len;
        }
        items.extend(added);
        let first_cut = self.next;
        cut_oldest(
            items,
            &mut self.total,
            &mut self.next,
            input.caps.max_context_bytes as usize,
        );
        // Only the items just considered may have become markers.
        for ((item, len), digest) in items[first_cut..self.next]
            .iter()
            .zip(&mut self.json_lens[first_cut..])
            .zip(&mut self.item_digests[first_cut..])
        {
            let (now, now_digest) = measured(item);
            self.json_total = self.json_total - *len + now;
            *len = now;
            *digest = now_digest;
            changed_from = changed_from.min(first_cut);
        }
        self.seen = input.events.len();
        self.started = true;
        let version = profile_version(ContextProfile::of_run(input.events));
        let (system, tools) = head_parts(version, input);
        let cap = output_cap(version);
        let head = measured_head(&mut self.head, system, &tools, cap);
        let count = self.json_lens.len() as u64;
        // `[]` becomes `[a,b,…]`: the items and the commas between them.
        let bytes = head.bytes + self.json_total + count.saturating_sub(1);
        let request = ModelRequest {
            system: head.system.clone(),
            history: self.items.clone(),
            tools: head.tools.clone(),
            max_output_tokens: cap,
            images: Default::default(),
        };
        let digest = self
            .chain
            .digest(head.digest, &self.item_digests, changed_from);
        BuiltContext {
            request,
            version,
            bytes,
            digest,
        }
    }
}

/// The measured head for this system prompt and these tools: the last
/// one when neither changed.
fn measured_head<'a>(
    last: &'a mut Option<Head>,
    system: String,
    tools: &[ToolSchema],
    cap: Option<u32>,
) -> &'a Head {
    let same = last.as_ref().is_some_and(|h| {
        h.system == system && h.max_output_tokens == cap && identical_tools(&h.tools, tools)
    });
    if !same {
        *last = None;
    }
    last.get_or_insert_with(|| {
        let probe = ModelRequest {
            system,
            history: Arc::default(),
            tools: Arc::new(tools.to_vec()),
            max_output_tokens: cap,
            images: Default::default(),
        };
        Head {
            max_output_tokens: cap,
            bytes: measured(&probe).0,
            digest: head_digest(&probe),
            system: probe.system,
            tools: probe.tools,
        }
    })
}

/// Whether two tool lists serialise to the same bytes. Not `==`: JSON
/// objects there are equal whatever their keys' order (and 0.0 equals
/// -0.0), but the request's bytes and digest are not.
fn identical_tools(a: &[ToolSchema], b: &[ToolSchema]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.name == y.name
                && x.description == y.description
                && identical_json(&x.parameters, &y.parameters)
        })
}

fn identical_json(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as V;
    match (a, b) {
        (V::Object(x), V::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && identical_json(vx, vy))
        }
        (V::Array(x), V::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| identical_json(p, q))
        }
        (V::Number(x), V::Number(y)) => {
            x == y && x.as_f64().map(f64::to_bits) == y.as_f64().map(f64::to_bits)
        }
        (x, y) => x == y,
    }
}

/// Items between two kept hash states.
const CHAIN_STRIDE: usize = 64;

/// The request digest — SHA-256 over the head's digest, then each item's
/// in order — kept as hash states every [`CHAIN_STRIDE`] items, so a step
/// hashes from the first item that changed, not the whole history.
#[derive(Debug, Default)]
struct DigestChain {
    head: [u8; 32],
    /// `marks[k]`: the state after the head and the first `k * CHAIN_STRIDE` items.
    marks: Vec<sha2::Sha256>,
}

impl DigestChain {
    fn digest(&mut self, head: [u8; 32], items: &[[u8; 32]], changed_from: usize) -> ContentHash {
        if self.marks.is_empty() || self.head != head {
            self.head = head;
            self.marks.clear();
            let mut start = sha2::Sha256::new();
            start.update(head);
            self.marks.push(start);
        }
        let valid = changed_from.min(items.len()) / CHAIN_STRIDE + 1;
        self.marks.truncate(valid);
        let from = (self.marks.len() - 1) * CHAIN_STRIDE;
        let mut state = self.marks[self.marks.len() - 1].clone();
        for (i, item) in items.iter().enumerate().skip(from) {
            state.update(item);
            if (i + 1) % CHAIN_STRIDE == 0 {
                self.marks.push(state.clone());
            }
        }
        ContentHash::from_digest(state.finalize().into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(head: [u8; 32], items: &[[u8; 32]]) -> ContentHash {
        let mut state = sha2::Sha256::new();
        state.update(head);
        for item in items {
            state.update(item);
        }
        ContentHash::from_digest(state.finalize().into())
    }

    #[test]
    fn tools_whose_keys_moved_or_whose_zero_changed_sign_are_not_the_same_head() {
        let tool = |parameters| ToolSchema {
            name: "t".into(),
            description: "d".into(),
            parameters,
        };
        let ab = tool(serde_json::json!({"a": 1, "b": {"c": [1.5]}}));
        let ba = tool(serde_json::json!({"b": {"c": [1.5]}, "a": 1}));
        assert_eq!(ab, ba, "serde_json calls them equal");
        assert!(!identical_tools(std::slice::from_ref(&ab), &[ba]));
        assert!(identical_tools(
            std::slice::from_ref(&ab),
            std::slice::from_ref(&ab)
        ));
        let zero = tool(serde_json::json!({"x": 0.0}));
        let negative = tool(serde_json::json!({"x": -0.0}));
        assert!(!identical_tools(&[zero], &[negative]));
    }

    #[test]
    fn the_chain_digest_equals_hashing_everything_whatever_changed() {
        let mut chain = DigestChain::default();
        let mut items: Vec<[u8; 32]> = Vec::new();
        let mut head = [1u8; 32];
        for step in 0..400usize {
            let mut changed_from = items.len();
            items.push([(step % 251) as u8; 32]);
            if step % 7 == 0 && items.len() > 3 {
                // An old item becomes a marker.
                let at = (step * 13) % (items.len() - 1);
                items[at] = [0xee; 32];
                changed_from = at;
            }
            if step % 97 == 0 {
                head = [(step % 200) as u8; 32];
            }
            assert_eq!(
                chain.digest(head, &items, changed_from),
                whole(head, &items),
                "step {step}"
            );
        }
        // A restart (a compaction): fewer items than before.
        items.truncate(10);
        assert_eq!(chain.digest(head, &items, 0), whole(head, &items));
    }
}
