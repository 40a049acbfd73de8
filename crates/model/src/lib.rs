//! The bottom layer: plain values ([`model`], [`content`], [`config`], an output file's bytes as
//! [`output`]) and diagnostics
//! ([`diag`]). No serde, no salsa, no I/O: every crate above uses these types, and none of them
//! knows where they came from. The one read a value can make is a body left on disk, through
//! the [`content::BodyReader`] its maker handed it.

pub mod config;
pub mod content;
pub mod diag;
pub mod model;
pub mod output;
