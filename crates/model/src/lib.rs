//! The bottom layer: plain values ([`model`]) and diagnostics ([`diag`]). No serde, no salsa,
//! no I/O: every crate above uses these types, and none of them knows where they came from.

pub mod diag;
pub mod model;
