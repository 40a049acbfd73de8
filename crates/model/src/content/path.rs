//! Content paths and what each one means.

use crate::model::Lang;
use std::fmt;
use std::sync::Arc;

/// A path relative to the content folder, UTF-8, with `/` separators and no `.`/`..` parts.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContentPath(Arc<str>);

impl ContentPath {
    /// Accepts a relative, normalised, `/`-separated path; anything else is not a content path.
    pub fn new(path: &str) -> Option<ContentPath> {
        let ok = !path.is_empty()
            && !path.starts_with('/')
            && !path.contains('\\')
            && path
                .split('/')
                .all(|part| !part.is_empty() && part != "." && part != "..");
        ok.then(|| ContentPath(Arc::from(path)))
    }

    /// The path, `/`-separated and relative to the content folder.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The last part of the path.
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or(&self.0)
    }
}

impl fmt::Display for ContentPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a file in the content folder is, decided by its path alone.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FileRole {
    /// `blog/{lang}/<stem>.md|.mdx`, `{lang}` any well-formed language tag: whether the site
    /// has that language is its configuration's to say (`Languages`), not the path's.
    Post { lang: Lang, stem: Arc<str> },
    /// `slides/{lang}/<stem>.md|.mdx`, as a post.
    Deck { lang: Lang, stem: Arc<str> },
    /// `tags/<name>.md`.
    Tag { name: Arc<str> },
    /// `series/<name>.md`.
    Series { name: Arc<str> },
    /// `agent-skills/<name>/SKILL.md`.
    Skill { name: Arc<str> },
    /// A Markdown file in a content folder that cannot be content where it is (an unsupported
    /// language folder, a nested folder). Reported as a warning so a misplaced post is noticed.
    Misplaced {
        /// Why it cannot be content there, as a sentence.
        reason: &'static str,
    },
    /// Not content: images, editor backups, `_`-prefixed files and folders, other folders.
    Ignored,
}

/// Classifies a content path. `_`-prefixed and hidden components mean "not content" (authors
/// keep demos and layouts there; editors keep swap and lock files there).
pub fn classify(path: &ContentPath) -> FileRole {
    let parts: Vec<&str> = path.as_str().split('/').collect();
    if parts
        .iter()
        .any(|p| p.starts_with('_') || p.starts_with('.'))
    {
        return FileRole::Ignored;
    }
    let file = parts[parts.len() - 1];
    let Some(stem) = markdown_stem(file) else {
        return FileRole::Ignored;
    };
    match parts.as_slice() {
        ["blog" | "slides", lang, _] => match Lang::parse(lang) {
            Some(lang) if parts[0] == "blog" => FileRole::Post {
                lang,
                stem: stem.into(),
            },
            Some(lang) => FileRole::Deck {
                lang,
                stem: stem.into(),
            },
            None => FileRole::Misplaced {
                reason: "this folder is not a language tag (such as `en`, `fr` or `pt-BR`); \
                         content files belong in a folder named after their language",
            },
        },
        ["blog" | "slides", _] => FileRole::Misplaced {
            reason: "content files belong in a folder named after their language, such as `en/`",
        },
        ["blog" | "slides", _, _, ..] => FileRole::Misplaced {
            reason: "content files must sit directly in the language folder; prefix the \
                     subfolder with `_` if it is not content",
        },
        ["tags", _] if file.ends_with(".md") => FileRole::Tag { name: stem.into() },
        ["series", _] if file.ends_with(".md") => FileRole::Series { name: stem.into() },
        ["agent-skills", name, "SKILL.md"] => FileRole::Skill {
            name: (*name).into(),
        },
        _ => FileRole::Ignored,
    }
}

fn markdown_stem(file: &str) -> Option<&str> {
    file.strip_suffix(".md")
        .or_else(|| file.strip_suffix(".mdx"))
        .filter(|stem| !stem.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn role(path: &str) -> FileRole {
        classify(&ContentPath::new(path).unwrap())
    }

    #[test]
    fn recognises_each_content_kind() {
        assert_eq!(
            role("blog/es/2024-05-01_x.mdx"),
            FileRole::Post {
                lang: Lang::ES,
                stem: "2024-05-01_x".into()
            }
        );
        assert!(matches!(
            role("slides/en/2024-05-01_x.md"),
            FileRole::Deck { .. }
        ));
        assert!(matches!(role("tags/rust.md"), FileRole::Tag { .. }));
        assert!(matches!(role("series/a.md"), FileRole::Series { .. }));
        assert!(matches!(
            role("agent-skills/api/SKILL.md"),
            FileRole::Skill { .. }
        ));
    }

    #[test]
    fn skips_author_only_files_and_editor_debris() {
        for path in [
            "blog/en/_demo/2024-01-01_demo.md",
            "slides/_layouts/x.md",
            "blog/en/_draft.md",
            "blog/en/.2024-01-01_x.md.swp",
            "blog/en/.#2024-01-01_x.md",
            "blog/en/2024-01-01_x.md~",
            "blog/en/hero.webp",
            "README.md",
            "pages/about.md",
        ] {
            assert_eq!(role(path), FileRole::Ignored, "{path}");
        }
    }

    #[test]
    fn flags_markdown_in_the_wrong_place() {
        assert!(matches!(
            role("blog/english/2024-01-01_x.md"),
            FileRole::Misplaced { .. }
        ));
        assert!(matches!(
            role("blog/fr/2024-01-01_x.md"),
            FileRole::Post { .. }
        ));
        assert!(matches!(
            role("blog/2024-01-01_x.md"),
            FileRole::Misplaced { .. }
        ));
        assert!(matches!(
            role("blog/en/2024/x.md"),
            FileRole::Misplaced { .. }
        ));
    }

    #[test]
    fn content_paths_are_relative_and_normalised() {
        for bad in ["", "/etc/passwd", "a/../b", "./a", "a//b", "a\\b"] {
            assert!(ContentPath::new(bad).is_none(), "{bad:?}");
        }
    }
}
