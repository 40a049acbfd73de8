//! `content-api serve`: watch (as `watch` does) and serve the output folder over HTTP, as a
//! preview for the author (see `serve::preview_on`).
//!
//! The server runs on a tokio runtime in the background; the watch loop runs on this thread
//! and announces every publish, and the content's current diagnostics, to the server, which
//! refreshes its state and tells the `/__events` subscribers. Ctrl-C (or SIGTERM) stops the
//! watch loop, then the server.

use super::watch::{DaemonEvent, WatchArgs, run_with};
use super::{BuildArgs, EXIT_OUTPUT, EXIT_USAGE, resolve};
use crate::db::Preview;
use crate::derive::ScheduleState;
use crate::preview::{DiagnosticView, PendingEntry, PendingList};
use crate::render::Lane;
use crate::serve::{self, Feed, LANDING_PATH_SHARED, Rebuild, Site, Upstream};
use crate::session::Session;
use crate::session::one_shot::content_folder_problem;
use std::io::Write as _;
use std::net::{Ipv4Addr, SocketAddr};
use std::process::ExitCode;
use tokio::net::TcpListener;

/// Where `serve` listens without `--addr`: no generator's default port (Astro's is 4321,
/// Hugo's 1313, Vite's 5173, Zola's 1111), so the site's own dev server can run beside it.
const DEFAULT_ADDR: SocketAddr = SocketAddr::new(std::net::IpAddr::V4(Ipv4Addr::LOCALHOST), 8421);

/// Where and for whom `serve` answers (its flags).
pub struct Listen {
    pub addr: Option<SocketAddr>,
    /// `--site URL`: the site's dev server, which answers what is not the tool's.
    pub site: Option<String>,
    /// `--behind-dev-server`: a dev server in front answers what is not the tool's.
    pub behind_dev_server: bool,
    /// `--origin URL`: the address the author opens.
    pub origin: Option<String>,
}

impl Listen {
    fn site(&self) -> Result<Site, String> {
        match &self.site {
            Some(url) => Upstream::parse(url)
                .map(Site::Proxy)
                .map_err(|why| format!("error: --site: {why}")),
            None if self.behind_dev_server => Ok(Site::Decline),
            None => Ok(Site::Alone),
        }
    }

    /// `--origin`, checked: an http(s) origin without a path.
    fn origin(&self) -> Result<Option<String>, String> {
        let Some(origin) = &self.origin else {
            return Ok(None);
        };
        let trimmed = origin.trim_end_matches('/');
        let rest = trimmed
            .strip_prefix("http://")
            .or_else(|| trimmed.strip_prefix("https://"));
        match rest {
            Some(host) if !host.is_empty() && !host.contains(['/', '?', '#', '@']) => {
                Ok(Some(trimmed.to_string()))
            }
            _ => Err(format!(
                "error: --origin: `{origin}` must be an http:// or https:// origin, such as http://localhost:4321"
            )),
        }
    }
}

/// Ports tried after the default one before giving up.
const FALLBACK_PORTS: u16 = 20;

