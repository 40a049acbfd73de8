//! content-api: an incremental build daemon that turns a bilingual Markdown content folder into
//! a static, read-only JSON API (plus its OpenAPI description and error documents).
//!
//! The output is a pure function of (content tree, configuration, today's date). That function
//! is expressed as salsa queries, so `--once` and watch mode evaluate the same queries; watch
//! mode just re-evaluates them after changing an input.
//!
//! Data flows one way: [`source`] (files on disk) → [`db`] (salsa inputs) → [`parse`] →
//! [`derive`] (indexes) → [`render`] (bytes) → [`write`] (the output folder); [`serve`] reads
//! that folder back over HTTP. See
//! ARCHITECTURE.md for what each module owns and the invariants.

pub mod build;
pub mod cli;
pub mod config;
pub mod db;
mod derive;
mod diag;
mod model;
mod parse;
pub mod render;
pub mod serve;
pub mod session;
pub mod source;
mod watch;
pub mod workspace;
pub mod write;
