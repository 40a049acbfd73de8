//! Rendering: from derived values to the exact bytes of every output file.
//!
//! Each output file is produced by one tracked query returning an [`Output`]; `output_groups`
//! lists which files exist, in groups a rebuild can skip as a whole. Lists of posts are assembled from per-entry fragments cached per
//! source file, so an edit to one post re-serializes one entry, not the whole index.
//! Only this module (and `serve`, for error bodies) knows the wire format.

mod assemble;
pub mod cloudflare;
pub mod docs;
mod document_files;
mod gone;
mod groups;
pub mod host_files;
pub mod http;
pub mod index;
pub mod media;
pub mod nginx;
pub mod openapi;
mod operations;
mod output;
mod posts;
pub mod problem;
mod runs;
mod slides;
mod static_docs;
mod timelines;
pub mod tools;
pub mod wire;

pub use document_files::AGENT_SKILLS_INDEX;
pub use gone::gone_paths;
pub use groups::{Files, LAGGING_DOCUMENTS, Lane};
pub use http::HOST_FILES;
pub use index::{DOCUMENTS, Document};
pub use media::media_type;
pub use operations::{OPERATIONS, Operation, PathParam};
pub use output::Output;

pub use assemble::{group_files, render_output};
pub use groups::{OutputGroup, output_groups, site_documents};
pub use http::is_api_path;
pub use http::{NEGOTIATION_CASES, prefers_markdown};
pub use output::Chunk;

use crate::db::SourceFile;
use crate::model::Lang;

/// Whether an output path is a post's Markdown twin (`blog/{slug}.md`, `es/blog/{slug}.md`).
pub fn is_post_twin(path: &str) -> bool {
    Lang::ALL.into_iter().any(|lang| {
        let pattern = docs::post_markdown_file(lang, "x");
        let folder = &pattern[..pattern.len() - "x.md".len()];
        path.strip_prefix(folder)
            .and_then(|name| name.strip_suffix(".md"))
            .is_some_and(|slug| !slug.is_empty() && !slug.contains('/'))
    })
}

/// Renders the per-post fragments of one post (its index entry, its timeline entry, its
/// Markdown variant and its `llms-full.txt` section) ahead of the files that join them, so a
/// build can spread this work over threads.
pub fn prepare_post(db: &dyn salsa::Database, file: SourceFile) {
    posts::post_entry_json(db, file);
    timelines::timeline_post_json(db, file);
    docs::prepare_post(db, file);
}
