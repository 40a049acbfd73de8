//! The wire types: one Rust type per resource of the contract, fields in the contract's order.
//!
//! These types are the single source of both the JSON bytes (serde) and the OpenAPI schemas
//! (schemars): `openapi.json` is generated from them, so the description cannot drift from
//! what is served. Domain types never derive `Serialize`; the engine's `render` converts them
//! into these by hand.
//!
//! Lists that are assembled from cached per-entry fragments are typed [`Fragments`]: the
//! bytes are already-serialized JSON, and the schema is that of a `Vec` of the entry type.

// A doc comment here is not only for Rust readers: schemars makes it the field's `description`
// in `openapi.json`, so a field gets one only where the published description says it. The
// rest are named by the contract (its sections on each resource), not here.
#![allow(missing_docs)]

use schemars::JsonSchema;
use serde::Serialize;

/// A content language: one of the site's codes. Its schema here is a string; `openapi.json`
/// adds the site's codes as its `enum` (`render::openapi`).
#[derive(Clone, Copy)]
pub struct Language(pub crate::model::Lang);

impl From<crate::model::Lang> for Language {
    fn from(lang: crate::model::Lang) -> Language {
        Language(lang)
    }
}

impl Serialize for Language {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.as_str())
    }
}

impl JsonSchema for Language {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Language".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "description": "A content language." })
    }
}

/// One post in the search index.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PostIndexEntry<'a> {
    /// Collection id, shaped `<lang>/<YYYY-MM-DD>_<slug>`.
    #[schemars(regex(pattern = r"^(en|es)/[0-9]{4}-[0-9]{2}-[0-9]{2}_[a-z0-9-]+$"))]
    pub id: &'a str,
    /// Slug without the date prefix. Always English, in both languages.
    #[schemars(regex(pattern = r"^[a-z0-9-]+$"))]
    pub slug: &'a str,
    pub lang: Language,
    pub title: &'a str,
    pub description: &'a str,
    /// Publication date.
    #[schemars(extend("format" = "date-time"))]
    pub pub_date: String,
    /// Primary-tier tags, in the post's order.
    pub tags: Vec<&'a str>,
    /// Secondary and subtopic tags resolved from the taxonomy.
    pub topics: Vec<&'a str>,
    /// Subtopic-tier tags only.
    pub subtopics: Vec<&'a str>,
    /// Absolute path to the hero image, or null.
    pub hero_image: Option<&'a str>,
    /// Series slug; present when the post belongs to a series.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub series: Option<&'a str>,
    /// Position within the series, as written by the author.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub series_order: Option<i64>,
    /// Chapter number, 1-based, among published chapters.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub series_current: Option<usize>,
    /// Number of published chapters in the series.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub series_total: Option<usize>,
    /// Localized series title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub series_title: Option<&'a str>,
}

/// Every published post, newest first.
#[derive(Serialize, JsonSchema)]
#[serde(transparent)]
pub struct PostIndex(#[schemars(with = "Vec<PostIndexEntry<'static>>")] pub Fragments);

/// A post in a series or tag timeline.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimelinePost<'a> {
    #[schemars(regex(pattern = r"^[a-z0-9-]+$"))]
    pub slug: &'a str,
    pub lang: Language,
    pub title: &'a str,
    pub description: &'a str,
    #[schemars(extend("format" = "date-time"))]
    pub pub_date: String,
    /// The post's whole tag list, every tier.
    pub tags: Vec<&'a str>,
    pub hero_image: Option<&'a str>,
    /// True only in development builds; always false in production.
    pub is_draft: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub series_slug: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub series_current: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub series_total: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub series_title: Option<&'a str>,
}

/// One series in a language's series listing.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeriesListingEntry<'a> {
    /// Series slug, always English.
    #[schemars(regex(pattern = r"^[a-z0-9-]+$"))]
    pub slug: &'a str,
    pub title: &'a str,
    pub description: &'a str,
    /// Manual sort order.
    pub order: i64,
    /// Published chapters in this language.
    #[schemars(range(min = 1))]
    pub post_count: usize,
    pub hero_image: Option<&'a str>,
    /// Hero image of the first chapter, used as a fallback.
    pub first_post_hero: Option<&'a str>,
    /// Publication date of the most recent chapter.
    #[schemars(extend("format" = "date-time"))]
    pub last_post_date: String,
}

/// Every series with at least one published post in the language, newest activity first.
#[derive(Serialize, JsonSchema)]
pub struct SeriesListing<'a> {
    pub lang: Language,
    pub total: usize,
    pub series: Vec<SeriesListingEntry<'a>>,
}

/// One series with its chapters in reading order.
#[derive(Serialize, JsonSchema)]
pub struct SeriesDetail<'a> {
    /// Series slug.
    #[schemars(regex(pattern = r"^[a-z0-9-]+$"))]
    pub series: &'a str,
    pub lang: Language,
    pub total: usize,
    /// Chapters in reading order.
    #[schemars(with = "Vec<TimelinePost<'static>>")]
    pub posts: Fragments,
}

/// Every published post carrying a tag, newest first.
#[derive(Serialize, JsonSchema)]
pub struct TagTimeline<'a> {
    #[schemars(regex(pattern = r"^[a-z0-9-]+$"))]
    pub tag: &'a str,
    pub lang: Language,
    pub total: usize,
    /// Posts carrying the tag, newest first.
    #[schemars(with = "Vec<TimelinePost<'static>>")]
    pub posts: Fragments,
}

