//! Plain domain values: languages, timestamps, slugs, and the parsed shape of each content kind.
//!
//! Nothing here knows about salsa, files on disk or JSON. These types are what parsing produces
//! and what the derive and render layers consume.

mod lang;
mod slug;
mod time;

pub use lang::{Lang, Languages};
pub use slug::{SLUG_PATTERN, ascii_name, is_valid_slug, slugify};
pub use time::{DATE_FORMS, Timestamp};

use std::sync::Arc;

/// A blog post's front matter, reduced to what the API uses. Spans are gone: this is the value
/// the indexes depend on, so it must compare equal when only positions or the body changed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PostMeta {
    /// `<lang>/<YYYY-MM-DD>_<slug>`, the path below `blog/` without extension.
    pub id: Arc<str>,
    pub slug: Arc<str>,
    pub lang: Lang,
    pub title: String,
    pub description: String,
    pub pub_date: Timestamp,
    /// Every tier in one list, in front-matter order, without duplicates.
    pub tags: Vec<Arc<str>>,
    pub hero_image: Option<String>,
    pub series: Option<Arc<str>>,
    pub series_order: Option<i64>,
    pub draft: bool,
}

/// Where a published post sorts: newest first is date descending, then id ascending.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SortKey {
    pub date: Timestamp,
    pub id: Arc<str>,
}

impl SortKey {
    /// The "newest first" order of the contract.
    pub fn newest_first(a: &SortKey, b: &SortKey) -> std::cmp::Ordering {
        b.date
            .cmp(&a.date)
            .then_with(|| a.id.as_bytes().cmp(b.id.as_bytes()))
    }
}

/// Where a published chapter sorts in its series: `seriesOrder` ascending (missing last), then
/// `pubDate` ascending, then id.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReadingKey {
    pub order: Option<i64>,
    pub date: Timestamp,
    pub id: Arc<str>,
}

impl ReadingKey {
    /// The reading order of a series.
    pub fn reading_order(a: &ReadingKey, b: &ReadingKey) -> std::cmp::Ordering {
        let order = match (a.order, b.order) {
            (Some(x), Some(y)) => x.cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        };
        order
            .then(a.date.cmp(&b.date))
            .then_with(|| a.id.as_bytes().cmp(b.id.as_bytes()))
    }
}

/// The kind of a slide deck as the API names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeckType {
    Internal,
    ExternalEmbed,
    ExternalLink,
}

impl DeckType {
    /// The accepted front-matter spellings, mapped to what the API emits.
    pub fn from_front_matter(value: &str) -> Option<DeckType> {
        match value {
            "native" | "internal" => Some(DeckType::Internal),
            "external" | "external-link" => Some(DeckType::ExternalLink),
            "external-embed" => Some(DeckType::ExternalEmbed),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DeckType::Internal => "internal",
            DeckType::ExternalEmbed => "external-embed",
            DeckType::ExternalLink => "external-link",
        }
    }

    pub fn is_external(self) -> bool {
        !matches!(self, DeckType::Internal)
    }
}

/// A slide deck's front matter, reduced to what the API uses.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeckMeta {
    pub id: Arc<str>,
    pub slug: Arc<str>,
    pub lang: Lang,
    pub deck_type: DeckType,
    pub title: String,
    pub description: String,
    pub pub_date: Timestamp,
    pub hero_image: Option<String>,
    pub draft: bool,
    pub event_name: Option<String>,
    pub event_date: Option<Timestamp>,
    pub external_url: Option<String>,
    pub provider: Option<String>,
}

/// The three tiers of the tag taxonomy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tier {
    Primary,
    Secondary,
    Subtopic,
}

impl Tier {
    pub fn from_front_matter(value: &str) -> Option<Tier> {
        match value {
            "primary" => Some(Tier::Primary),
            "secondary" => Some(Tier::Secondary),
            "subtopic" => Some(Tier::Subtopic),
            _ => None,
        }
    }
}

/// One taxonomy entry from `tags/<name>.md`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TagDef {
    pub name: Arc<str>,
    pub description: String,
    pub tier: Tier,
    pub parent: Option<Arc<str>>,
    pub order: i64,
}

/// One series definition from `series/<name>.md`. Localized fields are looked up per language
/// with [`SeriesDef::localized`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SeriesDef {
    pub name: Arc<str>,
    pub order: i64,
    /// `title`, `description`, `heroImage` and their `<field><Lang>` variants, as written.
    pub text: Vec<(String, String)>,
}

impl SeriesDef {
    /// `<field><Lang>` when present (for example `titleEs`), else `<field>`.
    pub fn localized(&self, field: &str, lang: Lang) -> Option<&str> {
        let suffixed = format!("{field}{}", lang.field_suffix());
        self.lookup(&suffixed).or_else(|| self.lookup(field))
    }

    fn lookup(&self, key: &str) -> Option<&str> {
        self.text
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// An agent skill from `agent-skills/<name>/SKILL.md`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SkillMeta {
    pub name: Arc<str>,
    pub description: String,
}
