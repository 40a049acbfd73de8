//! The API contract as data: the HTTP rules every host follows ([`http`]), the error bodies
//! ([`problem`]), the operations ([`operations`]), the agent tools ([`tools`]), the media types
//! ([`media`]), the published paths of the documents ([`paths`]) and the facts about each
//! ([`documents`]), the wire types ([`wire`]) and
//! the preview's own wire types ([`preview`]).
//!
//! Pure tables and functions over them: no query engine, no YAML parser, no I/O
//! (`clippy.toml`). The engine renders the outputs from them; `serve`, `mcp` and `verify` speak
//! the contract through them without linking the engine.

pub mod documents;
pub mod html;
pub mod http;
pub mod languages;
pub mod media;
pub mod operations;
pub mod paths;
pub mod preview;
pub mod problem;
pub mod tools;
pub mod wire;

// The layers below, under the names they have in every crate of the workspace.
use content_api_model::{config, model};

/// The site's languages, which the contract's operations and tools depend on (re-exported for
/// the layers that speak the contract without the model: `verify`).
pub use content_api_model::model::{Lang, Languages};
