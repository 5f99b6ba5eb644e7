//! The stable-toolchain cousin of the cargo-fuzz targets: random bytes and
//! shuffled real event lines, in random chunks, into every decoder. Nothing
//! may panic, and the stream contract holds: at most one terminal item
//! (`Completed` or an error), and it is the last.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use bearagent_providers::{decode, Protocol, ProviderError, StreamItem};
use proptest::prelude::*;
use std::sync::OnceLock;

fn assert_contract(items: &[Result<StreamItem, ProviderError>]) {
    let terminal = |i: &Result<StreamItem, ProviderError>| {
        matches!(i, Err(_) | Ok(StreamItem::Completed { .. }))
    };
    let count = items.iter().filter(|i| terminal(i)).count();
    assert_eq!(count, 1, "exactly one terminal item: {items:?}");
    assert!(terminal(items.last().unwrap()), "the terminal item is last");
    assert!(!items
        .iter()
        .any(|i| matches!(i, Ok(StreamItem::Retrying(_)))));
}

fn split<'a>(body: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (body.len() + 1)).collect();
    points.sort_unstable();
    let mut chunks = Vec::new();
    let mut at = 0;
    for p in points {
        chunks.push(&body[at..p]);
        at = p;
    }
    chunks.push(&body[at..]);
    chunks
}

/// Lines of the real recordings, per protocol: material for plausible
/// but scrambled streams.
fn lines(protocol: Protocol) -> &'static [Vec<u8>] {
    static LINES: OnceLock<Vec<(Protocol, Vec<Vec<u8>>)>> = OnceLock::new();
    let all = LINES.get_or_init(|| {
        Protocol::ALL
            .into_iter()
            .map(|p| {
                let lines = support::recordings()
                    .into_iter()
                    .filter(|r| r.protocol == p)
                    .flat_map(|r| {
                        r.sse
                            .split(|b| *b == b'\n')
                            .map(<[u8]>::to_vec)
                            .collect::<Vec<_>>()
                    })
                    .filter(|l| l.len() < 4096)
                    .collect();
                (p, lines)
            })
            .collect()
    });
    &all.iter().find(|(p, _)| *p == protocol).unwrap().1
}

fn protocol() -> impl Strategy<Value = Protocol> {
    prop_oneof![
        Just(Protocol::OpenAiChat),
        Just(Protocol::OpenAiResponses),
        Just(Protocol::Anthropic),
        Just(Protocol::OllamaChat)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(
        protocol in protocol(),
        body in proptest::collection::vec(any::<u8>(), 0..2048),
        cuts in proptest::collection::vec(any::<usize>(), 0..6),
    ) {
        assert_contract(&decode::decode(protocol, &split(&body, &cuts)));
    }

    #[test]
    fn sse_shaped_noise_never_panics(
        protocol in protocol(),
        parts in proptest::collection::vec(
            prop_oneof![
                Just("data: ".to_owned()), Just("event: ".to_owned()), Just(": c".to_owned()),
                Just("\n".to_owned()), Just("\r\n".to_owned()), Just("\r".to_owned()),
                Just("[DONE]".to_owned()), Just("{".to_owned()), Just("}".to_owned()),
                Just("\u{feff}".to_owned()), Just("°".to_owned()), "[ -~]{0,12}",
            ],
            0..64,
        ),
        cuts in proptest::collection::vec(any::<usize>(), 0..6),
    ) {
        let body = parts.concat().into_bytes();
        assert_contract(&decode::decode(protocol, &split(&body, &cuts)));
    }

    #[test]
    fn shuffled_real_events_never_panic(
        protocol in protocol(),
        picks in proptest::collection::vec((any::<prop::sample::Index>(), 0usize..3), 1..40),
        cuts in proptest::collection::vec(any::<usize>(), 0..4),
    ) {
        let source = lines(protocol);
        let mut body = Vec::new();
        for (pick, mangle) in picks {
            let line = pick.get(source);
            match mangle {
                // Whole line, or the line cut short, or followed by a blank line.
                0 => body.extend_from_slice(line),
                1 => body.extend_from_slice(&line[..line.len() / 2]),
                _ => { body.extend_from_slice(line); body.push(b'\n'); }
            }
            body.push(b'\n');
        }
        assert_contract(&decode::decode(protocol, &split(&body, &cuts)));
    }
}
