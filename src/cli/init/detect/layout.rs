//! The patterns a site's posts follow, found by looking at the Markdown files that are there:
//! the posts folder, page bundles, date prefixes, language folders and suffixes, date folders
//! and category folders, as the smallest set of `[layout]` patterns that covers them.

use super::PatternUse;
use std::collections::{BTreeMap, BTreeSet};

/// Folder names that hold posts, whatever the generator.
pub const POST_FOLDERS: &[&str] = &[
    "posts", "post", "blog", "_posts", "articles", "article", "writing", "notes", "essays", "news",
];

/// Common ISO 639-1 codes: a folder or a file suffix named so is a language when the
/// configuration lists none.
const LANGUAGE_CODES: &[&str] = &[
    "ar", "bg", "bn", "ca", "cs", "da", "de", "el", "en", "eo", "es", "et", "eu", "fa", "fi", "fr",
    "ga", "gl", "he", "hi", "hr", "hu", "id", "is", "it", "ja", "ko", "lt", "lv", "ms", "nb", "nl",
    "nn", "no", "pl", "pt", "ro", "ru", "sk", "sl", "sr", "sv", "th", "tr", "uk", "ur", "vi", "zh",
];

/// Whether a name is a language: one the configuration lists, or (when it lists none) a common
/// language code, with an optional region (`pt-br`, `zh-CN`).
pub fn is_language(name: &str, configured: Option<&[String]>) -> bool {
    match configured {
        Some(codes) => codes.iter().any(|c| c.eq_ignore_ascii_case(name)),
        None => {
            let base = name.split(['-', '_']).next().unwrap_or(name);
            LANGUAGE_CODES.contains(&base)
                && name.len() <= 7
                && name
                    .split(['-', '_'])
                    .skip(1)
                    .all(|r| (2..=4).contains(&r.len()))
        }
    }
}

/// What the files under the content folder say about the layout.
#[derive(Debug, Default)]
pub struct Layout {
    pub posts: Vec<PatternUse>,
    /// The posts' paths, relative to the content folder.
    pub post_files: Vec<String>,
    pub drafts: Vec<PatternUse>,
    pub draft_files: Vec<String>,
    /// content-api's own slide decks, in a `slides/` or `decks/` folder.
    pub decks: Vec<PatternUse>,
    /// The posts folders, relative to the content folder.
    pub sections: Vec<String>,
    /// How the sections were chosen.
    pub why: String,
    /// Languages met as folders or suffixes.
    pub languages: BTreeSet<String>,
    /// Whether some language is a file-name suffix (`x.fr.md`).
    pub suffixes: bool,
    pub undecided: Vec<String>,
}

