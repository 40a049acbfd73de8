//! A post's body as it is published.
//!
//! The Markdown variant and `llms-full.txt` publish a `.md` post's body as read when that only
//! drops the blank lines around it: no carriage returns, and no line that reads like one of
//! `llms-full.txt`'s section lines (which that file would indent). Such a body is the same
//! range of the file's bytes in every output, which is what lets a one-shot build leave it on
//! disk (`session::load`).

/// The lines that open and close a post's section of `llms-full.txt`. A body line starting like
/// one is indented there by one space, so that they always mean a section boundary.
pub const SECTION_OPEN: &str = "<post ";
/// The line that closes a post's section (see [`SECTION_OPEN`]).
pub const SECTION_CLOSE: &str = "</post>";

/// The range of `text` that trimming the blank lines around the body `text[start..]` leaves,
/// followed by its newline, when the body is published as such a range: it has no carriage
/// return, and its last line ends with `\n` in the file.
pub fn unchanged_body_range(text: &str, start: usize) -> Option<std::ops::Range<usize>> {
    let body = text.get(start..)?;
    if body.contains('\r') {
        return None;
    }
    let leading = body.len() - body.trim_start_matches('\n').len();
    let trimmed = body[leading..].trim_end();
    if trimmed.is_empty() {
        return Some(start..start);
    }
    let end = start + leading + trimmed.len();
    (text.as_bytes().get(end) == Some(&b'\n')).then_some(start + leading..end + 1)
}

/// Whether a line of `body` starts like one of `llms-full.txt`'s section lines.
pub fn has_section_line(body: &str) -> bool {
    let starts_a_line =
        |marker: &str| body.starts_with(marker) || body.contains(&format!("\n{marker}"));
    starts_a_line(SECTION_OPEN) || starts_a_line(SECTION_CLOSE)
}
