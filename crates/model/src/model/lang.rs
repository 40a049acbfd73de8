//! A content language ([`Lang`]) and the site's set of them ([`Languages`]).
//!
//! A language is a BCP 47 tag (`en`, `fr`, `pt-BR`, `zh-CN`). Its code, in every path, file
//! name and JSON field, is the tag in lowercase (`pt-br`), as Hugo names its language
//! folders: URL segments stay lowercase and a folder named `pt-BR/` or `pt-br/` means the same
//! language. Which languages a site has is its configuration (`languages` in `watch.toml`);
//! without one, the seed's two, `en` and `es`.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::{Mutex, OnceLock};

/// A content language: an interned lowercase BCP 47 tag, so it is `Copy` and compares in O(1)
/// length. Its order is the code's (`en` before `es`), the tie-break of posts on one date.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lang(&'static str);

/// Every code interned so far. A site has a handful; each is leaked once, on first sight.
fn interned() -> &'static Mutex<BTreeSet<&'static str>> {
    static CODES: OnceLock<Mutex<BTreeSet<&'static str>>> = OnceLock::new();
    CODES.get_or_init(Mutex::default)
}

impl Lang {
    /// English, the default language of a site that names none.
    pub const EN: Lang = Lang("en");
    /// Spanish, the seed site's second language.
    pub const ES: Lang = Lang("es");

    /// The language of a well-formed tag (any case), or `None`. Well-formed: a primary subtag
    /// of 2–3 letters, then subtags of 1–8 letters or digits (`zh-Hant-TW`, `de-CH-1996`).
    pub fn parse(tag: &str) -> Option<Lang> {
        if !is_well_formed(tag) {
            return None;
        }
        let code = tag.to_ascii_lowercase();
        let mut codes = interned().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&known) = codes.get(code.as_str()) {
            return Some(Lang(known));
        }
        let leaked: &'static str = Box::leak(code.into_boxed_str());
        codes.insert(leaked);
        Some(Lang(leaked))
    }

    /// The code: the tag in lowercase.
    pub fn as_str(self) -> &'static str {
        self.0
    }

    /// The suffix of localized front-matter keys, as in `titleEs`: each subtag with its first
    /// letter in uppercase and the rest in lowercase, joined (`fr` → `Fr`, `zh-CN` → `ZhCn`,
    /// `pt-BR` → `PtBr`).
    pub fn field_suffix(self) -> String {
        self.0
            .split('-')
            .map(|part| {
                let mut chars = part.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_ascii_uppercase().to_string() + chars.as_str()
                })
            })
            .collect()
    }
}

impl Lang {
    /// The language a localized key's suffix names (`Es`, `ZhCn`, `PtBr`): the inverse of
    /// [`Lang::field_suffix`], each uppercase letter starting a subtag.
    pub fn from_field_suffix(suffix: &str) -> Option<Lang> {
        if !suffix.starts_with(|c: char| c.is_ascii_uppercase())
            || !suffix.bytes().all(|b| b.is_ascii_alphanumeric())
        {
            return None;
        }
        let mut tag = String::with_capacity(suffix.len() + 2);
        for (at, c) in suffix.char_indices() {
            if c.is_ascii_uppercase() && at > 0 {
                tag.push('-');
            }
            tag.push(c.to_ascii_lowercase());
        }
        Lang::parse(&tag)
    }
}

fn is_well_formed(tag: &str) -> bool {
    let mut parts = tag.split('-');
    let primary_ok = parts
        .next()
        .is_some_and(|p| (2..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphabetic()));
    primary_ok
        && parts.all(|p| (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric()))
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl fmt::Debug for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Lang({})", self.0)
    }
}

/// The site's languages, in the site's order (the order documents list them in). The first
/// is the default: the language of content a layout leaves unmarked, whose pages live at the
/// site's root (the others under `/{code}`), listed first wherever languages are listed, so a
/// client of the API knows it too.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Languages {
    all: Vec<Lang>,
}

impl Languages {
    /// `all` in the site's order, the default first; `None` when `all` is empty or repeats a
    /// language.
    pub fn new(all: Vec<Lang>) -> Option<Languages> {
        let unique: BTreeSet<Lang> = all.iter().copied().collect();
        (!all.is_empty() && unique.len() == all.len()).then_some(Languages { all })
    }

    /// The seed site's languages: English (the default) and Spanish.
    pub fn seed() -> Languages {
        Languages {
            all: vec![Lang::EN, Lang::ES],
        }
    }

    /// Every language, in the site's order.
    pub fn all(&self) -> &[Lang] {
        &self.all
    }

    /// The default language: the first.
    pub fn default_lang(&self) -> Lang {
        self.all[0]
    }

    /// Whether the site has `lang`.
    pub fn contains(&self, lang: Lang) -> bool {
        self.all.contains(&lang)
    }

    /// The site's language whose code `folder` names (any case).
    pub fn find(&self, folder: &str) -> Option<Lang> {
        self.all
            .iter()
            .copied()
            .find(|lang| lang.as_str().eq_ignore_ascii_case(folder))
    }

    /// How many languages the site has.
    pub fn len(&self) -> usize {
        self.all.len()
    }

    /// Never true: a site has at least one language.
    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
    }

    /// Where a language's pages live on the site: the default language at the root, every
    /// other under `/{code}` (the seed: English at the root, Spanish under `/es`).
    pub fn site_prefix(&self, lang: Lang) -> String {
        if lang == self.default_lang() {
            String::new()
        } else {
            format!("/{lang}")
        }
    }

    /// The codes, quoted and joined for a message: "`en`, `es`".
    pub fn quoted(&self) -> String {
        self.all
            .iter()
            .map(|lang| format!("`{lang}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_lowercase_tags_and_interned() {
        assert_eq!(Lang::parse("pt-BR").unwrap().as_str(), "pt-br");
        assert_eq!(Lang::parse("en"), Some(Lang::EN));
        assert_eq!(Lang::parse("ES"), Some(Lang::ES));
        let a = Lang::parse("zh-Hant-TW").unwrap();
        let b = Lang::parse("zh-hant-tw").unwrap();
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
        for bad in [
            "",
            "e",
            "english",
            "en_US",
            "en-",
            "-en",
            "en--us",
            "1a",
            "en-toolongsub",
        ] {
            assert_eq!(Lang::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn localized_keys_capitalise_each_subtag() {
        let suffix = |tag: &str| Lang::parse(tag).unwrap().field_suffix();
        assert_eq!(suffix("es"), "Es");
        assert_eq!(suffix("zh-CN"), "ZhCn");
        assert_eq!(suffix("pt-br"), "PtBr");
        for tag in ["es", "zh-CN", "pt-BR", "fil"] {
            let lang = Lang::parse(tag).unwrap();
            assert_eq!(Lang::from_field_suffix(&lang.field_suffix()), Some(lang));
        }
        assert_eq!(Lang::from_field_suffix("es"), None);
        assert_eq!(Lang::from_field_suffix("E"), None);
    }

    #[test]
    fn the_default_language_lives_at_the_root() {
        let ko = Lang::parse("ko").unwrap();
        let langs = Languages::new(vec![ko, Lang::EN]).unwrap();
        assert_eq!(langs.site_prefix(ko), "");
        assert_eq!(langs.site_prefix(Lang::EN), "/en");
        assert_eq!(Languages::seed().site_prefix(Lang::ES), "/es");
        assert_eq!(langs.find("KO"), Some(ko));
        assert!(Languages::new(vec![]).is_none());
        assert!(Languages::new(vec![ko, ko]).is_none());
    }
}
