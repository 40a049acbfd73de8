//! What is read from disk: the content folder ([`source`], the only reader of content files)
//! and the settings file ([`watch_toml`]). Both produce the values of `model`.

pub mod at;
pub mod source;
pub mod watch_toml;

// The layer below, under the names it has in every crate of the workspace.
use content_api_model::{config, content, diag, model};
