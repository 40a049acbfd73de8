//! `llms-full.txt`: every published post with its metadata and Markdown body, for retrieval and
//! grounding. Each post's section is cached per source file; the file only joins them.

use super::LLMS_TXT;
use super::post_md::{metadata_line, post_markdown};
use super::text::{markdown, site_summary};
use crate::db::{Index, Site, SourceFile};
use crate::derive::post_series_position;
// The lines that open a post's section (with its id and language as attributes) and close it.
use crate::parse::body::{SECTION_CLOSE as CLOSE, SECTION_OPEN as OPEN, has_section_line};
use crate::parse::post_meta;
use crate::render::output::Assembly;
use crate::render::output::{Part, Section};
use crate::render::runs::{PostList, Run};
use crate::render::{Chunk, Output};

/// One post's section: a blank line, `<post id=".." lang="..">`, the post's Markdown variant
/// with two more metadata lines (the variant's URL and the series position), `</post>`. The
/// variant's header and body are shared, not copied: a post's body is held in memory once.
#[salsa::tracked(returns(ref))]
pub fn llms_full_section(db: &dyn salsa::Database, file: SourceFile) -> Option<Section> {
    let meta = post_meta(db, file).as_ref()?;
    let variant = post_markdown(db, file).as_ref()?;
    let config = Site::get(db).config(db);
    let mut chunks = vec![
        Chunk::from(format!(
            "\n{OPEN}id=\"{}\" lang=\"{}\">\n\n",
            meta.id, meta.lang
        )),
        Chunk::Text(variant.header.clone()),
    ];
    let mut extra = metadata_line("Markdown", &config.url(&format!("/{}", variant.file)));
    if let Some(position) = post_series_position(db, file) {
        let series_url = config.url(&format!("/api/series/{}/{}.json", meta.lang, position.slug));
        extra.push_str(&metadata_line(
            "Series",
            &format!(
                "{}, chapter {} of {} ({series_url})",
                markdown(&position.title),
                position.current,
                position.total
            ),
        ));
    }
    chunks.push(Chunk::from(extra));
    if !variant.body.is_empty() {
        chunks.push(Chunk::Static("\n"));
        // A body left on disk has no section line (`parse::body`): it is published as read.
        let guarded = variant.body.text().map(guard_separators);
        chunks.push(match guarded {
            Some(std::borrow::Cow::Owned(guarded)) => Chunk::from(guarded),
            _ => variant.body.clone(),
        });
    }
    chunks.push(Chunk::Static("\n</post>\n"));
    Some(Section::new(chunks))
}

/// A body line that starts like a section separator is indented by one space (which changes
/// nothing in Markdown), so `<post` and `</post>` at the start of a line always mean a section
/// boundary.
fn guard_separators(body: &str) -> std::borrow::Cow<'_, str> {
    if !has_section_line(body) {
        return body.into();
    }
    let mut out = String::with_capacity(body.len());
    for line in body.split_inclusive('\n') {
        if line.starts_with(OPEN) || line.starts_with(CLOSE) {
            out.push(' ');
        }
        out.push_str(line);
    }
    out.into()
}

/// `llms-full.txt`: licence and attribution, then every published post newest first (on the
/// same date, English before Spanish: ties are broken by id).
#[salsa::tracked(returns(ref))]
pub fn llms_full_txt(db: &dyn salsa::Database) -> Output {
    let config = Site::get(db).config(db);
    let mut prelude = format!(
        "# {}: full content\n\n> {}\n\n",
        markdown(&config.name),
        markdown(&site_summary(config))
    );
    prelude.push_str(&format!(
        "Licence: {} ({}). Author: {}. Reuse is allowed, including for training and grounding, with attribution to {} ({}) and a link to the post's canonical URL.\n\n",
        markdown(&config.licence.name),
        config.licence.url,
        markdown(&config.author),
        markdown(&config.author),
        markdown(&config.name),
    ));
    prelude.push_str(&format!(
        "Every published post of {}, newest first (on the same date, English before Spanish). Each post is one section that starts with a `{OPEN}id=\"..\" lang=\"..\">` line and ends with a `{CLOSE}` line: its title, description and metadata, then its Markdown body. A post's Markdown alone is at its canonical URL plus `.md`; the curated site map is {}.\n",
        markdown(&config.name),
        config.url(&format!("/{LLMS_TXT}")),
    ));
    let mut out = Assembly::default();
    out.push(Chunk::from(prelude));
    for &run in PostList::All(Index::get(db)).runs(db) {
        out.push_part(llms_full_run(db, run));
    }
    out.finish()
}

/// The `llms-full.txt` sections of one run.
#[salsa::tracked(returns(ref))]
pub fn llms_full_run<'db>(db: &'db dyn salsa::Database, run: Run<'db>) -> Part {
    Part::sections(
        run.files(db)
            .iter()
            .filter_map(|&file| llms_full_section(db, file).clone())
            .collect(),
    )
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