/// A Markdown file's name without its extension, when it is Markdown.
pub fn markdown_stem(name: &str) -> Option<&str> {
    [".md", ".mdx", ".markdown"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
}

/// Finds the posts among `files` (paths relative to the content folder, `/`-separated).
/// `sections`: the posts folders the configuration names, if any; `drafts_dir`: a folder whose
/// files are drafts.
pub fn infer(
    files: &[String],
    sections: &[String],
    drafts_dir: Option<&str>,
    configured: Option<&[String]>,
) -> Layout {
    let mut layout = Layout::default();
    // The section of each file: its first folder that is not a language.
    let mut by_section: BTreeMap<String, Vec<&String>> = BTreeMap::new();
    for file in files {
        let segments: Vec<&str> = file.split('/').collect();
        let Some((name, folders)) = segments.split_last() else {
            continue;
        };
        let Some(stem) = markdown_stem(name) else {
            continue;
        };
        if stem == "_index" || stem.starts_with("_index.") {
            continue; // Hugo's and Zola's section pages
        }
        let section = folders
            .iter()
            .find(|f| !is_language(f, configured))
            .map_or(String::new(), |f| f.to_string());
        by_section.entry(section).or_default().push(file);
    }
    let present = |name: &str| by_section.contains_key(name);
    let mut chosen: Vec<String> = sections.iter().filter(|s| present(s)).cloned().collect();
    if !chosen.is_empty() {
        layout.why = "the folder the configuration names".to_string();
    } else {
        chosen = POST_FOLDERS
            .iter()
            .filter(|s| present(s))
            .map(|s| s.to_string())
            .collect();
        if !chosen.is_empty() {
            layout.why = "a folder named as posts folders are".to_string();
        } else if let Some((section, list)) = by_section
            .iter()
            .filter(|(s, _)| Some(s.as_str()) != drafts_dir)
            .max_by_key(|(s, list)| (list.len(), std::cmp::Reverse(s.as_str())))
        {
            let shown = if section.is_empty() {
                "the content folder itself".to_string()
            } else {
                format!("{section}/")
            };
            layout.why = format!("the folder with the most Markdown files ({})", list.len());
            layout.undecided.push(format!(
                "no folder is named as posts folders are (posts, blog, _posts...): took {shown}, the one with the most Markdown files ({}); check [layout] posts",
                list.len()
            ));
            chosen = vec![section.clone()];
        }
    }
    let mut posts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for section in &chosen {
        for file in by_section.get(section).into_iter().flatten() {
            if let Some((pattern, suffixed)) = classify(file, section, configured, &mut layout) {
                let entry = posts.entry(pattern).or_default();
                entry.0 += 1;
                entry.1 += usize::from(suffixed);
                layout.post_files.push((*file).clone());
            }
        }
    }
    layout.posts = merge(posts);
    if let Some(drafts) = drafts_dir {
        let mut found: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for file in by_section.get(drafts).into_iter().flatten() {
            if let Some((pattern, suffixed)) = classify(file, drafts, configured, &mut layout) {
                let entry = found.entry(pattern).or_default();
                entry.0 += 1;
                entry.1 += usize::from(suffixed);
                layout.draft_files.push((*file).clone());
            }
        }
        layout.drafts = merge(found);
    }
    let mut decks: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for section in DECK_FOLDERS
        .iter()
        .filter(|s| !chosen.iter().any(|c| c == *s))
    {
        for file in by_section.get(*section).into_iter().flatten() {
            if let Some((pattern, suffixed)) = classify(file, section, configured, &mut layout) {
                let entry = decks.entry(pattern).or_default();
                entry.0 += 1;
                entry.1 += usize::from(suffixed);
            }
        }
    }
    layout.decks = merge(decks);
    layout.sections = chosen;
    layout
}

/// Folder names that hold content-api's slide decks.
const DECK_FOLDERS: &[&str] = &["slides", "decks"];

/// Patterns that differ only by a language suffix are one (`index.{lang}` covers an unmarked
/// `index`: the default language), largest first.
fn merge(found: BTreeMap<String, (usize, usize)>) -> Vec<PatternUse> {
    let mut merged: BTreeMap<String, PatternUse> = BTreeMap::new();
    let suffixed: BTreeSet<String> = found
        .keys()
        .filter_map(|p| p.strip_suffix(".{lang}"))
        .map(str::to_string)
        .collect();
    for (pattern, (files, with_suffix)) in found {
        let key = if suffixed.contains(&pattern) {
            format!("{pattern}.{{lang}}")
        } else {
            pattern
        };
        let entry = merged.entry(key.clone()).or_insert(PatternUse {
            pattern: key,
            files: 0,
            suffixed: 0,
        });
        entry.files += files;
        entry.suffixed += with_suffix;
    }
    let mut list: Vec<PatternUse> = merged.into_values().collect();
    list.sort_by(|a, b| {
        b.files
            .cmp(&a.files)
            .then_with(|| a.pattern.cmp(&b.pattern))
    });
    list
}

/// A post's pattern (and whether it has a language suffix); `None` for a folder's own index.
fn classify(
    file: &str,
    section: &str,
    configured: Option<&[String]>,
    layout: &mut Layout,
) -> Option<(String, bool)> {
    let segments: Vec<&str> = file.split('/').collect();
    let (name, folders) = segments.split_last()?;
    let stem = markdown_stem(name)?;
    let (stem, suffix) = match stem.rsplit_once('.') {
        Some((base, lang)) if is_language(lang, configured) => (base, Some(lang)),
        _ => (stem, None),
    };
    let at = folders.iter().position(|f| *f == section);
    let (before, after): (&[&str], &[&str]) = match at {
        Some(at) => (&folders[..at], &folders[at + 1..]),
        None => (folders, &[]),
    };
    if stem.starts_with('_') || after.iter().any(|f| f.starts_with('_')) {
        return None; // left out by generators and content-api alike (`_demo/`, `_draft.md`)
    }
    let bundle = stem == "index";
    if bundle && after.is_empty() {
        return None; // the posts folder's own page
    }
    let mut out: Vec<String> = Vec::new();
    for folder in before {
        // Only languages come before the section.
        layout.languages.insert(folder.to_string());
        out.push("{lang}".to_string());
    }
    if !section.is_empty() {
        out.push(section.to_string());
    }
    let mut previous = "";
    for (i, folder) in after.iter().enumerate() {
        let last = i + 1 == after.len();
        let segment = if bundle && last {
            "{slug}"
        } else if is_language(folder, configured) {
            layout.languages.insert(folder.to_string());
            "{lang}"
        } else if folder.len() == 4 && folder.bytes().all(|b| b.is_ascii_digit()) {
            "{yyyy}"
        } else if folder.len() == 2
            && folder.bytes().all(|b| b.is_ascii_digit())
            && previous == "{yyyy}"
        {
            "{mm}"
        } else if folder.len() == 2
            && folder.bytes().all(|b| b.is_ascii_digit())
            && previous == "{mm}"
        {
            "{dd}"
        } else {
            "*"
        };
        previous = segment;
        out.push(segment.to_string());
    }
    let last = if bundle {
        "index".to_string()
    } else if let Some(sep) = date_prefix(stem) {
        format!("{{date}}{sep}{{slug}}")
    } else {
        "{slug}".to_string()
    };
    // A pattern marks the language once: under a language folder, a suffix is left alone.
    let twice = suffix.is_some() && out.iter().any(|s| s == "{lang}");
    if twice {
        let note = format!(
            "{file} has a language folder and a language suffix: the pattern keeps the folder, so check its language"
        );
        if !layout
            .undecided
            .iter()
            .any(|n| n.contains("a language folder and a language suffix"))
        {
            layout.undecided.push(note);
        }
    }
    let suffix = suffix.filter(|_| !twice);
    let last = match suffix {
        Some(lang) => {
            layout.languages.insert(lang.to_string());
            layout.suffixes = true;
            format!("{last}.{{lang}}")
        }
        None => last,
    };
    out.push(last);
    Some((out.join("/"), suffix.is_some()))
}

/// The separator after a `YYYY-MM-DD` prefix (`-` or `_`), when the name has one.
pub fn date_prefix(stem: &str) -> Option<char> {
    let bytes = stem.as_bytes();
    let shape = bytes.len() > 11
        && bytes[..10].iter().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                *b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    let sep = *bytes.get(10)? as char;
    (shape && matches!(sep, '-' | '_')).then_some(sep)
}
