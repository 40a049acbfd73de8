//! `content-api serve`: the output folder over HTTP, with the contract's exact behaviour
//! (methods, status codes, headers, JSON problem bodies), on localhost.
//!
//! The server reads only what `write` published: the files, the manifest and the history of
//! published API paths. It never parses content or renders anything but error bodies (with
//! `problem`), so it cannot disagree with the static host about what exists.
//!
//! - `path`: request path → safe relative path → candidate files;
//! - `folder`: reading one version of one file inside the output folder, with its ETag;
//! - `router`: the HTTP rules;
//! - `respond`: headers and error responses;
//! - `removed`: which removed paths answer 410;
//! - `events`: the Server-Sent Events stream of rebuilds;
//! - `preview`: what only `content-api serve` adds for the author (the landing page at `/`,
//!   the content's errors, live reload, the base URL rewritten to the local address).
//! - `site`: the requests that are not the tool's, when the output shares its origin with a
//!   site's dev server (`serve --site`, the Astro integration);
//! - `host`: which `Host` a request may name (a page elsewhere reaching this server through a
//!   name of its own is refused);
//! - `raw_errors`: hyper's own answers to unreadable requests (400, 414, 431), rewritten as
//!   the contract's JSON errors.
//!
//! The build side (watch mode) hands each publish, and the content's current diagnostics, to
//! the server through a [`Feed`].

// The layers below, under the names they have in every crate of the workspace.
use content_api_contract::{html, http, media, paths, problem, wire};
// The values the build side sends the preview: the contract's `preview` (this crate's own
// `preview` module serves them).
use content_api_contract::preview::{DiagnosticView, PendingList};
use content_api_deploy as deploy;
use content_api_model::config;
use content_api_write as write;

mod events;
mod folder;
mod host;
mod path;
mod preview;
mod raw_errors;
mod rebase;
mod removed;
mod respond;
mod router;
mod site;
mod slots;

pub use events::EVENTS_PATH;
pub use folder::etag_of;
pub use preview::LANDING_PATH_SHARED;
pub use site::{DECLINED_HEADER, PAGE_HEADERS_HEADER, Site, Upstream};

use crate::config::SiteConfig;
use crate::write::Report;
use bytes::Bytes;
use camino::Utf8PathBuf;
use hyper::Request;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{broadcast, watch};

/// How long a stopping server lets the responses under way finish.
const SHUTDOWN_WAIT: Duration = Duration::from_millis(500);

/// The largest request head read (hyper answers 431 beyond it, rewritten by `raw_errors`).
const MAX_HEAD_BYTES: usize = 128 << 10;

/// One rebuild's effect, as URL paths (site-absolute, e.g. "/api/posts.json").
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Rebuild {
    /// Written or rewritten.
    pub changed: Vec<String>,
    /// Removed from the output folder.
    pub removed: Vec<String>,
    /// Which lane of watch mode finished: `"api"` (the API and what agrees with it; the
    /// documents lane follows), `"documents"` (the large documents: the output now equals a
    /// fresh build), or `"all"` (both at once: the first build).
    pub lane: &'static str,
}

impl Rebuild {
    /// The URLs a publish changed and removed. Host configuration files (`_headers`,
    /// `_redirects`) are not URLs and are left out.
    pub fn from_report(report: &Report) -> Rebuild {
        let urls = |paths: &mut dyn Iterator<Item = &str>| -> Vec<String> {
            paths
                .filter(|p| !http::HOST_FILES.contains(p))
                .map(|p| format!("/{p}"))
                .collect()
        };
        Rebuild {
            changed: urls(&mut report.written.iter().map(|p| &**p)),
            removed: urls(&mut report.removed.iter().map(String::as_str)),
            lane: "all",
        }
    }

    /// The rebuild as the publish of the watch-mode lane named `lane` (`None`: both lanes at
    /// once). A name, not the engine's lane: the server only passes it on.
    pub fn in_lane(self, lane: Option<&'static str>) -> Rebuild {
        Rebuild {
            lane: lane.unwrap_or("all"),
            ..self
        }
    }

    /// Nothing changed (a documents lane that had nothing to write still says it finished).
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.removed.is_empty()
    }
}

