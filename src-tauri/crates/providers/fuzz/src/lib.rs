//! Shared body of the fuzz targets: arbitrary bytes, cut into chunks at
//! input-chosen offsets, through one protocol's pure decoder; the stream
//! contract is checked so a violation is a finding, not only a panic.

use bearagent_providers::{decode, Protocol, StreamItem};

/// The first byte chooses up to 7 cut points (its low 3 bits) taken from
/// the next bytes; the rest is the response body.
pub fn run(protocol: Protocol, data: &[u8]) {
    let (cuts, body) = match data.split_first() {
        Some((first, rest)) => {
            let n = usize::from(first & 7).min(rest.len());
            rest.split_at(n)
        }
        None => (&[][..], data),
    };
    let mut points: Vec<usize> = cuts
        .iter()
        .map(|c| usize::from(*c) * body.len() / 255)
        .collect();
    points.sort_unstable();
    let mut chunks = Vec::with_capacity(points.len() + 1);
    let mut at = 0;
    for p in points {
        chunks.push(&body[at..p]);
        at = p;
    }
    chunks.push(&body[at..]);
    let items = decode::decode(protocol, &chunks);
    let terminal = |i: &Result<StreamItem, _>| matches!(i, Err(_) | Ok(StreamItem::Completed { .. }));
    assert_eq!(items.iter().filter(|i| terminal(i)).count(), 1);
    assert!(items.last().is_some_and(terminal));
}
