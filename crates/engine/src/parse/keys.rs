//! Front-matter keys content-api does not read: a near miss of one it reads (`draf`, `pubdate`)
//! is almost always a typo whose field is then silently ignored (a draft published), so the
//! checks in `derive::checks` make it an error; any other key is reported once per site.

use super::fields::FrontMatter;
use crate::diag::Location;
use std::sync::Arc;

/// A front-matter key no parser reads, where it is written, and the known key it is a near
/// miss of.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UnknownKey {
    /// The key as written in the front matter.
    pub key: String,
    /// The key itself (not its value).
    pub location: Location,
    /// The known key it is one or two keystrokes from (or differs from only in case): one the
    /// format reads, or one the site's `[front_matter.keys]` names.
    pub near: Option<Arc<str>>,
}

/// The keys of `front` that are neither in `known` nor accepted by `also_known` (localized
/// keys such as `titleEs`), in the order written.
pub fn unknown_keys(
    front: &FrontMatter<'_>,
    known: &[&'static str],
    also_known: impl Fn(&str) -> bool,
) -> Vec<UnknownKey> {
    unknown_keys_near(front, known, &[], also_known)
}

/// [`unknown_keys`], whose near misses are measured against the site's own keys too
/// (`site_keys`: those its `[front_matter.keys]` names, `translationKey`, `date`).
pub fn unknown_keys_near(
    front: &FrontMatter<'_>,
    known: &[&'static str],
    site_keys: &[&str],
    also_known: impl Fn(&str) -> bool,
) -> Vec<UnknownKey> {
    // Each candidate once: a key named twice would be "two equally near", and no guess.
    let mut candidates: Vec<&str> = known.to_vec();
    for key in site_keys {
        if !candidates.contains(key) {
            candidates.push(key);
        }
    }
    front
        .keys()
        .filter(|key| !known.contains(key) && !also_known(key))
        .map(|key| UnknownKey {
            key: key.to_string(),
            location: front.key_location(key),
            near: near_miss(key, candidates.iter().copied()).map(Arc::from),
        })
        .collect()
}

/// The candidate `word` is a near miss of: equal but for case, or within one edit (two for
/// words of seven characters or more; a transposition counts as one). `None` when none is, or
/// when two are equally near (a guess would mislead).
pub fn near_miss<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let lower = word.to_lowercase();
    let allowed = match word.chars().count() {
        0..=2 => 0,
        3..=6 => 1,
        _ => 2,
    };
    let mut best: Option<(usize, &'c str)> = None;
    let mut tied = false;
    for candidate in candidates {
        if candidate == word {
            return None;
        }
        let distance = strsim::osa_distance(&lower, &candidate.to_lowercase());
        if distance > allowed {
            continue;
        }
        match best {
            Some((nearest, _)) if distance > nearest => {}
            Some((nearest, _)) if distance == nearest => tied = true,
            _ => {
                best = Some((distance, candidate));
                tied = false;
            }
        }
    }
    best.filter(|_| !tied).map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    const POST_KEYS: [&str; 5] = ["title", "draft", "pubDate", "tags", "series"];

    #[test]
    fn typos_and_case_slips_are_near_misses() {
        for (typo, meant) in [
            ("draf", "draft"),
            ("drafts", "draft"),
            ("pubdate", "pubDate"),
            ("PubDate", "pubDate"),
            ("titel", "title"),
            ("tag", "tags"),
            ("serie", "series"),
            ("pubDaet", "pubDate"),
        ] {
            assert_eq!(near_miss(typo, POST_KEYS), Some(meant), "{typo}");
        }
    }

    #[test]
    fn other_words_are_not() {
        for word in [
            "author", "layout", "date", "lang", "og", "keywords", "draft",
        ] {
            assert_eq!(near_miss(word, POST_KEYS), None, "{word}");
        }
        // Two equally near: no guess.
        assert_eq!(near_miss("cat", ["car", "cap"]), None);
    }
}
