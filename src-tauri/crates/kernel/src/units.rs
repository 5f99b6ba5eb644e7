//! Sizes and counts as people read them.

/// `12 bytes`, `1 byte`, `1.2 KB`, `3.4 MB`, `1.0 GB` (1024-based).
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 3] = ["KB", "MB", "GB"];
    if n < 1024 {
        return plural(n, "byte", "bytes");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// `1 match`, `3 matches`.
pub fn plural(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(1), "1 byte");
        assert_eq!(human_bytes(12), "12 bytes");
        assert_eq!(human_bytes(1229), "1.2 KB");
        assert_eq!(human_bytes(3 * 1024 * 1024 + 400_000), "3.4 MB");
        assert_eq!(plural(3u64, "match", "matches"), "3 matches");
        assert_eq!(plural(1u64, "entry", "entries"), "1 entry");
    }
}
