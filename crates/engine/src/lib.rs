//! The query engine: the salsa inputs ([`db`], set only by [`workspace`]), the queries over
//! them (`parse`, [`derive`](mod@derive), [`render`]), and [`build`], which evaluates them in parallel.
//!
//! A pure function of its inputs: no file system, network, clock, environment or process API
//! (`clippy.toml` lists them), but for the one read of a body left on disk that
//! `render::output::chunk` makes through `source::DiskBody`.

pub mod build;
pub mod db;
pub mod derive;
pub mod parse;
pub mod render;
pub mod workspace;

// The layers below, under the names they have in every crate of the workspace.
use content_api_contract::{html, http, media, operations, paths, problem, tools, wire};
use content_api_model::{diag, model};
use content_api_source::{config, source};
