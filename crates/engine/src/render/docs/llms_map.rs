//! `llms.txt`, in the llmstxt.org format: an H1 with the site's name, a blockquote summary, a
//! paragraph of context, then H2 sections that are lists of `- [name](url): notes`, the last
//! one titled `Optional`. Every link is absolute and is a file of the build (or, for external
//! slide decks, the deck's own URL).

use super::licence::reuse_or_see_licence;
use super::skill_output_file;
use super::skills::published_skills;
use super::text::{language_name, markdown, one_line, site_summary};
use crate::config::SiteConfig;
use crate::db::{Globals, LangTree};
use crate::derive::{
    localized_series, published_decks, series_chapters, series_names, tag_definitions,
    tag_display_name, tag_members, tag_names,
};
use crate::languages::names_in_words;
use crate::operations::operations;
use crate::output::Output;
use crate::parse::{deck_meta, skill_meta};
use crate::render::index::{LISTED_DOCUMENTS, listed_document, resolved_paths};

/// `- [name](url): notes`, on one line.
fn item(name: &str, url: &str, notes: &str) -> String {
    let notes = one_line(notes);
    if notes.is_empty() {
        format!("- [{}]({url})\n", markdown(name))
    } else {
        format!("- [{}]({url}): {}\n", markdown(name), markdown(&notes))
    }
}

fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// `llms.txt`. Each list is cached per language (series, tags, slide decks), so an edit that
/// changes one list re-renders that list, and the file joins the cached lists.
#[salsa::tracked(returns(ref))]
pub fn llms_txt(db: &dyn salsa::Database) -> Output {
    let site = Globals::get(db);
    let config = site.config(db);
    let mut out = header(config);
    out.push_str(&api_section(db, config));
    let trees = site.trees(db);
    out.push_str("\n## Series\n\n");
    for &tree in trees.iter() {
        out.push_str(series_items(db, tree));
    }
    out.push_str("\n## Tags\n\n");
    for &tree in trees.iter() {
        out.push_str(tag_items(db, tree));
    }
    out.push_str("\n## Slide decks\n\n");
    for &tree in trees.iter() {
        out.push_str(deck_items(db, tree));
    }
    out.push_str(&optional_section(db, config));
    Output::new(out)
}

/// One language's series, with their current chapter counts.
#[salsa::tracked(returns(ref))]
fn series_items(db: &dyn salsa::Database, tree: LangTree) -> String {
    let lang = tree.lang(db);
    let config = Globals::get(db).config(db);
    let mut out = String::new();
    for name in series_names(db, tree).iter() {
        let Some(series) = localized_series(db, tree, name.clone()).as_ref() else {
            continue;
        };
        let chapters = series_chapters(db, tree, name).len();
        out.push_str(&item(
            &series.title,
            &config.url(&format!("/api/series/{lang}/{name}.json")),
            &format!(
                "{} in {}. {}",
                plural(chapters, "chapter", "chapters"),
                language_name(lang),
                series.description
            ),
        ));
    }
    out
}

/// One language's tags, with their post counts.
#[salsa::tracked(returns(ref))]
fn tag_items(db: &dyn salsa::Database, tree: LangTree) -> String {
    let lang = tree.lang(db);
    let config = Globals::get(db).config(db);
    let definitions = tag_definitions(db);
    let mut out = String::new();
    for tag in tag_names(db, tree).iter() {
        let count = tag_members(db, tree, tag).map_or(0, |members| members.files(db).len());
        let description = definitions
            .get(tag)
            .map(|def| def.description.as_str())
            .unwrap_or_default();
        out.push_str(&item(
            &format!("{} ({lang})", tag_display_name(db, lang, tag)),
            &config.url(&format!("/api/timeline/{lang}/{tag}.json")),
            &format!(
                "{} in {}. {description}",
                plural(count, "post", "posts"),
                language_name(lang)
            ),
        ));
    }
    out
}

