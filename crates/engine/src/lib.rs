//! The query engine: the salsa inputs ([`db`], set only by [`workspace`]), the queries over
//! them (`parse`, [`derive`](mod@derive), [`render`]), and [`build`], which evaluates them in parallel.
//!
//! A pure function of its inputs: it depends on `model` and `contract` alone among the
//! workspace's crates, and uses no file system, network, clock, environment or process API
//! (`clippy.toml` lists them).
//! The one read it makes, of a post body a one-shot build left on disk, goes through the
//! `content::BodyReader` its caller put in the input (`output::Chunk`, in `model`).

pub mod build;
pub mod db;
pub mod derive;
pub mod parse;
pub mod render;
pub mod workspace;

// The layers below, under the names they have in every crate of the workspace.
use content_api_contract::{
    documents, html, http, languages, media, operations, paths, problem, tools, wire,
};
use content_api_model::{config, content, diag, model, output};
