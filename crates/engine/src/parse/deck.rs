//! Slide decks: `slides/{lang}/YYYY-MM-DD_<slug>.md|.mdx`.

use super::fields::FrontMatter;
use super::keys::unknown_keys;
use super::{Parsed, check_image, check_url, frontmatter, path_name, text_or_failure};
use crate::content::{FileRole, PostName};
use crate::db::SourceFile;
use crate::model::{DeckMeta, DeckType, Lang, Timestamp};
use std::sync::Arc;

/// Parses a slide deck file: its value and every diagnostic.
#[salsa::tracked(returns(ref))]
pub fn parse_deck(db: &dyn salsa::Database, file: SourceFile) -> Parsed<DeckMeta> {
    let FileRole::Deck { lang, name } = file.role(db) else {
        unreachable!("parse_deck is only called on deck files")
    };
    match text_or_failure(db, file) {
        Ok(text) => parse_deck_named(file.path(db).as_str(), *lang, name, text),
        Err(parsed) => parsed,
    }
}

/// The deck's value alone, for the queries that need no diagnostics: a change of only
/// its diagnostics reruns none of them.
#[salsa::tracked(returns(ref))]
pub fn deck_meta(db: &dyn salsa::Database, file: SourceFile) -> Option<DeckMeta> {
    parse_deck(db, file).value.clone()
}

/// Every key a deck's front matter may hold: those the API reads, then those the format accepts
/// for the site's own pages (a slide framework's settings among them).
pub const DECK_KEYS: &[&str] = &[
    "type",
    "title",
    "description",
    "pubDate",
    "heroImage",
    "draft",
    "eventName",
    "eventDate",
    "externalUrl",
    "provider",
    "embedUrl",
    "updatedDate",
    "relatedPost",
    "keywords",
    "author",
    "theme",
    "transition",
    "math",
    "syntaxHighlight",
];

/// Parses the text of the seed-layout deck at `path` (pure: `new` and tests call it).
pub fn parse_deck_text(path: &str, lang: Lang, stem: &str, text: &str) -> Parsed<DeckMeta> {
    parse_deck_named(path, lang, &PostName::seed(stem), text)
}

