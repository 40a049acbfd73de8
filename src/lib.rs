//! content-api: an incremental build daemon that turns a bilingual Markdown content folder into
//! a static, read-only JSON API, its OpenAPI description, error documents and the discovery
//! documents for agents and people.
//!
//! The output is a pure function of (content tree, configuration, today's date, publishing
//! history). That function is expressed as salsa queries, so `--once` and watch mode evaluate
//! the same queries; watch mode just re-evaluates them after changing an input.
//!
//! Data flows one way: [`source`] (files on disk) → [`db`] (salsa inputs, written only by
//! [`workspace`]) → `parse` → `derive` → [`render`] (bytes) → [`write`](mod@write) (the output folder);
//! [`session`] turns a batch of changed files into a rebuild, and [`serve`] reads the folder back
//! over HTTP; [`mcp`] serves the site's tools to MCP clients over stdio. [`cli`] wires them
//! together for the binary.
//!
//! Each layer is a crate of the workspace (`crates/`); this library is the command line
//! ([`cli`]) and re-exports the layers under the names the binary, the integration tests and
//! the benchmarks use. See ARCHITECTURE.md for what each crate owns, the order in which they
//! depend on each other, and the invariants.

/// The allocator of every program built on this crate: the binary, and the integration tests
/// and benchmarks, which then measure what ships (the crates' unit tests use the system's). mimalloc, for a build's millions of small allocations on every
/// core; v2 and no transparent huge pages, for a watch session's resident size (numbers in
/// docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub mod cli;

// The layers, one crate each (crates/), under the names the code, the tests and the benchmarks
// use for them.
pub use content_api_contract::{
    documents, html, http, media, operations, paths, preview, problem, tools, wire,
};
pub use content_api_deploy as deploy;
pub use content_api_engine::{build, db, derive, parse, render, workspace};
pub use content_api_mcp as mcp;
pub use content_api_model::{config, content, diag, model, output};
pub use content_api_serve as serve;
pub use content_api_session as session;
pub use content_api_source::{source, watch_toml};
pub use content_api_verify as verify;
pub use content_api_watch as watch;
pub use content_api_write as write;
