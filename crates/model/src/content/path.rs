//! Content paths and what each one means.

use super::layout::PostName;
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

/// What a file in the content folder is, decided by its path and the site's layout
/// ([`super::Layout::classify`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FileRole {
    /// A post in `lang`, any well-formed language tag when a folder names it: whether the site
    /// has that language is its configuration's to say (`Languages`), not the path's.
    Post { lang: Lang, name: PostName },
    /// A slide deck, as a post.
    Deck { lang: Lang, name: PostName },
    /// `tags/<name>.md`.
    Tag { name: Arc<str> },
    /// `series/<name>.md`.
    Series { name: Arc<str> },
    /// `agent-skills/<name>/SKILL.md`.
    Skill { name: Arc<str> },
    /// A Markdown file below a layout's folder that cannot be content where it is (a folder
    /// that is not a language tag, a nested folder). Reported as a warning so a misplaced post
    /// is noticed.
    Misplaced {
        /// Why it cannot be content there, as a sentence.
        reason: Arc<str>,
    },
    /// Not content: images, editor backups, `_`-prefixed files and folders, other folders.
    Ignored,
}

impl FileRole {
    /// Whether the file is content (read, and an input of the build).
    pub fn is_content(&self) -> bool {
        !matches!(self, FileRole::Ignored | FileRole::Misplaced { .. })
    }
}