/// What the build side tells the server.
#[derive(Clone, Debug)]
pub enum Update {
    /// A publish, as the paths it changed and removed: sent on to the pages as a change event.
    Rebuild(Rebuild),
    /// The content's current diagnostics (shown by the preview; empty once all is fixed).
    Diagnostics(Arc<[DiagnosticView]>),
    /// The production base URL now in force (the preview rewrites it).
    BaseUrl(Arc<str>),
    /// The drafts and scheduled content (shown by the preview).
    Schedule(Arc<PendingList>),
}

/// Handed to the build side: every publish sends one Rebuild (SSE subscribers get it), and
/// every rebuild the content's current diagnostics.
#[derive(Clone)]
pub struct Feed(broadcast::Sender<Update>);

impl Default for Feed {
    fn default() -> Feed {
        Feed::new()
    }
}

impl Feed {
    /// A feed no server listens to yet: hand it to [`serve_on`], then send through it.
    pub fn new() -> Feed {
        Feed(broadcast::channel(64).0)
    }

    /// Announces a publish. Without a running server (no subscriber) this does nothing.
    pub fn send(&self, rebuild: Rebuild) {
        let _ = self.0.send(Update::Rebuild(rebuild));
    }

    /// Tells the server the content's current diagnostics (all of them, not only new ones).
    pub fn send_diagnostics(&self, diagnostics: Vec<DiagnosticView>) {
        let _ = self.0.send(Update::Diagnostics(diagnostics.into()));
    }

    /// Tells the server what will go live (the drafts and scheduled content, all of them).
    pub fn send_schedule(&self, schedule: PendingList) {
        let _ = self.0.send(Update::Schedule(Arc::new(schedule)));
    }

    /// Tells the server the production base URL now in force (after a `watch.toml` reload).
    pub fn send_base_url(&self, base_url: &str) {
        let _ = self.0.send(Update::BaseUrl(base_url.into()));
    }

    /// A receiver of every update sent from now on: what a server listens to.
    pub fn subscribe(&self) -> broadcast::Receiver<Update> {
        self.0.subscribe()
    }
}

pub use slots::MAX_CONNECTIONS;

/// For a runtime's idle workers (`on_thread_park`): hands the memory this thread freed back to
/// the OS, at most every 100 ms per thread, so the server's resident size returns to its
/// baseline after a burst of clients (mimalloc keeps freed pages per thread otherwise).
pub fn release_idle_memory() {
    thread_local! {
        static LAST: std::cell::Cell<Option<std::time::Instant>> = const { std::cell::Cell::new(None) };
    }
    LAST.with(|last| {
        if last
            .get()
            .is_some_and(|at| at.elapsed() < Duration::from_millis(100))
        {
            return;
        }
        last.set(Some(std::time::Instant::now()));
        // SAFETY: mi_collect only frees pages that hold no live allocation.
        unsafe { libmimalloc_sys::mi_collect(true) }
    });
}

/// What every request handler shares.
struct State {
    config: Arc<SiteConfig>,
    files: folder::ServedFolder,
    gone: removed::Gone,
    /// Serialized SSE frames, sent only after the state above was refreshed for the rebuild
    /// they describe: a client that sees an event and then asks gets the new answer.
    frames: broadcast::Sender<Bytes>,
    /// Becomes true at shutdown (ends the event streams).
    stop: watch::Receiver<bool>,
    /// Only with `content-api serve`: the landing page and the base URL rewrite.
    preview: Option<preview::PreviewState>,
    /// Who answers what the output folder does not hold.
    site: Site,
    /// Changes with every publish that changed something (`site::Freshness`).
    generation: site::Generation,
    /// The names a request may give in `Host`.
    hosts: host::Hosts,
}

/// Serves `out_dir` on a listener that is already bound until `shutdown` resolves (so a caller can bind port 0 and learn the
/// port first). Subscribes to `feed` at once, before the returned future first runs, so no
/// update sent after this call is missed.
pub fn serve_on(
    listener: TcpListener,
    out_dir: Utf8PathBuf,
    config: Arc<SiteConfig>,
    feed: Feed,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> impl Future<Output = std::io::Result<()>> + Send + 'static {
    serve_with(
        listener,
        out_dir,
        config.clone(),
        config,
        feed,
        (None, Site::Alone, host::Hosts::default()),
        shutdown,
    )
}

