//! The one rule every URL path segment obeys.

/// Slugs, tag names and series names become URL path segments, so they are restricted to this.
pub const SLUG_PATTERN: &str = "^[a-z0-9-]+$";

/// True when `s` matches [`SLUG_PATTERN`]. This also rules out `.`, `..`, `/` and `\`, which is
/// what keeps every output path inside the output folder.
pub fn is_valid_slug(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_lowercase_digits_and_hyphens() {
        assert!(is_valid_slug("rust-2024"));
        assert!(is_valid_slug("a"));
    }

    #[test]
    fn rejects_anything_that_could_escape_a_path_or_break_a_url() {
        for bad in [
            "", "..", "a/b", "a\\b", "Rust", "café", "a b", "a_b", ".hidden",
        ] {
            assert!(!is_valid_slug(bad), "{bad:?} should be rejected");
        }
    }
}
