//! A post's Markdown variant: `blog/{slug}.md` (English) or `es/blog/{slug}.md` (Spanish), the
//! page's URL plus `.md` as the contract's "Markdown variant" rule says.

use super::text::{language_name, markdown, normalized_body, strip_mdx_esm};
use crate::config::SiteConfig;
use crate::content::FileContents;
use crate::db::{Globals, SourceFile};
use crate::model::PostMeta;
use crate::output::{Chunk, Output};
use crate::parse::body::unchanged_body_range;
use crate::parse::{parse_post, post_meta};
use crate::paths::post_page_path;
use std::sync::Arc;

/// A post's Markdown variant: its file ([`crate::paths::post_markdown_file`]) is the title block and
/// metadata lines (`header`), a blank line, and the body. Both parts are shared with the post's
/// section of `llms-full.txt`, so a body is held in memory once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostMarkdown {
    /// The variant's file ([`crate::paths::post_markdown_file`]), so that a group of variants reads
    /// nothing else of the post.
    pub file: Arc<str>,
    pub output: Output,
    pub header: Arc<str>,
    /// The body (empty when the post has none): usually a range of the file's own text.
    pub body: Chunk,
}

/// One post's Markdown variant. Reads the post's text, so it re-runs on every edit of that post
/// and of nothing else (besides the configuration).
#[salsa::tracked(returns(ref))]
pub fn post_markdown(db: &dyn salsa::Database, file: SourceFile) -> Option<PostMarkdown> {
    let meta = post_meta(db, file).as_ref()?;
    let config = Globals::get(db).config(db);
    let mut header = title_block(meta);
    header.push_str(&metadata_line("Published", &meta.pub_date.to_string()));
    header.push_str(&language_line(meta));
    header.push_str(&metadata_line(
        "Canonical URL",
        &config.url(&post_page_path(&config.languages, meta.lang, &meta.slug)),
    ));
    header.push_str(&tags_line(db, meta));
    header.push_str(&hero_line(config, meta));
    let header: Arc<str> = header.into();
    let body = post_body(db, file);
    let mut chunks = vec![Chunk::Text(header.clone())];
    if !body.is_empty() {
        chunks.push(Chunk::Static("\n"));
        chunks.push(body.clone());
    }
    Some(PostMarkdown {
        file: crate::paths::post_markdown_file(&config.languages, meta.lang, &meta.slug).into(),
        output: Output::from_chunks(chunks),
        header,
        body,
    })
}

/// The post's Markdown body (after the front matter), as published: MDX files lose their
/// `import`/`export` blocks. When publishing changes nothing but the blank lines around the
/// body (the usual case), the chunk is a range of the file's text rather than a copy.
fn post_body(db: &dyn salsa::Database, file: SourceFile) -> Chunk {
    let start = parse_post(db, file).parsed.body_start;
    let text = match file.contents(db) {
        FileContents::Text(text) => text,
        // Left on disk because it is published as read: the writer reads it again.
        FileContents::Detached { body, .. } => return Chunk::Disk(body.clone()),
        _ => return Chunk::Static(""),
    };
    let body = text.get(start..).unwrap_or_default();
    if file.path(db).as_str().ends_with(".mdx") {
        return normalized_body(&strip_mdx_esm(body)).into();
    }
    match unchanged_body_range(text, start) {
        Some(range) => Chunk::source(text, range).unwrap_or_else(|| normalized_body(body).into()),
        None => normalized_body(body).into(),
    }
}

/// `# Title`, then the description as a blockquote.
fn title_block(meta: &PostMeta) -> String {
    let mut out = format!("# {}\n\n", markdown(&meta.title));
    if !meta.description.trim().is_empty() {
        out.push_str(&format!("> {}\n\n", markdown(&meta.description)));
    }
    out
}

/// One `- Name: value` metadata line.
pub(super) fn metadata_line(name: &str, value: &str) -> String {
    format!("- {name}: {value}\n")
}

fn language_line(meta: &PostMeta) -> String {
    metadata_line(
        "Language",
        &format!("{} ({})", language_name(meta.lang), meta.lang),
    )
}

/// The tags, or nothing when the post has none.
fn tags_line(db: &dyn salsa::Database, meta: &PostMeta) -> String {
    if meta.tags.is_empty() {
        return String::new();
    }
    let tags: Vec<&str> = meta
        .tags
        .iter()
        .map(|tag| crate::derive::tag_display_name(db, meta.lang, tag))
        .collect();
    metadata_line("Tags", &tags.join(", "))
}

/// The hero image as plain text (an absolute URL when it is a site path): it is a site asset
/// this build does not own, so it is never written as a link.
fn hero_line(config: &SiteConfig, meta: &PostMeta) -> String {
    match &meta.hero_image {
        Some(hero) if hero.starts_with('/') => metadata_line("Hero image", &config.url(hero)),
        Some(hero) => metadata_line("Hero image", hero),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_plain_body_is_a_range_of_the_file() {
        let text = "---\ntitle: A\n---\n\nFirst line.\n\nLast line.\n\n";
        let start = text.find("\n\nFirst").unwrap();
        let range = unchanged_body_range(text, start).expect("no copy needed");
        assert_eq!(&text[range], "First line.\n\nLast line.\n");
        assert_eq!(
            unchanged_body_range("---\n---\nA  \n", 8),
            None,
            "trailing spaces are trimmed, so the published body is a copy"
        );
        assert_eq!(
            unchanged_body_range("---\n---\r\nA\r\n", 7),
            None,
            "CRLF is rewritten"
        );
        assert_eq!(
            unchanged_body_range("---\n---\nA", 8),
            None,
            "no final newline to share"
        );
    }

    proptest! {
        /// Whenever a range is returned, it holds exactly what `normalized_body` would publish.
        #[test]
        fn the_range_is_the_normalized_body(text in "[ab \\n\\r\\t]{0,24}", start in 0usize..24) {
            let start = start.min(text.len());
            if let Some(range) = unchanged_body_range(&text, start) {
                prop_assert_eq!(&text[range], normalized_body(&text[start..]));
            }
        }
    }
}
