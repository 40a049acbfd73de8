//! Rendering: from derived values to the exact bytes of every output file.
//!
//! Each output file is produced by one tracked query returning an [`Output`](crate::output::Output); `output_groups`
//! lists which files exist, in groups a rebuild can skip as a whole. Lists of posts are
//! assembled from per-entry fragments cached per source file (`splice`), so an edit to one post
//! re-serializes one entry, not the whole index. The wire types, HTTP rules, error bodies,
//! operations and tools it renders are the contract's (`content-api-contract`); this module
//! turns the content into them.
//!
//! Declarations and re-exports only: each item lives in the module that owns it.

mod assemble;
pub mod cloudflare;
mod config_only;
pub mod docs;
mod gone;
mod groups;
pub mod host_files;
pub mod index;
pub mod nginx;
pub mod openapi;
mod posts;
mod runs;
mod slides;
mod splice;
mod timelines;

pub use assemble::{group_files, prepare_post, render_output};
pub use gone::gone_paths;
pub use groups::{DOCUMENTS_LANE_FILES, Lane, OutputGroup, output_groups, site_wide_files};
pub use index::{LISTED_DOCUMENTS, ListedDocument};