/// The kind of a slide deck: `internal` (hosted by the service), `external-embed` (embedded in
/// a frame) or `external-link` (a stub page linking to the deck).
// Plain `//` comments on the variants: doc comments would make schemars describe each value
// as a `oneOf` of `const`s, which code generators such as openapi-python-client reject; a
// plain string `enum` works with every one.
#[derive(Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SlideDeckType {
    // A deck hosted by the service.
    Internal,
    // A deck embedded in a frame.
    ExternalEmbed,
    // A stub information page linking to the deck.
    ExternalLink,
}

/// One slide deck.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SlideDeck<'a> {
    #[schemars(regex(pattern = r"^[a-z0-9-]+$"))]
    pub slug: &'a str,
    pub lang: Language,
    pub title: &'a str,
    pub description: &'a str,
    #[schemars(extend("format" = "date-time"))]
    pub pub_date: String,
    pub hero_image: Option<&'a str>,
    #[serde(rename = "type")]
    pub deck_type: SlideDeckType,
    pub is_draft: bool,
    /// Event where the deck was presented.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_name: Option<&'a str>,
    /// Event date, written like every other date of the API.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub event_date: Option<String>,
    /// Source deck URL, for the external types.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "uri"))]
    pub external_url: Option<&'a str>,
    /// External provider name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<&'a str>,
}

/// Every published slide deck in a language, newest first.
#[derive(Serialize, JsonSchema)]
pub struct SlidesTimeline {
    pub lang: Language,
    pub total: usize,
    #[schemars(with = "Vec<SlideDeck<'static>>")]
    pub decks: Fragments,
}

/// The versioning policy.
#[derive(Serialize, JsonSchema)]
pub struct Versioning {
    pub policy: String,
    pub current: String,
    #[schemars(extend("format" = "uri"))]
    pub documentation_url: String,
}

/// The authentication model: none.
#[derive(Serialize, JsonSchema)]
pub struct Authentication {
    /// Always false.
    pub required: bool,
    /// Always `none`.
    pub scheme: String,
    pub description: String,
    #[schemars(extend("format" = "uri"))]
    pub documentation_url: String,
}

/// How errors are reported.
#[derive(Serialize, JsonSchema)]
pub struct ErrorFormat {
    pub media_type: String,
    pub description: String,
    #[schemars(extend("format" = "uri"))]
    pub documentation_url: String,
}

/// One operation of the API with every URL its template currently resolves to.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    /// Matches the operationId in the OpenAPI description.
    pub operation_id: String,
    pub description: String,
    pub path_template: String,
    #[schemars(with = "Vec<UriString>")]
    pub urls: Vec<String>,
}

/// A string holding an absolute URI (schema helper).
#[derive(JsonSchema)]
#[schemars(extend("format" = "uri"))]
#[allow(dead_code)]
pub struct UriString(String);

/// The entry point of the API.
#[derive(Serialize, JsonSchema)]
pub struct ApiIndex {
    pub name: String,
    pub description: String,
    /// Semantic version of the API.
    pub version: String,
    pub versioning: Versioning,
    pub authentication: Authentication,
    /// Supported methods.
    pub methods: Vec<String>,
    pub error_format: ErrorFormat,
    /// Name to absolute URI of each machine-readable document.
    #[schemars(with = "std::collections::BTreeMap<String, UriString>")]
    pub links: serde_json::Map<String, serde_json::Value>,
    /// Number of endpoints.
    pub total: usize,
    pub endpoints: Vec<Endpoint>,
}

/// The machine-readable code of an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    ResourceNotFound,
    MethodNotAllowed,
    Gone,
    InternalError,
}

/// The nested error object of an error body.
#[derive(Serialize, JsonSchema)]
pub struct ErrorDetail {
    pub code: ErrorCode,
    /// Human-readable message.
    pub message: String,
    /// One sentence on how to recover.
    pub hint: String,
    /// Where the error model is documented.
    #[schemars(extend("format" = "uri"))]
    pub documentation_url: String,
}

/// An RFC 9457 problem-details body extended with a nested `error` object.
#[derive(Serialize, JsonSchema)]
pub struct Error {
    /// Documents the class of error.
    #[serde(rename = "type")]
    #[schemars(extend("format" = "uri"))]
    pub type_url: String,
    /// Short summary: the HTTP reason phrase.
    pub title: String,
    /// HTTP status code, repeated in the body.
    pub status: u16,
    /// Explanation for this occurrence.
    pub detail: String,
    /// Path that produced the error.
    pub instance: String,
    pub error: ErrorDetail,
}

/// Stands for a JSON array assembled from already-serialized entries (cached per entry, so a
/// one-entry change does not re-serialize the rest). It serializes as a marker that
/// [`around_fragments`] finds, so the engine (`render::splice`) can put the array's chunks in its
/// place; the other fields of an envelope are slugs and numbers, which can never contain the
/// marker.
pub struct Fragments;

/// What a [`Fragments`] field serializes to before splicing (a string with NUL characters).
const FRAGMENTS_MARKER: &str = "\0fragments\0";
const FRAGMENTS_MARKER_JSON: &str = "\"\\u0000fragments\\u0000\"";

impl Serialize for Fragments {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(FRAGMENTS_MARKER)
    }
}

/// Compact JSON, as every output is written.
pub fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("wire types always serialize")
}

/// Serializes an envelope holding one [`Fragments`] field: the JSON before and after it.
pub fn around_fragments<T: Serialize>(envelope: &T) -> (String, String) {
    let json = to_json(envelope);
    let at = json
        .find(FRAGMENTS_MARKER_JSON)
        .expect("the envelope has a Fragments field");
    (
        json[..at].to_string(),
        json[at + FRAGMENTS_MARKER_JSON.len()..].to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_ascii_is_written_raw() {
        assert_eq!(to_json(&"año “x”"), "\"año “x”\"");
    }
}
