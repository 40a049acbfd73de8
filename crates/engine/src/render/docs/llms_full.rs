//! `llms-full.txt`: every published post with its metadata and Markdown body, for retrieval and
//! grounding. Each post's section is cached per source file; the file only joins them.

use super::licence::{capitalized, reuse_or_see_licence};
use super::post_md::{metadata_line, post_markdown};
use super::text::{markdown, site_summary};
use crate::db::{Globals, Index, SourceFile};
use crate::derive::post_series_position;
use crate::languages::same_date_order;
use crate::paths::{LLMS_FULL_TXT, LLMS_TXT};
use std::sync::Arc;
// The lines that open a post's section (with its id and language as attributes) and close it.
use crate::output::Assembly;
use crate::output::{Chunk, Output};
use crate::output::{Part, Section};
use crate::parse::body::{SECTION_CLOSE as CLOSE, SECTION_OPEN as OPEN, has_section_line};
use crate::parse::post_meta;
use crate::render::runs::{PostList, Run};

/// One post's section: a blank line, `<post id=".." lang="..">`, the post's Markdown variant
/// with two more metadata lines (the variant's URL and the series position), `</post>`. The
/// variant's header and body are shared, not copied: a post's body is held in memory once.
#[salsa::tracked(returns(ref))]
pub fn llms_full_section(db: &dyn salsa::Database, file: SourceFile) -> Option<Section> {
    let meta = post_meta(db, file).as_ref()?;
    let variant = post_markdown(db, file).as_ref()?;
    let config = Globals::get(db).config(db);
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

/// The runs of posts each `llms-full` file holds, as ranges of the list's runs: one range (the
/// whole list) unless the posts pass the budget (`hosting.llms_full_part_bytes`, 20 MiB: under
/// Cloudflare Pages' 25 MiB per file). A larger corpus is split into parts (`llms-full-2.txt`...)
/// of whole runs of posts, newest first, each listed by `llms.txt` and by the first part. A run
/// larger than the budget is a part of its own.
#[salsa::tracked(returns(ref))]
pub fn llms_full_parts(db: &dyn salsa::Database) -> Arc<[std::ops::Range<usize>]> {
    let budget = Globals::get(db).config(db).hosting.llms_full_part_bytes;
    let runs = PostList::All(Index::get(db)).runs(db);
    let mut parts = Vec::new();
    let (mut start, mut size) = (0, 0);
    for (i, &run) in runs.iter().enumerate() {
        let len = llms_full_run(db, run).len();
        if size + len > budget && i > start {
            parts.push(start..i);
            (start, size) = (i, 0);
        }
        size += len;
    }
    parts.push(start..runs.len());
    parts.into()
}

/// The file of part `index` (0-based): `llms-full.txt`, then `llms-full-2.txt`...
pub fn llms_full_part_file(index: usize) -> String {
    if index == 0 {
        LLMS_FULL_TXT.to_string()
    } else {
        format!("llms-full-{}.txt", index + 1)
    }
}

/// `llms-full.txt`: licence and attribution, then every published post newest first (on the
/// same date, by id, so by language code: English before Spanish); the newest ones only when
/// the corpus is split, with the list of its other parts.
#[salsa::tracked(returns(ref))]
pub fn llms_full_txt(db: &dyn salsa::Database) -> Output {
    let config = Globals::get(db).config(db);
    let parts = llms_full_parts(db);
    let mut prelude = format!(
        "# {}: full content\n\n> {}\n\n",
        markdown(&config.name),
        markdown(&site_summary(config))
    );
    let licence = &config.licence;
    prelude.push_str(&format!(
        "Licence: {}{}. Author: {}. {}.\n\n",
        markdown(&licence.name),
        licence
            .url
            .as_ref()
            .map_or_else(String::new, |url| format!(" ({url})")),
        markdown(&config.author),
        capitalized(&reuse_or_see_licence(
            licence,
            &format!(
                "with attribution to {} ({}) and a link to the post's canonical URL",
                markdown(&config.author),
                markdown(&config.name),
            )
        )),
    ));
    prelude.push_str(&format!(
        "Every published post of {}, newest first{}. Each post is one section that starts with a `{OPEN}id=\"..\" lang=\"..\">` line and ends with a `{CLOSE}` line: its title, description and metadata, then its Markdown body. A post's Markdown alone is at its canonical URL plus `.md`; the curated site map is {}.\n",
        markdown(&config.name),
        same_date_order(&config.languages)
            .map_or_else(String::new, |order| format!(" (on the same date, {order})")),
        config.url(&format!("/{LLMS_TXT}")),
    ));
    if parts.len() > 1 {
        prelude.push_str(&format!(
            "\nThe posts are split into {} files, newest first, so that each stays small enough for every host; this one holds the newest. The others:\n\n",
            parts.len(),
        ));
        for index in 1..parts.len() {
            prelude.push_str(&format!(
                "- {}\n",
                config.url(&format!("/{}", llms_full_part_file(index)))
            ));
        }
    }
    assemble_runs(db, prelude, parts[0].clone())
}

/// Part `index` (0-based: `llms-full-2.txt` is 1) of a split `llms-full.txt`. Not a query of
/// its own: the group that lists the parts is, and joining a part's runs only clones handles.
pub fn llms_full_part(db: &dyn salsa::Database, index: usize) -> Output {
    let config = Globals::get(db).config(db);
    let parts = llms_full_parts(db);
    let Some(range) = parts.get(index) else {
        return Output::new(String::new());
    };
    let prelude = format!(
        "# {}: full content, part {} of {}\n\nPosts continue from {}, newest first; licence, attribution and the section format are there.\n",
        markdown(&config.name),
        index + 1,
        parts.len(),
        config.url(&format!("/{}", llms_full_part_file(index - 1))),
    );
    assemble_runs(db, prelude, range.clone())
}

fn assemble_runs(
    db: &dyn salsa::Database,
    prelude: String,
    runs: std::ops::Range<usize>,
) -> Output {
    let mut out = Assembly::default();
    out.push(Chunk::from(prelude));
    for &run in &PostList::All(Index::get(db)).runs(db)[runs] {
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
