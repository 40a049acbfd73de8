//! One path pattern of a layout (`posts/{yyyy}/{slug}/index.{lang}`): its parts, how it is
//! written and checked, and what it reads from a path that matches it (a `PostName`).

use crate::content::role::{NameShape, PostName, split_dated};
use crate::model::{Lang, Languages};
use std::fmt;
use std::sync::Arc;

/// A pattern of post or deck paths below the content folder, without the file's extension.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pattern {
    text: Arc<str>,
    folders: Vec<Folder>,
    name: NameShape,
    /// The file name ends in `.{lang}` (`post.fr.md`); unmarked means the default language.
    lang_suffix: bool,
}

/// One folder of a pattern.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Folder {
    /// A folder with this exact name (`posts`, `_posts`).
    Literal(String),
    /// `{lang}`: named after the language.
    Lang,
    /// `{yyyy}`, `{mm}`, `{dd}`: the date, one part per folder.
    Year,
    Month,
    Day,
    /// `{slug}`: a page bundle's folder (the file is `index`).
    Slug,
    /// `*`: one folder that means nothing to the API (a category, a section).
    Any,
    /// `**`: any number of such folders.
    AnyDepth,
}

impl Pattern {
    /// Reads a pattern as `watch.toml` writes it; the error says what is wrong, as a sentence.
    pub fn parse(text: &str) -> Result<Pattern, String> {
        let parts: Vec<&str> = text.split('/').collect();
        if text.is_empty()
            || parts
                .iter()
                .any(|p| p.is_empty() || *p == "." || *p == "..")
        {
            return Err(
                "a pattern is folders and a file name joined by `/`, relative to the content \
                 folder, with no empty, `.` or `..` part"
                    .into(),
            );
        }
        if text.contains('\\') {
            return Err("use `/` between folders, not `\\`".into());
        }
        let (file, folders) = parts.split_last().expect("split gives one part at least");
        let (name, lang_suffix) = match file.strip_suffix(".{lang}") {
            Some(name) => (name, true),
            None => (*file, false),
        };
        let name = match name {
            "{slug}" => NameShape::Slug,
            "{date}_{slug}" => NameShape::Dated('_'),
            "{date}-{slug}" => NameShape::Dated('-'),
            "index" => NameShape::Index,
            other => {
                return Err(format!(
                    "the file name `{other}` is not one a pattern may end with: `{{slug}}`, \
                     `{{date}}-{{slug}}`, `{{date}}_{{slug}}` or `index` (a page bundle), each \
                     optionally followed by `.{{lang}}`; leave the extension out"
                ));
            }
        };
        let folders = folders
            .iter()
            .map(|part| folder(part))
            .collect::<Result<Vec<_>, _>>()?;
        let count = |wanted: &Folder| folders.iter().filter(|f| *f == wanted).count();
        if count(&Folder::AnyDepth) > 1 {
            return Err("a pattern may hold `**` once".into());
        }
        if count(&Folder::Lang) + usize::from(lang_suffix) > 1 {
            return Err(
                "a pattern marks the language once: a `{lang}` folder or a `.{lang}` suffix".into(),
            );
        }
        if count(&Folder::Year) > 1 || count(&Folder::Month) > 1 || count(&Folder::Day) > 1 {
            return Err("each of `{yyyy}`, `{mm}` and `{dd}` may appear once".into());
        }
        let position = |wanted: &Folder| folders.iter().position(|f| f == wanted);
        let (year, month, day) = (
            position(&Folder::Year),
            position(&Folder::Month),
            position(&Folder::Day),
        );
        // Each date folder sits right inside the one before it.
        let out_of_order = |inner: Option<usize>, outer: Option<usize>| {
            inner.is_some_and(|inner| outer.is_none_or(|outer| outer + 1 != inner))
        };
        if out_of_order(month, year) || out_of_order(day, month) {
            return Err("date folders come in order, one inside the other: `{yyyy}/{mm}/{dd}` (or `{yyyy}/{mm}`, `{yyyy}`)".into());
        }
        if matches!(name, NameShape::Dated(_)) && year.is_some() {
            return Err(
                "a pattern takes the date from its file name or from `{yyyy}` folders, not both"
                    .into(),
            );
        }
        let bundle = folders.last() == Some(&Folder::Slug);
        if count(&Folder::Slug) > usize::from(bundle) {
            return Err(
                "a `{slug}` folder is a page bundle's: it holds the file `index`, so it comes last"
                    .into(),
            );
        }
        match (name, bundle) {
            (NameShape::Index, false) => {
                return Err("a file named `index` is a page bundle's: put a `{slug}` folder before it (`posts/{slug}/index`)".into());
            }
            (NameShape::Slug | NameShape::Dated(_), true) => {
                return Err("the slug comes once: from the file name or from a `{slug}` folder holding `index`".into());
            }
            _ => {}
        }
        Ok(Pattern {
            text: text.into(),
            folders,
            name,
            lang_suffix,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the file name ends in `.{lang}`.
    pub fn has_language_suffix(&self) -> bool {
        self.lang_suffix
    }

    /// Whether the pattern is a page bundle's (`{slug}/index`).
    pub fn is_bundle(&self) -> bool {
        self.name == NameShape::Index
    }

    /// Whether the language is marked at all (a folder or a suffix).
    pub fn marks_language(&self) -> bool {
        self.lang_suffix || self.folders.contains(&Folder::Lang)
    }

    /// The leading literal folders, `/`-joined: where a walk for this pattern starts.
    pub fn root(&self) -> String {
        self.literal_prefix().join("/")
    }

    fn literal_prefix(&self) -> Vec<&str> {
        self.folders
            .iter()
            .map_while(|folder| match folder {
                Folder::Literal(name) => Some(name.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The language and name of the file `stem` (no extension) in `folders`, when it matches.
    pub(super) fn matches(
        &self,
        folders: &[&str],
        stem: &str,
        languages: &Languages,
        strict: bool,
        suffixes_mark_languages: bool,
    ) -> Option<(Lang, PostName)> {
        let mut captured = Captured::default();
        if !self.match_folders(&self.folders, folders, &mut captured) {
            return None;
        }
        let mut name = stem;
        let mut lang = captured.lang;
        let suffix = stem
            .rsplit_once('.')
            .and_then(|(base, suffix)| Some((base, languages.find(suffix)?)));
        match suffix {
            Some((base, found)) if self.lang_suffix => {
                name = base;
                lang = Some(found);
            }
            // On a site that marks languages by suffix, `post.fr.md` is never the default
            // language's post `post.fr`, whatever the patterns' order.
            Some(_) if suffixes_mark_languages => return None,
            _ => {}
        }
        if name.starts_with('_') || name.starts_with('.') {
            return None;
        }
        let lang = lang.unwrap_or_else(|| languages.default_lang());
        let (date, slug, shown) = match self.name {
            NameShape::Slug => (captured.date(), name, name),
            NameShape::Index if name == "index" => {
                let slug = captured.slug?;
                (captured.date(), slug, slug)
            }
            NameShape::Index => return None,
            NameShape::Dated(separator) => {
                let (date, slug) = split_dated(name, separator);
                (Some(date.into()), slug, name)
            }
        };
        let key = key_of(folders, name, &self.folders);
        Some((
            lang,
            PostName {
                key: key.into(),
                stem: shown.into(),
                date,
                slug: slug.into(),
                shape: self.name,
                strict,
                draft: false,
            },
        ))
    }

    fn match_folders<'p>(
        &self,
        pattern: &[Folder],
        folders: &[&'p str],
        captured: &mut Captured<'p>,
    ) -> bool {
        let Some((first, rest)) = pattern.split_first() else {
            return folders.is_empty();
        };
        if *first == Folder::AnyDepth {
            return (0..=folders.len()).any(|skip| {
                folders[..skip].iter().all(|f| !is_hidden(f))
                    && self.match_folders(rest, &folders[skip..], captured)
            });
        }
        let Some((folder, others)) = folders.split_first() else {
            return false;
        };
        let ok = match first {
            Folder::Literal(name) => name == folder,
            _ if is_hidden(folder) => false,
            Folder::Lang => match Lang::parse(folder) {
                Some(lang) => {
                    captured.lang = Some(lang);
                    true
                }
                None => false,
            },
            Folder::Year => digits(folder, 4)
                .then(|| captured.year = Some(folder))
                .is_some(),
            Folder::Month => digits(folder, 2)
                .then(|| captured.month = Some(folder))
                .is_some(),
            Folder::Day => digits(folder, 2)
                .then(|| captured.day = Some(folder))
                .is_some(),
            Folder::Slug => {
                captured.slug = Some(folder);
                true
            }
            Folder::Any => true,
            Folder::AnyDepth => unreachable!("handled above"),
        };
        ok && self.match_folders(rest, others, captured)
    }

    /// Why a Markdown file below this pattern's root that it does not match is not content, or
    /// `None` when it is not below the root (or is hidden, or the pattern has no root).
    pub(super) fn misplaced(&self, folders: &[&str], path: &str) -> Option<String> {
        let prefix = self.literal_prefix();
        if prefix.is_empty()
            || folders.len() < prefix.len()
            || folders[..prefix.len()] != prefix[..]
        {
            return None;
        }
        let below = &folders[prefix.len()..];
        let file = path.rsplit('/').next().unwrap_or(path);
        if below.iter().chain([&file]).any(|part| is_hidden(part)) {
            return None;
        }
        let pattern = &self.folders[prefix.len()..];
        let fixed = pattern.iter().filter(|f| **f != Folder::AnyDepth).count();
        let deep = pattern.contains(&Folder::AnyDepth);
        if let Some(at) = pattern.iter().position(|f| *f == Folder::Lang)
            && below.len() > at
            && !deep
            && Lang::parse(below[at]).is_none()
        {
            return Some(format!(
                "`{}` is not a language tag (such as `en`, `fr` or `pt-BR`), and the layout `{}` puts content files in a folder named after their language",
                below[at], self.text
            ));
        }
        if below.len() < fixed {
            return Some(format!(
                "the layout `{}` puts content files deeper, in {}",
                self.text,
                self.describe_folders()
            ));
        }
        if below.len() > fixed && !deep {
            return Some(format!(
                "the layout `{}` has no folder here: prefix the subfolder with `_` if it is not content, or add a pattern for it to `[layout]` in watch.toml",
                self.text
            ));
        }
        Some(format!(
            "it does not match the layout `{}`; prefix its name with `_` if it is not content",
            self.text
        ))
    }

    fn describe_folders(&self) -> String {
        if self.folders.contains(&Folder::Lang) {
            "a folder named after their language, such as `en/`".into()
        } else {
            format!("`{}`", self.text)
        }
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// One folder part of a pattern.
fn folder(part: &str) -> Result<Folder, String> {
    Ok(match part {
        "{lang}" => Folder::Lang,
        "{yyyy}" => Folder::Year,
        "{mm}" => Folder::Month,
        "{dd}" => Folder::Day,
        "{slug}" => Folder::Slug,
        "*" => Folder::Any,
        "**" => Folder::AnyDepth,
        literal if literal.contains(['{', '}', '*']) => {
            return Err(format!(
                "`{literal}` is not a folder a pattern may hold: a name, `{{lang}}`, `{{yyyy}}`, `{{mm}}`, `{{dd}}`, `{{slug}}`, `*` or `**`"
            ));
        }
        literal => Folder::Literal(literal.to_string()),
    })
}

/// What a match read from the folders.
#[derive(Default)]
struct Captured<'p> {
    lang: Option<Lang>,
    year: Option<&'p str>,
    month: Option<&'p str>,
    day: Option<&'p str>,
    slug: Option<&'p str>,
}

impl Captured<'_> {
    /// The date of `{yyyy}/{mm}/{dd}` folders; `None` without the three.
    fn date(&self) -> Option<Arc<str>> {
        Some(format!("{}-{}-{}", self.year?, self.month?, self.day?).into())
    }
}

/// The path without extension and language marks, `/`-joined: a `{lang}` folder becomes `*`.
fn key_of(folders: &[&str], name: &str, pattern: &[Folder]) -> String {
    let lang_at = match pattern.iter().position(|f| *f == Folder::AnyDepth) {
        // A `{lang}` after `**` sits at the same distance from the end.
        Some(deep) => pattern[deep..]
            .iter()
            .position(|f| *f == Folder::Lang)
            .map(|at| folders.len() - (pattern.len() - deep - at)),
        None => pattern.iter().position(|f| *f == Folder::Lang),
    };
    let mut key = String::new();
    for (at, folder) in folders.iter().enumerate() {
        key.push_str(if Some(at) == lang_at { "*" } else { folder });
        key.push('/');
    }
    key.push_str(name);
    key
}

fn is_hidden(part: &str) -> bool {
    part.starts_with('_') || part.starts_with('.')
}

fn digits(text: &str, len: usize) -> bool {
    text.len() == len && text.bytes().all(|b| b.is_ascii_digit())
}