fn parse_deck_named(path: &str, lang: Lang, path_parts: &PostName, text: &str) -> Parsed<DeckMeta> {
    let split = match frontmatter::split(path, text) {
        Ok(split) => split,
        Err(diagnostic) => return Parsed::failed(diagnostic),
    };
    let mut front = FrontMatter::parse(path, text, &split);
    let name = path_name(path, path_parts);
    let path_date = name.as_ref().ok().and_then(|(date, _)| *date);
    let deck_type = match front.required_string("type") {
        Some(value) => {
            let parsed = DeckType::from_front_matter(&value);
            if parsed.is_none() {
                front.invalid(
                    "type",
                    format!("unknown deck `type`: `{value}`"),
                    "expected native, internal, external, external-link or external-embed",
                    "use `native` or `internal` for a deck hosted here, `external` for a link, `external-embed` for an embedded frame",
                );
            }
            parsed
        }
        None => None,
    };
    let title = front.required_string("title");
    let description = front.required_string("description");
    let pub_date = match path_date {
        Some(date) if !path_parts.strict && !front.has("pubDate") => {
            Some(Timestamp::from_date(date))
        }
        _ => front.timestamp("pubDate", true),
    };
    let hero_image = check_image(&mut front, "heroImage");
    let draft = path_parts.draft || front.boolean("draft").unwrap_or(false);
    let event_name = front.string("eventName");
    let event_date = front.timestamp("eventDate", false);
    let external_url = check_url(&mut front, "externalUrl");
    let provider = front.string("provider");
    check_url(&mut front, "embedUrl");
    if deck_type.is_some_and(DeckType::is_external)
        && external_url.is_none()
        && !front.has("externalUrl")
    {
        front.missing("externalUrl", "https://slides.example.com/my-deck");
    }
    let (slug, name_error) = match name {
        Ok((_, slug)) => (Some(slug), None),
        Err(diagnostic) => (None, Some(diagnostic)),
    };
    let unknown_keys = unknown_keys(&front, DECK_KEYS, |_| false);
    let mut diagnostics = std::mem::take(&mut front.diagnostics);
    diagnostics.extend(name_error);
    let has_errors = diagnostics.iter().any(|d| d.is_error());
    let value = match (has_errors, slug, deck_type, title, description, pub_date) {
        (false, Some(slug), Some(deck_type), Some(title), Some(description), Some(pub_date)) => {
            Some(DeckMeta {
                id: Arc::from(format!(
                    "{lang}/{}_{slug}",
                    path_date
                        .unwrap_or_else(|| pub_date.utc_date())
                        .format("%Y-%m-%d")
                )),
                slug,
                lang,
                deck_type,
                title,
                description,
                pub_date,
                hero_image,
                draft,
                event_name,
                event_date,
                // The external URL and provider describe external decks only.
                external_url: external_url.filter(|_| deck_type.is_external()),
                provider: provider.filter(|_| deck_type.is_external()),
            })
        }
        _ => None,
    };
    Parsed {
        value,
        diagnostics,
        body_start: split.body_start,
        unknown_keys,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> Parsed<DeckMeta> {
        let text = format!("---\n{yaml}---\nnotes\n");
        parse_deck_text(
            "slides/en/2024-05-01_talk.md",
            Lang::EN,
            "2024-05-01_talk",
            &text,
        )
    }

    #[test]
    fn deck_types_map_to_the_api_names() {
        for (written, emitted) in [
            ("native", "internal"),
            ("internal", "internal"),
            ("external", "external-link"),
            ("external-link", "external-link"),
            ("external-embed", "external-embed"),
        ] {
            let deck = parse(&format!(
                "type: {written}\ntitle: T\ndescription: D\npubDate: 2024-05-01\nexternalUrl: https://x.example/d\n"
            ));
            assert_eq!(deck.value.unwrap().deck_type.as_str(), emitted);
        }
    }

    #[test]
    fn external_decks_need_a_url() {
        let deck = parse("type: external\ntitle: T\ndescription: D\npubDate: 2024-05-01\n");
        assert!(deck.value.is_none());
        assert_eq!(
            deck.diagnostics[0].message,
            "missing required field `externalUrl`"
        );
    }

    #[test]
    fn event_dates_are_timestamps() {
        let deck = parse(
            "type: native\ntitle: T\ndescription: D\npubDate: 2024-05-01\neventDate: 2024-04-30\neventName: Meetup\n",
        );
        let meta = deck.value.unwrap();
        assert_eq!(
            meta.event_date.unwrap().to_string(),
            "2024-04-30T00:00:00.000Z"
        );
        let bad =
            parse("type: native\ntitle: T\ndescription: D\npubDate: 2024-05-01\neventDate: soon\n");
        assert!(
            bad.diagnostics[0]
                .message
                .contains("`eventDate` is not a valid date")
        );
    }

    #[test]
    fn url_and_provider_appear_on_external_decks_only() {
        let fields = "title: T\ndescription: D\npubDate: 2024-05-01\nexternalUrl: https://x.example/d\nprovider: Speaker Deck\n";
        let internal = parse(&format!("type: internal\n{fields}")).value.unwrap();
        assert_eq!(internal.external_url, None);
        assert_eq!(internal.provider, None);
        let external = parse(&format!("type: external-embed\n{fields}"))
            .value
            .unwrap();
        assert_eq!(
            external.external_url.as_deref(),
            Some("https://x.example/d")
        );
        assert_eq!(external.provider.as_deref(), Some("Speaker Deck"));
    }

    #[test]
    fn a_blank_hero_image_means_none() {
        for hero in ["\"\"", "\"   \"", "\"\\t\""] {
            let deck = parse(&format!(
                "type: native\ntitle: T\ndescription: D\npubDate: 2024-05-01\nheroImage: {hero}\n"
            ));
            assert!(
                deck.diagnostics.is_empty(),
                "{hero}: {:?}",
                deck.diagnostics
            );
            assert_eq!(deck.value.unwrap().hero_image, None, "{hero}");
        }
    }
}
