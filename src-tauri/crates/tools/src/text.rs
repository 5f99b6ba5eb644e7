//! Small text helpers: UTF-8-safe truncation and human-readable sizes.

/// The largest index `<= max` that is a char boundary of `s`.
pub fn floor_char_boundary(s: &str, max: usize) -> usize {
    if max >= s.len() {
        return s.len();
    }
    let mut i = max;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest index `>= min` that is a char boundary of `s`.
pub(crate) fn ceil_char_boundary(s: &str, min: usize) -> usize {
    let mut i = min.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The largest index `<= max` that does not split a UTF-8 sequence in
/// `bytes` (which may itself be invalid UTF-8).
pub(crate) fn floor_utf8_boundary(bytes: &[u8], max: usize) -> usize {
    if max >= bytes.len() {
        return bytes.len();
    }
    let mut i = max;
    // Back off over at most three continuation bytes (0b10xx_xxxx).
    while i > 0 && max - i < 3 && (bytes[i] & 0xC0) == 0x80 {
        i -= 1;
    }
    if (bytes[i] & 0xC0) == 0x80 {
        max
    } else {
        i
    }
}

pub(crate) use bearagent_kernel::units::{human_bytes, plural};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_boundary_never_splits_a_character() {
        let s = "aé€😀";
        for max in 0..=s.len() + 2 {
            let cut = floor_char_boundary(s, max);
            assert!(s.is_char_boundary(cut));
            assert!(cut <= max.min(s.len()));
        }
        assert_eq!(floor_char_boundary(s, 2), 1);
    }

    #[test]
    fn utf8_boundary_on_bytes() {
        let bytes = "a😀b".as_bytes();
        assert_eq!(floor_utf8_boundary(bytes, 3), 1);
        assert_eq!(floor_utf8_boundary(bytes, 5), 5);
        assert_eq!(floor_utf8_boundary(b"\x80\x80\x80\x80\x80", 4), 4);
    }
}