pub fn run(build_args: &BuildArgs, watch_args: &WatchArgs, listen: &Listen) -> ExitCode {
    let addr = listen.addr;
    let settings = match resolve(build_args) {
        Ok(settings) => settings,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let (site, public_origin) = match listen.site().and_then(|site| Ok((site, listen.origin()?))) {
        Ok(found) => found,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let config = settings.config.clone();
    let preview = settings.preview();
    // What would stop the first build is said before anything else (an empty folder is not a
    // site): no "serving" line, no port taken, no output folder created.
    if let Some(problem) = content_folder_problem(&config.content_dir) {
        eprintln!("{}", problem.render(None, settings.color));
        return ExitCode::from(EXIT_USAGE);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_park(crate::serve::release_idle_memory)
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start the server: {err}");
            return ExitCode::from(EXIT_OUTPUT);
        }
    };
    // Bind before building: a port in use is reported at once.
    let listener = match runtime.block_on(bind(addr)) {
        Ok(listener) => listener,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let addr = listener
        .local_addr()
        .unwrap_or(addr.unwrap_or(DEFAULT_ADDR));
    if !addr.ip().is_loopback() {
        tracing::warn!(
            "listening on {}, not a loopback address: anyone who can reach it can read {}",
            addr.ip(),
            config.out_dir
        );
    }
    let own_origin = format!("http://{addr}");
    let origin = public_origin.unwrap_or_else(|| own_origin.clone());
    let feed = Feed::new();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    // Subscribed now (the first build's updates wait in the feed), started once the first
    // build is done: a run that fails before (a content folder that is no site, another writer
    // in the output folder) never says it serves, and the server resolves the output folder,
    // which the first build created, once.
    let mut server = Some(serve::preview_on(
        listener,
        config.out_dir.clone(),
        config.clone(),
        feed.clone(),
        origin.clone(),
        site.clone(),
        async move {
            let _ = stopped.await;
        },
    ));
    let mut running = None;
    let code = run_with(build_args, watch_args, &mut |progress| match progress {
        // The one line on stdout, once the first build is done: scripts and tests read the
        // address (useful with port 0) and can send requests at once.
        DaemonEvent::Ready if server.is_some() => {
            if let Err(err) = std::fs::create_dir_all(&config.out_dir) {
                tracing::error!("cannot create {}: {err}", config.out_dir);
            }
            running = server.take().map(|server| runtime.spawn(server));
            println!("listening on {own_origin}/");
            announce_site(&site, &origin);
            let _ = std::io::stdout().flush();
        }
        DaemonEvent::Ready => {}
        DaemonEvent::Published(report, lane) => {
            feed.send(Rebuild::from_report(report).in_lane(lane.map(Lane::name)))
        }
        DaemonEvent::Checked(session, lane) => {
            feed.send_base_url(&session.config().base_url);
            feed.send_diagnostics(diagnostics_of(session));
            // Every API-lane publish is followed by a documents lane: what will go live (a walk
            // over every post's metadata) is listed once per rebuild, with the documents.
            if lane != Some(Lane::Api) {
                feed.send_schedule(schedule_of(session, preview));
            }
        }
    });
    let _ = stop.send(());
    let Some(running) = running else {
        return code;
    };
    match runtime.block_on(running) {
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

/// With a site's dev server: what answers what, on stderr (stdout's one line is the address).
fn announce_site(site: &Site, origin: &str) {
    match site {
        Site::Alone => {}
        Site::Proxy(upstream) => eprintln!(
            "the API, its documents and the Markdown twins are answered here; every other request goes to the site's dev server at {}\n  = the tool's landing page: {origin}{LANDING_PATH_SHARED}",
            upstream.origin()
        ),
        Site::Decline => eprintln!(
            "behind the site's dev server at {origin}: it forwards every request here first and answers the ones this server declines"
        ),
    }
}

/// Binds `--addr` exactly, or without it the default address or, when its port is taken, the
/// next free one (saying so on stderr).
async fn bind(requested: Option<SocketAddr>) -> Result<TcpListener, String> {
    if let Some(addr) = requested {
        return TcpListener::bind(addr).await.map_err(|err| {
            format!(
                "error: cannot listen on {addr}: {err}\n  = help: pick another port with --addr 127.0.0.1:PORT (port 0 picks a free one), or leave --addr out to use the first free port from {}",
                DEFAULT_ADDR.port()
            )
        });
    }
    bind_first_free(DEFAULT_ADDR, FALLBACK_PORTS).await
}

/// The first of `start` and the `more` ports after it that is free, saying on stderr when it is
/// not `start`.
async fn bind_first_free(start: SocketAddr, more: u16) -> Result<TcpListener, String> {
    let mut last_error = None;
    for offset in 0..=more {
        let Some(port) = start.port().checked_add(offset) else {
            break;
        };
        let addr = SocketAddr::new(start.ip(), port);
        match TcpListener::bind(addr).await {
            Ok(listener) => {
                if offset > 0 {
                    eprintln!(
                        "note: port {} is in use; serving on port {port} instead",
                        start.port()
                    );
                }
                return Ok(listener);
            }
            Err(err) if err.kind() == std::io::ErrorKind::AddrInUse => last_error = Some(err),
            Err(err) => return Err(format!("error: cannot listen on {addr}: {err}")),
        }
    }
    Err(format!(
        "error: ports {} to {} are all in use ({})\n  = help: pick a port with --addr 127.0.0.1:PORT (port 0 picks any free one)",
        start.port(),
        start.port().saturating_add(more),
        last_error.map_or_else(|| "no port left".to_string(), |e| e.to_string())
    ))
}

/// The drafts and scheduled content of the session's content, as the landing page shows them.
fn schedule_of(session: &Session, preview: Preview) -> PendingList {
    let found = crate::derive::schedule(session.database(), |state| {
        state != ScheduleState::Published
    });
    PendingList {
        entries: found
            .entries
            .into_iter()
            .map(|entry| PendingEntry {
                draft: entry.state == ScheduleState::Draft,
                kind: entry.kind,
                lang: entry.lang.as_str(),
                path: entry.path,
                date: entry.date.to_string(),
                title: entry.title,
            })
            .collect(),
        timezone: session.config().timezone.name().to_string(),
        drafts_shown: preview.drafts,
        future_shown: preview.future,
    }
}

/// The session's current diagnostics, rendered as the terminal shows them (no colour).
fn diagnostics_of(session: &Session) -> Vec<DiagnosticView> {
    session
        .current_diagnostics()
        .into_iter()
        .map(|d| DiagnosticView {
            severity: d.severity.name(),
            path: d.path.clone(),
            line: d.location.as_ref().map(|l| l.line),
            column: d.location.as_ref().map(|l| l.column),
            message: d.message.clone(),
            rendered: session.render(d, false),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_taken_default_port_moves_to_the_next_free_one() {
        let taken = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let start = taken.local_addr().unwrap();
        let listener = bind_first_free(start, 20).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        assert!(port > start.port() && port <= start.port() + 20, "{port}");
    }

    #[tokio::test]
    async fn a_port_named_with_addr_is_used_or_the_command_fails() {
        let taken = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = taken.local_addr().unwrap();
        let message = bind(Some(addr)).await.unwrap_err();
        assert!(
            message.starts_with(&format!("error: cannot listen on {addr}")),
            "{message}"
        );
        assert!(message.contains("--addr 127.0.0.1:PORT"), "{message}");
        let message = bind_first_free(addr, 0).await.unwrap_err();
        assert!(message.contains("all in use"), "{message}");
    }
}
