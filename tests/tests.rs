//! The integration tests, one binary (ripgrep's way): each module is a file of `tests/`, whose
//! header says what it checks; `common` is what they share. `shutdown.rs` is a binary of its
//! own, since its shutdown request is process-wide.
//!
//! One process runs them all, so no test may change process-wide state (environment variables,
//! the current folder); a child process gets its environment, `CI` included, set explicitly.
//!
//! Unix only: they drive Unix programs and signals (nginx, FIFOs, SIGTERM, file modes). On
//! Windows, scripts/windows-check runs the unit tests and the binary itself under wine.

#![cfg(unix)]

mod common;

mod author_loop;
mod bodies_on_disk;
mod browser;
mod ci_workflow;
mod cli;
mod conformance;
mod corpus;
mod determinism;
mod docs;
mod drop_in;
mod errors;
mod faults;
mod fingerprint;
mod front_matter;
mod golden;
mod history;
mod host_files;
mod incremental;
mod languages;
mod layouts;
mod machine_output;
mod mcp;
mod minimal_work;
mod npm_package;
mod preview;
mod purge;
mod schema;
mod series_as_written;
mod serve;
mod sites;
mod storm;
mod tidy;
mod watch_e2e;
mod webmcp;
