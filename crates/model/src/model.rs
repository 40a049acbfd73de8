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
    /// What the API names the post by: its file name's slug, or the front matter's `slug`.
    pub slug: Arc<str>,
    /// The post's language.
    pub lang: Lang,
    /// The `title` field.
    pub title: String,
    /// The `description` field, or the body's first paragraph when the site says so
    /// (`description_from_body`).
    pub description: String,
    /// The `pubDate` field: the order of the lists and the date the API shows.
    pub pub_date: Timestamp,
    /// Every tier in one list, in front-matter order, without duplicates.
    pub tags: Vec<Arc<str>>,
    /// The `heroImage` field: the path or URL of the post's picture, as written.
    pub hero_image: Option<String>,
    /// The series the post is a chapter of, by its slug.
    pub series: Option<Arc<str>>,
    /// The `seriesOrder` field: the chapter's place in its series' reading order.
    pub series_order: Option<i64>,
    /// Left out of recorded builds: published only by builds with `--drafts`.
    pub draft: bool,
}

/// Where a published post sorts: newest first is date descending, then id ascending.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SortKey {
    /// Newer sorts first.
    pub date: Timestamp,
    /// Between posts of one date, the lower id sorts first.
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
    /// The `seriesOrder` field: lower reads first, and a chapter without one reads last.
    pub order: Option<i64>,
    /// Between chapters of one order, the earlier date reads first.
    pub date: Timestamp,
    /// Between chapters of one order and date, the lower id reads first.
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
    /// A deck the site hosts itself.
    Internal,
    /// A deck hosted elsewhere, shown embedded in the site's page.
    ExternalEmbed,
    /// A deck hosted elsewhere, linked to.
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

    /// The spelling the API emits (`deckType`).
    pub fn as_str(self) -> &'static str {
        match self {
            DeckType::Internal => "internal",
            DeckType::ExternalEmbed => "external-embed",
            DeckType::ExternalLink => "external-link",
        }
    }

    /// Whether the deck lives on another host (it then has an `externalUrl` and `provider`).
    pub fn is_external(self) -> bool {
        !matches!(self, DeckType::Internal)
    }
}

/// A slide deck's front matter, reduced to what the API uses.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeckMeta {
    /// `<lang>/<YYYY-MM-DD>_<slug>`, as a post's id.
    pub id: Arc<str>,
    /// What the API names the deck by.
    pub slug: Arc<str>,
    /// The deck's language.
    pub lang: Lang,
    /// Where the deck is hosted, and how the site shows it.
    pub deck_type: DeckType,
    /// The `title` field.
    pub title: String,
    /// The `description` field.
    pub description: String,
    /// The `pubDate` field: the order of the slides timeline.
    pub pub_date: Timestamp,
    /// The `heroImage` field, as written.
    pub hero_image: Option<String>,
    /// Left out of recorded builds: published only by builds with `--drafts`.
    pub draft: bool,
    /// The `eventName` field: the event the talk was given at.
    pub event_name: Option<String>,
    /// The `eventDate` field: when the talk was given.
    pub event_date: Option<Timestamp>,
    /// The `externalUrl` field: where an external deck is (external decks only).
    pub external_url: Option<String>,
    /// The `provider` field: the host of an external deck, as the author names it (external decks
    /// only).
    pub provider: Option<String>,
}

/// The three tiers of the tag taxonomy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tier {
    /// A top-level topic (also what a tag without `tier` is).
    Primary,
    /// A topic under a primary one.
    Secondary,
    /// The narrowest topics.
    Subtopic,
}

impl Tier {
    /// The tier a `tier` field names (`primary`, `secondary`, `subtopic`), or `None` for any other.
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
    /// The tag's slug: its file name.
    pub name: Arc<str>,
    /// The `description` field.
    pub description: String,
    /// The `tier` field (primary when absent).
    pub tier: Tier,
    /// The `parent` field, as written: the slug of a broader tag.
    pub parent: Option<Arc<str>>,
    /// The `order` field, as written (0 when absent).
    pub order: i64,
}

/// One series definition from `series/<name>.md`. Localized fields are looked up per language
/// with [`SeriesDef::localized`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SeriesDef {
    /// The series' slug: its file name.
    pub name: Arc<str>,
    /// The `order` field (0 when absent): in the series listing, it orders series whose last
    /// chapters share a date.
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
    /// The skill's folder name: what the API names it by.
    pub name: Arc<str>,
    /// The `description` field: what the skill is for.
    pub description: String,
}
