//! `content-api serve`: watch (as `watch` does) and serve the output folder over HTTP.
//!
//! The server runs on a tokio runtime in the background; the watch loop runs on this thread
//! and announces every publish to the server, which refreshes its state and tells the
//! `/__events` subscribers. Ctrl-C (or SIGTERM) stops the watch loop, then the server.

use super::watch::{Progress, WatchArgs, run_with};
use super::{BuildArgs, EXIT_OUTPUT, EXIT_USAGE, ServeArgs, resolve};
use crate::serve::{self, Feed, Rebuild};
use std::io::Write as _;
use std::process::ExitCode;

pub fn run(build_args: &BuildArgs, watch_args: &WatchArgs, args: &ServeArgs) -> ExitCode {
    let settings = match resolve(build_args) {
        Ok(settings) => settings,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let config = settings.config.clone();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start the server: {err}");
            return ExitCode::from(EXIT_OUTPUT);
        }
    };
    // Bind before building: a port in use is reported at once.
    let listener = match runtime.block_on(tokio::net::TcpListener::bind(args.addr)) {
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
    // The server resolves the folder once, at start: make sure it exists before the first build.
    if let Err(err) = std::fs::create_dir_all(&config.out_dir) {
        eprintln!("error: cannot create {}: {err}", config.out_dir);
        return ExitCode::from(EXIT_OUTPUT);
    }
    let feed = Feed::new();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = runtime.spawn(serve::serve_on(
        listener,
        config.out_dir.clone(),
        config.clone(),
        feed.clone(),
        async move {
            let _ = stopped.await;
        },
    ));
    let mut announced = false;
    let code = run_with(build_args, watch_args, &mut |progress| match progress {
        // The one line on stdout, once the first build is done: scripts and tests read the
        // address (useful with port 0) and can send requests at once.
        Progress::Ready if !announced => {
            announced = true;
            println!("listening on http://{addr}/");
            let _ = std::io::stdout().flush();
        }
        Progress::Ready => {}
        Progress::Published(report) => feed.send(Rebuild::from_report(report)),
    });
    let _ = stop.send(());
    match runtime.block_on(server) {
        Ok(Ok(())) => code,
        Ok(Err(err)) => {
            eprintln!("error: cannot serve {}: {err}", config.out_dir);
            ExitCode::from(EXIT_OUTPUT)
        }
        Err(err) => {
            eprintln!("error: the server stopped: {err}");
            ExitCode::from(EXIT_OUTPUT)
        }
    }
}
