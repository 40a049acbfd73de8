//! The production base URL, rewritten to the local address in what `serve` sends.
//!
//! The output folder always holds production URLs (it is what gets deployed); the preview
//! server rewrites them in each response body, as Hugo's server does for its pages, so that
//! following a URL of the API stays on the preview.

use memchr::memmem;

/// Replaces every occurrence of `from` that is a whole URL prefix by `to`. `None` when `bytes`
/// has none (the caller keeps the bytes it has).
///
/// An occurrence counts when the next byte cannot continue the host or path segment `from` ends
/// with: `https://a.example` is rewritten in `https://a.example/api/x.json` and in
/// `https://a.example"`, not in `https://a.example.org` or `https://a.examples`.
pub fn rewrite(bytes: &[u8], from: &str, to: &str) -> Option<Vec<u8>> {
    let from = from.as_bytes();
    if from.is_empty() {
        return None;
    }
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0;
    for at in memmem::find_iter(bytes, from) {
        let end = at + from.len();
        if at < copied || continues_url(&bytes[end..]) {
            continue;
        }
        let out = out.get_or_insert_with(|| Vec::with_capacity(bytes.len()));
        out.extend_from_slice(&bytes[copied..at]);
        out.extend_from_slice(to.as_bytes());
        copied = end;
    }
    let mut out = out?;
    out.extend_from_slice(&bytes[copied..]);
    Some(out)
}

/// [`rewrite`] over a file read in chunks, so that a large file costs a chunk, not its size:
/// each chunk is fed in turn, and the bytes that could still start a match (up to the length
/// of `from` plus the two bytes that decide it) wait for the next one. The output is the same
/// bytes `rewrite` gives for the whole file.
pub struct Rewriter {
    from: Box<[u8]>,
    to: Box<[u8]>,
    pending: Vec<u8>,
}

impl Rewriter {
    pub fn new(from: &str, to: &str) -> Rewriter {
        Rewriter {
            from: from.as_bytes().into(),
            to: to.as_bytes().into(),
            pending: Vec::new(),
        }
    }

    /// Adds `chunk`; appends to `out` every byte that is decided.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<u8>) {
        self.pending.extend_from_slice(chunk);
        self.drain(out, false);
    }

    /// The end of the file: appends the rest.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        self.drain(out, true);
    }

    fn drain(&mut self, out: &mut Vec<u8>, last: bool) {
        let data = std::mem::take(&mut self.pending);
        if self.from.is_empty() {
            out.extend_from_slice(&data);
            return;
        }
        // A match starting at `undecided` or later may run past the data, or need the two
        // bytes after it: it waits.
        let undecided = if last {
            data.len()
        } else {
            data.len().saturating_sub(self.from.len() + 1)
        };
        let mut copied = 0;
        for at in memmem::find_iter(&data, &self.from) {
            if at >= undecided {
                break;
            }
            let end = at + self.from.len();
            if at < copied || continues_url(&data[end..]) {
                continue;
            }
            out.extend_from_slice(&data[copied..at]);
            out.extend_from_slice(&self.to);
            copied = end;
        }
        let cut = undecided.max(copied);
        out.extend_from_slice(&data[copied..cut]);
        self.pending = data[cut..].to_vec();
    }
}

/// Whether `rest` (what follows a match) continues the last host label or path segment.
fn continues_url(rest: &[u8]) -> bool {
    match rest {
        [c, ..] if c.is_ascii_alphanumeric() || *c == b'-' || *c == b'_' => true,
        // A dot followed by a label: another host (`.org`), not the end of a sentence.
        [b'.', c, ..] => c.is_ascii_alphanumeric(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::rewrite;

    fn rewritten(text: &str) -> Option<String> {
        rewrite(
            text.as_bytes(),
            "https://a.example",
            "http://127.0.0.1:4321",
        )
        .map(|bytes| String::from_utf8(bytes).unwrap())
    }

    #[test]
    fn every_url_of_the_site_points_at_the_local_address() {
        assert_eq!(
            rewritten(r#"{"url":"https://a.example/api/x.json","home":"https://a.example"}"#)
                .as_deref(),
            Some(r#"{"url":"http://127.0.0.1:4321/api/x.json","home":"http://127.0.0.1:4321"}"#)
        );
        assert_eq!(
            rewritten("See https://a.example. Or https://a.example#x, (https://a.example)")
                .as_deref(),
            Some("See http://127.0.0.1:4321. Or http://127.0.0.1:4321#x, (http://127.0.0.1:4321)")
        );
    }

    #[test]
    fn rewriting_chunk_by_chunk_gives_the_bytes_of_the_whole() {
        let text = "https://a.example/x https://a.example.org https://a.example, https://a.examples https://a.example";
        let whole = super::rewrite(text.as_bytes(), "https://a.example", "http://l:1").unwrap();
        for size in 1..=text.len() {
            let mut rewriter = super::Rewriter::new("https://a.example", "http://l:1");
            let mut out = Vec::new();
            for chunk in text.as_bytes().chunks(size) {
                rewriter.feed(chunk, &mut out);
            }
            rewriter.finish(&mut out);
            assert_eq!(out, whole, "chunks of {size}");
        }
    }

    #[test]
    fn other_hosts_that_start_the_same_are_left_alone() {
        assert_eq!(
            rewritten("https://a.example.org/x and https://a.examples"),
            None
        );
        assert_eq!(rewritten("no url here"), None);
        assert_eq!(
            rewritten("https://a.example.org https://a.example/x").as_deref(),
            Some("https://a.example.org http://127.0.0.1:4321/x")
        );
    }
}
