//! `llms-full.txt`: every published post with its metadata and Markdown body, for retrieval and
//! grounding. Each post's section is cached per source file; the file only joins them.

use super::post_md::{
    hero_line, language_line, metadata_line, post_body, push_body, tags_line, title_block,
};
use super::text::markdown;
use super::{LLMS_TXT, post_markdown_file, post_page_path};
use crate::db::{Site, SourceFile};
use crate::derive::{SortKey, post_series_position, published_posts};
use crate::parse::post_meta;
use crate::render::Output;
use std::sync::Arc;

/// The line that opens a post's section (its id and language as attributes).
const OPEN: &str = "<post ";
/// The line that closes a post's section.
const CLOSE: &str = "</post>";

/// One post's section: `<post id=".." lang="..">`, the title, the metadata lines (series position
/// included), the body, `</post>`.
#[salsa::tracked(returns(ref))]
pub fn llms_full_section(db: &dyn salsa::Database, file: SourceFile) -> Option<Arc<str>> {
    let meta = post_meta(db, file).as_ref()?;
    let config = Site::get(db).config(db);
    let page = post_page_path(meta.lang, &meta.slug);
    let mut out = format!("{OPEN}id=\"{}\" lang=\"{}\">\n\n", meta.id, meta.lang);
    out.push_str(&title_block(meta));
    out.push_str(&metadata_line("Published", &meta.pub_date.to_string()));
    out.push_str(&language_line(meta));
    out.push_str(&metadata_line("Canonical URL", &config.url(&page)));
    out.push_str(&metadata_line(
        "Markdown",
        &config.url(&format!("/{}", post_markdown_file(meta.lang, &meta.slug))),
    ));
    out.push_str(&tags_line(meta));
    if let Some(position) = post_series_position(db, file) {
        let series_url = config.url(&format!("/api/series/{}/{}.json", meta.lang, position.slug));
        out.push_str(&metadata_line(
            "Series",
            &format!(
                "{}, chapter {} of {} ({series_url})",
                markdown(&position.title),
                position.current,
                position.total
            ),
        ));
    }
    out.push_str(&hero_line(config, meta));
    push_body(&mut out, &guard_separators(&post_body(db, file)));
    out.push('\n');
    out.push_str(CLOSE);
    out.push('\n');
    Some(out.into())
}

/// A body line that starts like a section separator is indented by one space (which changes
/// nothing in Markdown), so `<post` and `</post>` at the start of a line always mean a section
/// boundary.
fn guard_separators(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    for line in body.split_inclusive('\n') {
        if line.starts_with(OPEN) || line.starts_with(CLOSE) {
            out.push(' ');
        }
        out.push_str(line);
    }
    out
}

/// `llms-full.txt`: licence and attribution, then every published post newest first (on the
/// same date, English before Spanish: ties are broken by id).
#[salsa::tracked(returns(ref))]
pub fn llms_full_txt(db: &dyn salsa::Database) -> Output {
    let site = Site::get(db);
    let config = site.config(db);
    let mut posts: Vec<&(SortKey, SourceFile)> = site
        .trees(db)
        .into_iter()
        .flat_map(|tree| published_posts(db, tree).iter())
        .collect();
    posts.sort_by(|a, b| SortKey::newest_first(&a.0, &b.0));
    let sections: Vec<&str> = posts
        .iter()
        .filter_map(|(_, file)| llms_full_section(db, *file).as_deref())
        .collect();
    let mut out = format!(
        "# {}: full content\n\n> {}\n\n",
        markdown(&config.name),
        markdown(&config.description)
    );
    out.push_str(&format!(
        "Licence: {} ({}). Author: {}. Reuse is allowed, including for training and grounding, with attribution to {} ({}) and a link to the post's canonical URL.\n\n",
        markdown(&config.licence.name),
        config.licence.url,
        markdown(&config.author),
        markdown(&config.author),
        markdown(&config.name),
    ));
    out.push_str(&format!(
        "Every published post of {}, newest first (on the same date, English before Spanish). Each post is one section that starts with a `{OPEN}id=\"..\" lang=\"..\">` line and ends with a `{CLOSE}` line: its title, description and metadata, then its Markdown body. A post's Markdown alone is at its canonical URL plus `.md`; the curated site map is {}.\n",
        config.base_url,
        config.url(&format!("/{LLMS_TXT}")),
    ));
    let total: usize = out.len() + sections.iter().map(|s| s.len() + 1).sum::<usize>();
    out.reserve(total - out.len());
    for section in sections {
        out.push('\n');
        out.push_str(section);
    }
    Output::new(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_lines_that_look_like_separators_are_indented() {
        assert_eq!(
            guard_separators("a\n</post>\n<post id=x>\n <post\n"),
            "a\n </post>\n <post id=x>\n <post\n"
        );
    }
}
