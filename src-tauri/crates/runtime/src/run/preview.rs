//! A large tool result as the model sees it: head, a note of what was
//! cut, tail — deterministic, so the same result always reads the same.
//! Floor 0 of `run/`.

/// Head + "[N bytes omitted]" + tail, cut on character boundaries.
pub fn preview(content: &str, max: usize) -> String {
    if content.len() <= max {
        return content.to_owned();
    }
    let head_len = floor_char_boundary(content, max * 2 / 3);
    let tail_start = ceil_char_boundary(content, content.len() - max / 3);
    let omitted = tail_start - head_len;
    format!(
        "{}\n[... {omitted} bytes omitted; original size {} bytes ...]\n{}",
        &content[..head_len],
        content.len(),
        &content[tail_start..]
    )
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}
