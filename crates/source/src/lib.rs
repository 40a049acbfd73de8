//! What is read from disk: the content folder ([`source`], the only reader of content files)
//! and the configuration ([`config`], `watch.toml`).

pub mod config;
pub mod source;

// The layer below, under the names it has in every crate of the workspace.
use content_api_model::{diag, model};
