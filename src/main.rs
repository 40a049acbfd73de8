//! The `content-api` binary: logging to stderr (`RUST_LOG` filters it), the command line, and
//! the exit code. Everything else is in the library ([`content_api::cli::run`]).

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .without_time()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,salsa=warn")),
        )
        .init();
    content_api::cli::run(content_api::cli::Cli::parse())
}
