use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .without_time()
        .with_env_filter(
            // notify logs every watch it cannot remove (a deleted folder) at info level.
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
                tracing_subscriber::EnvFilter::new("info,salsa=warn,notify=warn")
            }),
        )
        .init();
    content_api::cli::run(content_api::cli::Cli::parse())
}
