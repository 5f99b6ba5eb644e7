//! Bounded output capture: the first half of the cap and a ring buffer of the
//! last half, so a flood never sits in memory whole.

use std::collections::VecDeque;

pub(super) struct Capture {
    head_cap: usize,
    tail_cap: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
}

/// What was kept: `output` (head, marker line, tail when something was
/// dropped), the byte count seen, and whether anything was dropped.
pub(super) struct Captured {
    pub output: Vec<u8>,
    pub total: u64,
    pub truncated: bool,
}

impl Capture {
    pub(super) fn new(cap: usize) -> Self {
        let head_cap = cap / 2;
        Capture {
            head_cap,
            tail_cap: cap - head_cap,
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
        }
    }

    pub(super) fn push(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        let room = self.head_cap - self.head.len();
        if room > 0 {
            let take = room.min(data.len());
            self.head.extend_from_slice(&data[..take]);
            data = &data[take..];
        }
        if data.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&data[data.len() - self.tail_cap..]);
            return;
        }
        let overflow = (self.tail.len() + data.len()).saturating_sub(self.tail_cap);
        self.tail.drain(..overflow);
        self.tail.extend(data);
    }

    pub(super) fn finish(self) -> Captured {
        let kept = (self.head.len() + self.tail.len()) as u64;
        let omitted = self.total - kept;
        let mut output = self.head;
        if omitted > 0 {
            if !output.is_empty() && !output.ends_with(b"\n") {
                output.push(b'\n');
            }
            output.extend_from_slice(omission_marker(omitted).as_bytes());
        }
        output.extend(self.tail);
        Captured {
            output,
            total: self.total,
            truncated: omitted > 0,
        }
    }
}

/// The line standing in for dropped bytes.
pub(super) fn omission_marker(omitted: u64) -> String {
    format!("[… {omitted} bytes omitted …]\n")
}

#[cfg(test)]
#[path = "capture_tests.rs"]
mod tests;
