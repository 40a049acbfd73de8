//! The site's languages in words, from CLDR (ICU4X's data, not a table of ours): each
//! language's English name ("Korean", "Brazilian Portuguese", "Chinese (China)"), the list of
//! them as English writes it ("Korean, English, and Japanese"), and the operation id of its
//! post list (`listPostsInKorean`).

use crate::model::{Lang, Languages};
use icu_list::ListFormatter;
use icu_list::options::ListFormatterOptions;
use icu_locale::LanguageIdentifier;
use icu_locale::locale;
use icu_locale::names::{DisplayNamesPreferences, LanguageIdentifierDisplayName};
use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};
use writeable::{TryWriteable, Writeable};

/// The language's name in English, by CLDR; its code when CLDR has none (a private or made-up
/// tag such as `jp`).
pub fn english_name(lang: Lang) -> &'static str {
    static NAMES: OnceLock<Mutex<BTreeMap<Lang, &'static str>>> = OnceLock::new();
    let names = NAMES.get_or_init(Mutex::default);
    let mut names = names.lock().unwrap_or_else(|e| e.into_inner());
    names
        .entry(lang)
        .or_insert_with(|| Box::leak(cldr_name(lang).into_boxed_str()))
}

/// Whether CLDR names the language (else documents show its code).
pub fn is_named(lang: Lang) -> bool {
    english_name(lang) != lang.as_str()
}

fn cldr_name(lang: Lang) -> String {
    let Ok(id) = lang.as_str().parse::<LanguageIdentifier>() else {
        return lang.as_str().to_string();
    };
    let prefs = DisplayNamesPreferences::from(locale!("en"));
    let Ok(name) = LanguageIdentifierDisplayName::try_new_heavy(prefs, id, Default::default())
    else {
        return lang.as_str().to_string();
    };
    // A name CLDR lacks comes back as the code itself, with an error: keep the code.
    match name.as_borrowed().try_write_to_string() {
        Ok(text) => text.into_owned(),
        Err(_) => lang.as_str().to_string(),
    }
}

/// The names of `langs` in English, joined as English joins a list: "English", "English and
/// Spanish", "Korean, English, and Japanese".
pub fn names_in_words(langs: &[Lang]) -> String {
    let formatter =
        ListFormatter::try_new_and(locale!("en").into(), ListFormatterOptions::default())
            .expect("the compiled data has English list patterns");
    formatter
        .format(langs.iter().map(|&lang| english_name(lang)))
        .write_to_string()
        .into_owned()
}

/// How posts of one date are ordered across languages, for the documents that list every
/// language's posts: by id, so by language code ("English before Spanish"); `None` for a site
/// with one language.
pub fn same_date_order(languages: &Languages) -> Option<String> {
    let mut by_code = languages.all().to_vec();
    by_code.sort();
    (by_code.len() > 1).then(|| {
        by_code
            .iter()
            .map(|&lang| english_name(lang))
            .collect::<Vec<_>>()
            .join(" before ")
    })
}

/// What the documents say of a slug across languages. The seed's site (English and Spanish,
/// English the default) names its files in English; any other site's slugs are only known to
/// be shared by a post's translations.
pub fn slug_languages(languages: &Languages) -> SlugWording {
    if *languages == Languages::seed() {
        SlugWording::Seed
    } else {
        SlugWording::Shared
    }
}

/// See [`slug_languages`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlugWording {
    /// "always English, in both languages".
    Seed,
    /// "the same in every language".
    Shared,
}

impl SlugWording {
    /// Replaces the seed's words in a description (the wire types' documentation is the
    /// seed's) with this site's.
    pub fn reword(self, text: &str) -> String {
        match self {
            SlugWording::Seed => text.to_string(),
            SlugWording::Shared => text
                .replace(
                    "Always English, in both languages.",
                    "The same in every language.",
                )
                .replace("always English.", "the same in every language."),
        }
    }
}

/// The language's part of an operation id: its English name in UpperCamelCase, letters and
/// digits only (`English`, `BrazilianPortuguese`, `ChineseChina`); for a language CLDR does not
/// name, its key suffix (`Jp`).
pub fn operation_suffix(lang: Lang) -> String {
    if !is_named(lang) {
        return lang.field_suffix();
    }
    english_name(lang)
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lang(tag: &str) -> Lang {
        Lang::parse(tag).unwrap()
    }

    #[test]
    fn languages_are_named_by_cldr() {
        assert_eq!(english_name(Lang::EN), "English");
        assert_eq!(english_name(Lang::ES), "Spanish");
        assert_eq!(english_name(lang("ko")), "Korean");
        assert_eq!(english_name(lang("nn")), "Norwegian Nynorsk");
        assert_eq!(english_name(lang("ca")), "Catalan");
        assert_eq!(english_name(lang("pt-BR")), "Brazilian Portuguese");
        assert_eq!(english_name(lang("zh-CN")), "Chinese (China)");
        assert_eq!(english_name(lang("jp")), "jp");
        assert!(!is_named(lang("jp")));
    }

    #[test]
    fn lists_read_as_english_writes_them() {
        assert_eq!(names_in_words(&[Lang::EN]), "English");
        assert_eq!(names_in_words(&[Lang::EN, Lang::ES]), "English and Spanish");
        assert_eq!(
            names_in_words(&[lang("ko"), Lang::EN, lang("ja")]),
            "Korean, English, and Japanese"
        );
    }

    #[test]
    fn the_seed_keeps_its_words_and_other_sites_get_true_ones() {
        let seed = Languages::seed();
        assert_eq!(same_date_order(&seed).unwrap(), "English before Spanish");
        let three = Languages::new(vec![lang("ko"), Lang::EN, lang("ja")]).unwrap();
        assert_eq!(
            same_date_order(&three).unwrap(),
            "English before Japanese before Korean"
        );
        assert_eq!(
            same_date_order(&Languages::new(vec![Lang::EN]).unwrap()),
            None
        );
        let text = "Series slug, always English.";
        assert_eq!(slug_languages(&seed).reword(text), text);
        assert_eq!(
            slug_languages(&three).reword(text),
            "Series slug, the same in every language."
        );
    }

    #[test]
    fn operation_ids_are_camel_case_names() {
        assert_eq!(operation_suffix(Lang::ES), "Spanish");
        assert_eq!(operation_suffix(lang("pt-BR")), "BrazilianPortuguese");
        assert_eq!(operation_suffix(lang("zh-CN")), "ChineseChina");
        assert_eq!(operation_suffix(lang("jp")), "Jp");
    }
}
