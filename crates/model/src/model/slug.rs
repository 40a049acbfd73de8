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

/// The slug of a title: lowercase ASCII letters and digits, accents dropped (`é` → `e`,
/// `ñ` → `n`, `ß` → `ss`), every other run of characters one hyphen. `None` when nothing is
/// left.
pub fn slugify(title: &str) -> Option<String> {
    let mut slug = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        let ascii = fold_accent(c);
        if !ascii.is_empty() {
            slug.push_str(ascii);
        } else if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-').to_string();
    (!slug.is_empty()).then_some(slug)
}

/// The ASCII letters of a lowercase accented Latin letter (the Latin-1 and Latin Extended-A
/// letters Spanish, French, German and Portuguese titles use); empty for anything else.
pub fn fold_accent(c: char) -> &'static str {
    match c {
        'á' | 'à' | 'â' | 'ä' | 'ã' | 'å' | 'ā' => "a",
        'é' | 'è' | 'ê' | 'ë' | 'ē' | 'ę' | 'ě' => "e",
        'í' | 'ì' | 'î' | 'ï' | 'ī' => "i",
        'ó' | 'ò' | 'ô' | 'ö' | 'õ' | 'ø' | 'ō' => "o",
        'ú' | 'ù' | 'û' | 'ü' | 'ū' | 'ů' => "u",
        'ý' | 'ÿ' => "y",
        'ñ' | 'ń' | 'ň' => "n",
        'ç' | 'ć' | 'č' => "c",
        'š' | 'ś' => "s",
        'ž' | 'ź' | 'ż' => "z",
        'ł' => "l",
        'ř' => "r",
        'ď' => "d",
        'ť' => "t",
        'ß' => "ss",
        'æ' => "ae",
        'œ' => "oe",
        _ => "",
    }
}

/// An ASCII form of a name, for the places only ASCII is read (a generated client's package
/// name comes from `openapi.json`'s title): accented Latin letters folded (`Lucía` → `Lucia`,
/// the case kept), dashes `-`, every other non-ASCII character a space, spaces collapsed.
/// `None` when no ASCII letter or digit is left.
pub fn ascii_name(name: &str) -> Option<String> {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii() {
            out.push(c);
            continue;
        }
        let lower: Vec<char> = c.to_lowercase().collect();
        let folded = match lower.as_slice() {
            [single] => fold_accent(*single),
            _ => "",
        };
        if !folded.is_empty() {
            if c.is_uppercase() {
                let mut letters = folded.chars();
                out.extend(letters.next().map(|f| f.to_ascii_uppercase()));
                out.extend(letters);
            } else {
                out.push_str(folded);
            }
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
        assert_eq!(slugify("日本語"), None);
        for title in ["Hello, World!", "Café", "Año 2024: ¿qué sigue?"] {
            assert!(is_valid_slug(&slugify(title).unwrap()));
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
