//! The `content-api` binary: logging to stderr (`RUST_LOG` filters it), the command line, and
//! the exit code. Everything else, the allocator included, is in the library
//! ([`content_api::cli::run`]).

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = content_api::cli::Cli::parse();
    if cli.capture_json_logs() {
        return content_api::cli::run(cli);
    }
    // RUST_LOG, when set, wins over --quiet and --verbose (for debugging one module).
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(cli.log_filter()));
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(content_api::cli::stderr_color())
        .without_time()
        .with_env_filter(filter)
        .init();
    content_api::cli::run(cli)
}