/// [`serve_on`] for the author (`content-api serve`): adds the landing page at `/`, the
/// content's errors and live reload, and serves every URL of the output rewritten from
/// `base_url` to `origin` (the local address, `http://127.0.0.1:8421`). The output folder
/// itself keeps the production URLs; see ARCHITECTURE.md. With a `site` that shares the origin,
/// the landing page moves to [`LANDING_PATH_SHARED`] and every request that is not the tool's
/// goes to the site (`site`).
pub fn preview_on(
    listener: TcpListener,
    out_dir: Utf8PathBuf,
    config: Arc<SiteConfig>,
    feed: Feed,
    origin: String,
    site: Site,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> impl Future<Output = std::io::Result<()>> + Send + 'static {
    let hosts = host::Hosts::with_origin(Some(&origin));
    let preview = preview::PreviewState::new(
        &config.base_url,
        origin.clone(),
        out_dir.clone(),
        site.is_shared(),
    );
    // Error bodies name the local address too (their `documentation_url`).
    let local = Arc::new(SiteConfig {
        base_url: origin,
        ..(*config).clone()
    });
    serve_with(
        listener,
        out_dir,
        local,
        config,
        feed,
        (Some(preview), site, hosts),
        shutdown,
    )
}

/// `config` is what answers name; `site` is the site as configured (its publishing history
/// is read as the site's).
fn serve_with(
    listener: TcpListener,
    out_dir: Utf8PathBuf,
    config: Arc<SiteConfig>,
    site: Arc<SiteConfig>,
    feed: Feed,
    (preview, shared, hosts): (Option<preview::PreviewState>, Site, host::Hosts),
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> impl Future<Output = std::io::Result<()>> + Send + 'static {
    let updates = feed.subscribe();
    async move {
        run(
            listener,
            out_dir,
            (config, site),
            updates,
            (preview, shared, hosts),
            shutdown,
        )
        .await
    }
}

