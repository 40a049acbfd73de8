//! What a content file is ([`FileRole`]), and what a post's or deck's path says of it
//! ([`PostName`]): the values a layout's classification gives.

use crate::model::{Lang, is_valid_slug, slugify};
use std::sync::Arc;

/// What a file in the content folder is, decided by its path and the site's layout
/// ([`super::Layout::classify`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FileRole {
    /// A post in `lang`, any well-formed language tag when a folder names it: whether the site
    /// has that language is its configuration's to say (`Languages`), not the path's.
    Post {
        /// The language its folder (or the layout) gives it.
        lang: Lang,
        /// What its path says: its date, its slug, the key its translations share.
        name: PostName,
    },
    /// A slide deck, as a post.
    Deck {
        /// The language its folder (or the layout) gives it.
        lang: Lang,
        /// What its path says: its date, its slug, the key its translations share.
        name: PostName,
    },
    /// `tags/<name>.md`.
    Tag {
        /// The tag's slug: the file name without `.md`.
        name: Arc<str>,
    },
    /// `series/<name>.md`.
    Series {
        /// The series' slug: the file name without `.md`.
        name: Arc<str>,
    },
    /// `agent-skills/<name>/SKILL.md`.
    Skill {
        /// The skill's name: its folder's.
        name: Arc<str>,
    },
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

/// What a pattern's file name holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NameShape {
    /// `{slug}`: the name is the slug.
    Slug,
    /// `{date}_{slug}` or `{date}-{slug}`: a `YYYY-MM-DD` date, this separator, the slug.
    Dated(char),
    /// `index`: a page bundle's file; the slug is its folder's.
    Index,
}

/// What a matching path says about its post or deck: read from the path alone.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PostName {
    /// The path without its extension and language marks: `x.md` and `x.mdx` share it, and so
    /// do the translations of one post.
    pub key: Arc<str>,
    /// The name as the file shows it (the file stem, or a bundle's folder), for messages.
    pub stem: Arc<str>,
    /// The date the path gives, as written (`2024-05-01`), or the part of the name that should
    /// have been one; `None` when the pattern has no date.
    pub date: Option<Arc<str>>,
    /// The slug the path gives, as written.
    pub slug: Arc<str>,
    /// The shape of the name, for the help of a name that does not fit it.
    pub shape: NameShape,
    /// The slug must already be a slug (the seed's layout); otherwise it is made one.
    pub strict: bool,
    /// In a drafts folder: a draft whatever the front matter says.
    pub draft: bool,
}

impl PostName {
    /// The name of a file `stem` in the seed's layout (`2024-05-01_my-post`).
    pub fn seed(stem: &str) -> PostName {
        let (date, slug) = split_dated(stem, '_');
        PostName {
            key: stem.into(),
            stem: stem.into(),
            date: Some(date.into()),
            slug: slug.into(),
            shape: NameShape::Dated('_'),
            strict: true,
            draft: false,
        }
    }

    /// The slug the post is published under: the path's, made a slug unless the layout is
    /// strict. `None` when nothing of it can be a slug.
    pub fn published_slug(&self) -> Option<Arc<str>> {
        if is_valid_slug(&self.slug) {
            Some(self.slug.clone())
        } else if self.strict {
            None
        } else {
            slugify(&self.slug).map(Arc::from)
        }
    }
}

/// A name's date and slug: `2024-05-01-my-post` → (`2024-05-01`, `my-post`). A name that does
/// not start with a date and the separator gives its text up to the first separator as the
/// date (or all of it), for the message that says it is not one.
pub(crate) fn split_dated(name: &str, separator: char) -> (&str, &str) {
    if name.len() > 11
        && name.is_char_boundary(10)
        && name[10..].starts_with(separator)
        && name.as_bytes()[..10]
            .iter()
            .all(|b| b.is_ascii_digit() || *b == b'-')
    {
        return (&name[..10], &name[11..]);
    }
    name.split_once(separator).unwrap_or((name, ""))
}