/// One language's published slide decks.
#[salsa::tracked(returns(ref))]
fn deck_items(db: &dyn salsa::Database, tree: LangTree) -> String {
    let lang = tree.lang(db);
    let config = Globals::get(db).config(db);
    let timeline = config.url(&format!("/api/slides-timeline/{lang}.json"));
    let mut out = String::new();
    for &file in published_decks(db, tree).iter() {
        let Some(deck) = deck_meta(db, file).as_ref() else {
            continue;
        };
        let date = deck.pub_date.to_string();
        let mut notes = format!("{}, {}", language_name(lang), &date[..10]);
        if let Some(event) = &deck.event_name {
            notes.push_str(&format!(", {event}"));
        }
        notes.push_str(&format!(", {} deck", deck.deck_type.as_str()));
        if let Some(provider) = &deck.provider {
            notes.push_str(&format!(" on {provider}"));
        }
        notes.push_str(&format!(". {}", deck.description));
        let url = match &deck.external_url {
            Some(external) if deck.deck_type.is_external() => external.clone(),
            _ => timeline.clone(),
        };
        out.push_str(&item(&deck.title, &url, &notes));
    }
    out
}

fn header(config: &SiteConfig) -> String {
    let licence = &config.licence;
    format!(
        "# {}\n\n> {}\n\nThe site's posts, series, tag timelines and slide decks, in {}, as static JSON: public, anonymous and read-only (GET and HEAD, no keys). Start at the API index: it lists every URL that exists right now. Content by {} is licensed {}{}: {}.\n",
        markdown(&config.name),
        markdown(&site_summary(config)),
        names_in_words(config.languages.all()),
        markdown(&config.author),
        markdown(&licence.name),
        licence
            .url
            .as_ref()
            .map_or_else(String::new, |url| format!(" ({url})")),
        reuse_or_see_licence(licence, "with attribution"),
    )
}

fn api_section(db: &dyn salsa::Database, config: &SiteConfig) -> String {
    let mut out = String::from("\n## API\n\n");
    out.push_str(&item(
        "API index",
        &config.url("/api/index.json"),
        "Entry point: every operation with every URL it resolves to, version, versioning, authentication and links to every document.",
    ));
    for name in ["openapi", "developers", "developers_markdown", "auth"] {
        let doc = listed_document(name);
        out.push_str(&item(doc.title, &config.url(doc.path), doc.purpose));
    }
    for op in operations(&config.languages)
        .into_iter()
        .filter(|op| op.id != "getApiIndex")
    {
        let example = resolved_paths(db, op).into_iter().next();
        let (url, example_note) = match example {
            Some(path) if !op.params.is_empty() => {
                (config.url(&path), format!(" Example: {path}."))
            }
            Some(path) => (config.url(&path), String::new()),
            None => (
                config.url(&format!("{}#{}", listed_document("developers").path, op.id)),
                " No URL resolves yet.".to_string(),
            ),
        };
        out.push_str(&item(
            op.id,
            &url,
            &format!(
                "GET {} returns {}: {}{example_note}",
                op.path_template, op.response, op.description
            ),
        ));
    }
    out
}

fn optional_section(db: &dyn salsa::Database, config: &SiteConfig) -> String {
    let mut out = String::from("\n## Optional\n\n");
    let full = listed_document("llms_full_txt");
    out.push_str(&item(
        full.title,
        &config.url(full.path),
        &format!(
            "{} Each post's Markdown alone is at its page URL plus .md.",
            full.purpose
        ),
    ));
    let parts = super::llms_full_parts(db).len();
    for index in 1..parts {
        out.push_str(&item(
            &format!("{} (part {} of {parts})", full.title, index + 1),
            &config.url(&format!("/{}", super::llms_full_part_file(index))),
            "The next older posts, in the same format.",
        ));
    }
    for &lang in config.languages.all() {
        out.push_str(&item(
            &format!("Posts in {}", language_name(lang)),
            &config.url(&format!("/api/posts-{lang}.json")),
            "Every published post's metadata, newest first.",
        ));
    }
    for doc in LISTED_DOCUMENTS
        .iter()
        .filter(|d| d.path.starts_with("/.well-known/"))
    {
        out.push_str(&item(doc.title, &config.url(doc.path), doc.purpose));
    }
    for (name, file) in published_skills(db).iter() {
        let description = skill_meta(db, *file)
            .as_ref()
            .map(|meta| meta.description.as_str())
            .unwrap_or_default();
        out.push_str(&item(
            &format!("Agent skill: {name}"),
            &config.url(&format!("/{}", skill_output_file(name))),
            description,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_escape_names_and_keep_notes_on_one_line() {
        assert_eq!(
            item("a [b]", "https://x.example/a", "one\ntwo"),
            "- [a \\[b\\]](https://x.example/a): one two\n"
        );
        assert_eq!(
            item("a", "https://x.example/a", ""),
            "- [a](https://x.example/a)\n"
        );
    }
}
