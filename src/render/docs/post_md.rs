//! A post's Markdown variant: `blog/{slug}.md` (English) or `es/blog/{slug}.md` (Spanish), the
//! page's URL plus `.md` as the contract's "Markdown variant" rule says.

use super::post_page_path;
use super::text::{language_name, markdown, normalized_body, strip_mdx_esm};
use crate::config::SiteConfig;
use crate::db::{Site, SourceFile};
use crate::model::PostMeta;
use crate::parse::{parse_post, post_meta};
use crate::render::{Chunk, Output};
use std::sync::Arc;

/// A post's Markdown variant: its file ([`super::post_markdown_file`]) is the title block and
/// metadata lines (`header`), a blank line, and the body. Both parts are shared with the post's
/// section of `llms-full.txt`, so a body is held in memory once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostMarkdown {
    pub output: Output,
    pub header: Arc<str>,
    /// The body, or "" when the post has none.
    pub body: Arc<str>,
}

/// One post's Markdown variant. Reads the post's text, so it re-runs on every edit of that post
/// and of nothing else (besides the configuration).
#[salsa::tracked(returns(ref))]
pub fn post_markdown(db: &dyn salsa::Database, file: SourceFile) -> Option<PostMarkdown> {
    let meta = post_meta(db, file).as_ref()?;
    let config = Site::get(db).config(db);
    let mut header = title_block(meta);
    header.push_str(&metadata_line("Published", &meta.pub_date.to_string()));
    header.push_str(&language_line(meta));
    header.push_str(&metadata_line(
        "Canonical URL",
        &config.url(&post_page_path(meta.lang, &meta.slug)),
    ));
    header.push_str(&tags_line(meta));
    header.push_str(&hero_line(config, meta));
    let header: Arc<str> = header.into();
    let body: Arc<str> = post_body(db, file).into();
    let mut chunks = vec![Chunk::Text(header.clone())];
    if !body.is_empty() {
        chunks.push(Chunk::Static("\n"));
        chunks.push(Chunk::Text(body.clone()));
    }
    Some(PostMarkdown {
        output: Output::from_chunks(chunks),
        header,
        body,
    })
}

/// The post's Markdown body (after the front matter), as published: MDX files lose their
/// `import`/`export` blocks.
fn post_body(db: &dyn salsa::Database, file: SourceFile) -> String {
    let start = parse_post(db, file).parsed.body_start;
    let text = file.contents(db).text().unwrap_or_default();
    let body = text.get(start..).unwrap_or_default();
    if file.path(db).as_str().ends_with(".mdx") {
        normalized_body(&strip_mdx_esm(body))
    } else {
        normalized_body(body)
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
fn tags_line(meta: &PostMeta) -> String {
    if meta.tags.is_empty() {
        return String::new();
    }
    let tags: Vec<&str> = meta.tags.iter().map(|tag| &**tag).collect();
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
