use super::{omission_marker, Capture};

fn feed(cap: usize, pieces: &[&[u8]]) -> super::Captured {
    let mut capture = Capture::new(cap);
    for piece in pieces {
        capture.push(piece);
    }
    capture.finish()
}

#[test]
fn short_output_is_kept_whole() {
    let out = feed(10, &[b"abc", b"", b"de"]);
    assert_eq!(out.output, b"abcde");
    assert_eq!(out.total, 5);
    assert!(!out.truncated);
}

#[test]
fn exactly_the_cap_is_not_truncated() {
    let out = feed(6, &[b"abcd", b"ef"]);
    assert_eq!(out.output, b"abcdef");
    assert!(!out.truncated);
}

#[test]
fn long_output_keeps_head_and_tail_with_a_marker() {
    let out = feed(6, &[b"ab", b"cdefgh", b"ij", b"klmnop"]);
    assert_eq!(out.total, 16);
    assert!(out.truncated);
    let expected = format!("abc\n{}nop", omission_marker(10));
    assert_eq!(String::from_utf8(out.output).unwrap(), expected);
}

#[test]
fn the_tail_follows_many_small_pieces() {
    let mut capture = Capture::new(4);
    for byte in 0u8..200 {
        capture.push(&[byte]);
    }
    let out = capture.finish();
    assert_eq!(out.total, 200);
    assert_eq!(&out.output[..2], &[0, 1]);
    assert_eq!(&out.output[out.output.len() - 2..], &[198, 199]);
}

#[test]
fn a_head_ending_with_a_newline_gets_no_extra_one() {
    let out = feed(4, &[b"a\nxxxxxxxx\nyz"]);
    assert_eq!(
        String::from_utf8(out.output).unwrap(),
        format!("a\n{}yz", omission_marker(9))
    );
}

#[test]
fn a_zero_cap_keeps_only_the_marker() {
    let out = feed(0, &[b"hello"]);
    assert_eq!(String::from_utf8(out.output).unwrap(), omission_marker(5));
    assert!(out.truncated);
    assert!(!feed(0, &[]).truncated);
}
