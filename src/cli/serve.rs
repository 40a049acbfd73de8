//! `content-api serve`: build as `--once` does, then serve the output folder over HTTP.
//!
//! With content errors, nothing is written; the previous build is served if there is one, and
//! the command fails if there is none. Ctrl-C (or SIGTERM) stops the server.

use super::once::{content_folder_problem, print_diagnostics};
use super::{EXIT_CONTENT_ERRORS, EXIT_USAGE, ServeArgs, Settings};
use crate::db::Workspace;
use crate::serve::{self, Feed};
use crate::write::{History, MANIFEST_PATH, Verify, publish};
use crate::{build, source};
use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

pub fn run(settings: &Settings, args: &ServeArgs) -> ExitCode {
    let config = &settings.config;
    if let Some(problem) = content_folder_problem(&config.content_dir) {
        eprintln!("{}", problem.render(None, settings.color));
        return ExitCode::from(EXIT_USAGE);
    }
    let workspace = match first_build(settings) {
        Ok(workspace) => workspace,
        Err(code) => return code,
    };

    // Watch mode plugs in here. Spawn the watch loop with `workspace` and `feed.clone()`; after
    // each successful publish it calls `workspace.set_published(report.published.clone())` and
    // `feed.send(serve::Rebuild::from_report(&report))`, and the server refreshes its state and
    // tells the /__events subscribers. Until then, the first build is all that is served.
    let feed = Feed::new();
    drop(workspace);

    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start the server: {err}");
            return ExitCode::from(EXIT_CONTENT_ERRORS);
        }
    };
    runtime.block_on(async {
        let listener = match tokio::net::TcpListener::bind(args.addr).await {
            Ok(listener) => listener,
            Err(err) => {
                eprintln!(
                    "error: cannot listen on {}: {err}\n  = help: pick another port with --addr 127.0.0.1:PORT (port 0 picks a free one)",
                    args.addr
                );
                return ExitCode::from(EXIT_USAGE);
            }
        };
        let addr = listener.local_addr().unwrap_or(args.addr);
        if !addr.ip().is_loopback() {
            tracing::warn!(
                "listening on {}, not a loopback address: anyone who can reach it can read {}",
                addr.ip(),
                config.out_dir
            );
        }
        // The one line on stdout: scripts and tests read the address (useful with port 0).
        println!("listening on http://{addr}/");
        let _ = std::io::stdout().flush();
        match serve::serve_on(
            listener,
            config.out_dir.clone(),
            config.clone(),
            feed,
            shutdown_signal(),
        )
        .await
        {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("error: cannot serve {}: {err}", config.out_dir);
                ExitCode::from(EXIT_CONTENT_ERRORS)
            }
        }
    })
}

/// The `--once` pipeline on a workspace that watch mode can go on changing. Content errors
/// are printed; they stop the command only when there is no earlier build to serve.
fn first_build(settings: &Settings) -> Result<Workspace, ExitCode> {
    let started = Instant::now();
    let config = &settings.config;
    let scan = source::scan(config.content_dir.as_std_path());
    let history = History::load(&config.out_dir);
    let mut workspace = Workspace::new(
        config.clone(),
        settings.today(),
        settings.drafts,
        scan,
        history.published(),
    );
    let diagnostics = build::diagnostics(workspace.db());
    let errors = print_diagnostics(&workspace, &diagnostics, settings.color);
    if errors > 0 {
        let plural = if errors == 1 { "" } else { "s" };
        if config.out_dir.join(MANIFEST_PATH).is_file() {
            eprintln!(
                "warning: {errors} error{plural} in the content; nothing was written, serving the previous build in {}",
                config.out_dir
            );
            return Ok(workspace);
        }
        eprintln!(
            "error: {errors} error{plural} in the content; nothing was written to {} and there is no earlier build to serve",
            config.out_dir
        );
        return Err(ExitCode::from(EXIT_CONTENT_ERRORS));
    }
    let outputs = build::outputs(workspace.db());
    match publish(&config.out_dir, &outputs, Verify::Disk) {
        Ok(report) => {
            tracing::info!(
                "built {} files in {} ms: {} written, {} unchanged, {} removed → {}",
                outputs.len(),
                started.elapsed().as_millis(),
                report.written.len(),
                report.unchanged,
                report.removed.len(),
                config.out_dir
            );
            workspace.set_published(report.published.clone());
            Ok(workspace)
        }
        Err(err) => {
            eprintln!("error: {err}");
            Err(ExitCode::from(EXIT_CONTENT_ERRORS))
        }
    }
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let mut terminate =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let terminated = async {
        match terminate.as_mut() {
            Some(signal) => {
                signal.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminated => {}
    }
    tracing::info!("stopping the server");
}
