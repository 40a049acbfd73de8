//! The one rule every URL path segment obeys.
//!
//! `ascii_name` stays hand-written: `deunicode` and `slug` fold every script and lowercase, while
//! a package name keeps its case and folds Latin letters only.

/// Slugs, tag names and series names become URL path segments, so they are restricted to this.
pub const SLUG_PATTERN: &str = "^[a-z0-9-]+$";

/// True when `s` matches [`SLUG_PATTERN`]. This also rules out `.`, `..`, `/` and `\`, which is
/// what keeps every output path inside the output folder.
pub fn is_valid_slug(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The slug of a title or a tag, in any script: transliterated to ASCII by `deunicode` (a
/// well-kept table of every script: `é` → `e`, `ß` → `ss`, `Ş` → `S`, `指南` → `zhi nan`,
/// `한국어` → `hangugeo`, `Привет` → `privet`), apostrophes dropped (`Şişli'de` → `sislide`),
/// then lowercased with every other run of characters one hyphen by the `slug` crate. `None`
/// when nothing is left. The title or tag as written stays its display text; only the URL
/// uses this.
pub fn slugify(title: &str) -> Option<String> {
    let ascii = deunicode::deunicode(title).replace(['\'', '`'], "");
    let slug = ::slug::slugify(ascii);
    (!slug.is_empty()).then_some(slug)
}

/// Whether `c` is a letter of the Latin script beyond ASCII (Latin-1 to Latin Extended
/// Additional): the letters [`ascii_name`] folds.
fn is_latin(c: char) -> bool {
    matches!(c, '\u{00C0}'..='\u{024F}' | '\u{1E00}'..='\u{1EFF}') && c.is_alphabetic()
}

/// An ASCII form of a name, for the places only ASCII is read (a generated client's package
/// name comes from `openapi.json`'s title): accented Latin letters folded by `deunicode`
/// (`Lucía` → `Lucia`, the case kept), dashes `-`, every other non-ASCII character a space,
/// spaces collapsed. `None` when no ASCII letter or digit is left.
pub fn ascii_name(name: &str) -> Option<String> {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii() {
            out.push(c);
        } else if is_latin(c) {
            out.push_str(deunicode::deunicode_char(c).unwrap_or(" "));
        } else if matches!(c, '\u{2010}'..='\u{2015}' | '\u{2212}') {
            out.push('-');
        } else {
            out.push(' ');
        }
    }
    let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    out.chars()
        .any(|c| c.is_ascii_alphanumeric())
        .then_some(out)
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
    #[test]
    fn slugs_are_lowercase_ascii_words_joined_by_hyphens() {
        assert_eq!(slugify("Hello, World!").as_deref(), Some("hello-world"));
        assert_eq!(
            slugify("  Café con Leche en Medellín  ").as_deref(),
            Some("cafe-con-leche-en-medellin")
        );
        assert_eq!(
            slugify("Año 2024: ¿qué sigue?").as_deref(),
            Some("ano-2024-que-sigue")
        );
        assert_eq!(slugify("Straße").as_deref(), Some("strasse"));
        assert_eq!(slugify("C++ & Rust").as_deref(), Some("c-rust"));
        assert_eq!(slugify("!!!"), None);
        assert_eq!(slugify("I'm here").as_deref(), Some("im-here"));
        for title in ["Hello, World!", "Café", "Año 2024: ¿qué sigue?"] {
            assert!(is_valid_slug(&slugify(title).unwrap()));
        }
    }

    #[test]
    fn every_script_the_census_met_gets_a_readable_slug() {
        assert_eq!(
            slugify("Şişli'de İstanbul").as_deref(),
            Some("sislide-istanbul")
        );
        assert_eq!(slugify("指南").as_deref(), Some("zhi-nan"));
        assert_eq!(slugify("日本語").as_deref(), Some("ri-ben-yu"));
        assert_eq!(slugify("한국어").as_deref(), Some("hangugeo"));
        assert_eq!(slugify("Привет, мир").as_deref(), Some("privet-mir"));
        assert_eq!(
            slugify("Zażółć gęślą jaźń").as_deref(),
            Some("zazolc-gesla-jazn")
        );
        for title in ["指南", "한국어", "Привет", "Şişli'de İstanbul", "Web App"] {
            assert!(is_valid_slug(&slugify(title).unwrap()), "{title}");
        }
    }

    #[test]
    fn ascii_names_fold_accents_and_keep_case() {
        assert_eq!(
            ascii_name("Lucía Montoya — Notes API").as_deref(),
            Some("Lucia Montoya - Notes API")
        );
        assert_eq!(
            ascii_name("Ñandú  Straße").as_deref(),
            Some("Nandu Strasse")
        );
        assert_eq!(ascii_name("日本語のブログ"), None);
        assert_eq!(ascii_name("Blog 日本"), Some("Blog".into()));
    }
}