async fn run(
    listener: TcpListener,
    out_dir: Utf8PathBuf,
    (config, configured): (Arc<SiteConfig>, Arc<SiteConfig>),
    mut updates: broadcast::Receiver<Update>,
    (preview, site, hosts): (Option<preview::PreviewState>, Site, host::Hosts),
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let files = folder::ServedFolder::new(out_dir.as_std_path())?;
    let (stop_tx, stop) = watch::channel(false);
    let state = Arc::new(State {
        gone: removed::Gone::load(out_dir, configured),
        config,
        files,
        frames: broadcast::channel(64).0,
        stop,
        preview,
        site,
        generation: site::Generation::new(),
        hosts,
    });
    catch_up(&mut updates, &state);
    tokio::spawn(relay(updates, state.clone(), stop_tx.subscribe()));
    if let Ok(addr) = listener.local_addr() {
        tracing::info!(
            "serving {} on http://{addr}/ (live updates: http://{addr}{EVENTS_PATH})",
            state.files.root().display()
        );
    }
    tokio::pin!(shutdown);
    let slots = slots::Slots::new();
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of file descriptors, for example: wait a little and go on.
                    tracing::warn!("cannot accept a connection: {err}");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // A slot before the first byte is read: the others wait here, in the listen queue.
        let slot = tokio::select! {
            slot = slots.take() => slot,
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let state = state.clone();
        let config = state.config.clone();
        // Reading a file is a short blocking call (the output folder is local and mostly in the
        // page cache, and the cache skips the read for a version already served), made on the
        // worker thread as nginx does on its event loop rather than handed to another thread.
        let mut stopping = state.stop.clone();
        let service = service_fn(move |request: Request<Incoming>| {
            let state = state.clone();
            async move {
                if let Err(refused) = state.hosts.check(&request) {
                    return Ok(host::refusal(&state.config, &request, refused));
                }
                let response = match router::respond(&state, &request) {
                    Some(response) => response,
                    None => {
                        let varies = router::site_page_varies(&state, request.uri().path());
                        let fresh = site::Freshness::of(request.headers(), &state.generation);
                        match &state.site {
                            Site::Proxy(upstream) => {
                                let answer = site::forward(upstream, &state.config, request).await;
                                fresh.apply(site::as_deployed(answer, varies))
                            }
                            Site::Decline | Site::Alone => site::declined(varies, &fresh),
                        }
                    }
                };
                Ok::<_, Infallible>(response)
            }
        });
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(Duration::from_secs(30))
            // A request head over 128 KiB is refused (431) rather than buffered: no GET to a
            // static API needs more, and a client cannot make the server hold more per
            // connection.
            .max_buf_size(MAX_HEAD_BYTES)
            .serve_connection(
                TokioIo::new(raw_errors::ContractErrors::new(stream, config.clone())),
                service,
            );
        // Upgradeable: a websocket upgrade through `--site` (the dev server's hot reload).
        tokio::spawn(async move {
            let mut connection = std::pin::pin!(connection.with_upgrades());
            tokio::select! {
                ended = connection.as_mut() => if let Err(err) = ended {
                    tracing::debug!("connection ended: {err}");
                },
                () = slot.leave.notified() => {
                    // Another client needs the slot: finish the answer under way, then close;
                    // but not past `slots::GIVE_WAY_WAIT` (a client that reads nothing, a
                    // trickled head, a dev server that does not answer would keep it).
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(slots::GIVE_WAY_WAIT, connection).await;
                }
                _ = async { let _ = stopping.wait_for(|stopped| *stopped).await; } => {
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(SHUTDOWN_WAIT, connection).await;
                }
            }
            drop(slot);
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    // Short: a stop must not wait on a client that reads nothing (Ctrl-C ends the process
    // within a second in every phase).
    // Each connection gives up after SHUTDOWN_WAIT; this is the backstop.
    let waited = SHUTDOWN_WAIT * 2;
    if tokio::time::timeout(waited, slots.all_closed())
        .await
        .is_err()
    {
        tracing::info!("closed the connections still open after {waited:?}");
    }
    Ok(())
}

/// Applies each rebuild to the server's state, then tells the event streams.
async fn relay(
    mut updates: broadcast::Receiver<Update>,
    state: Arc<State>,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        let received = tokio::select! {
            received = updates.recv() => received,
            _ = stop.wait_for(|stopped| *stopped) => return,
        };
        let frame = match received {
            Ok(update) => match apply(&state, update) {
                Some(frame) => frame,
                None => continue,
            },
            Err(broadcast::error::RecvError::Lagged(missed)) => events::lagged(missed),
            Err(broadcast::error::RecvError::Closed) => return,
        };
        state.files.clear_cache();
        state.gone.refresh();
        let _ = state.frames.send(frame);
    }
}

/// What the build side sent before the server started (the first build's diagnostics and
/// schedule), applied before the first connection is accepted: the first page already shows
/// them.
fn catch_up(updates: &mut broadcast::Receiver<Update>, state: &State) {
    while let Ok(update) = updates.try_recv() {
        let _ = apply(state, update);
    }
}

/// Applies one update to the server's state; the frame to send, when there is news.
fn apply(state: &State, update: Update) -> Option<Bytes> {
    match update {
        Update::Rebuild(rebuild) => {
            if !rebuild.is_empty() {
                state.generation.advance();
            }
            if let Some(preview) = &state.preview
                && !rebuild.is_empty()
            {
                preview.record_rebuild(&rebuild);
            }
            Some(events::frame(&rebuild))
        }
        Update::Diagnostics(diagnostics) => {
            let preview = state.preview.as_ref()?;
            preview
                .set_diagnostics(diagnostics.clone())
                .then(|| events::diagnostics_frame(&diagnostics))
        }
        Update::Schedule(schedule) => {
            let preview = state.preview.as_ref()?;
            preview.set_schedule(schedule).then(events::schedule_frame)
        }
        Update::BaseUrl(base_url) => {
            if let Some(preview) = &state.preview {
                preview.set_base_url(&base_url);
            }
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_becomes_urls_without_the_host_files() {
        let report = Report {
            written: vec!["_redirects".into(), "api/posts.json".into()],
            removed: vec!["api/timeline/en/x.json".into()],
            ..Report::default()
        };
        assert_eq!(
            Rebuild::from_report(&report),
            Rebuild {
                changed: vec!["/api/posts.json".into()],
                removed: vec!["/api/timeline/en/x.json".into()],
                lane: "all",
            }
        );
    }
}
