//! The requests the output folder does not answer, when the tool's output is one part of a site
//! that another program serves while the author writes (`serve --site URL`, and the Astro
//! integration, which puts the server behind `astro dev`).
//!
//! Which requests are the tool's is the edge layer's rule (`router`): every `/api/` path, the
//! files the tool published (negotiated Markdown twins included), and the removed paths that
//! answer 410. Every other request is the site's:
//! - [`Site::Proxy`]: forwarded to the site's dev server as it came (method, headers, body;
//!   `Host` too, so the dev server's own host check still applies),
//!   its answer sent back as it is (redirects included), and a websocket upgrade (hot reload)
//!   joined end to end. One upstream connection per request: a dev server on the same machine
//!   costs a loopback connect, and nothing is shared between requests.
//! - [`Site::Decline`]: answered `404` with [`DECLINED_HEADER`] and no body, for the dev server
//!   in front that asked first and answers the request itself.

use super::respond::Body;
use crate::config::SiteConfig;
use bytes::Bytes;
use futures_util::StreamExt as _;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt as _, BodyStream, StreamBody};
use hyper::body::Incoming;
use hyper::header::{
    ACCESS_CONTROL_ALLOW_ORIGIN, CACHE_CONTROL, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, HOST,
    HeaderMap, HeaderName, HeaderValue, LOCATION, UPGRADE, VARY,
};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::net::TcpStream;

/// Marks a request this server declined (`Site::Decline`): the site's, not the tool's.
pub const DECLINED_HEADER: &str = "content-api-declined";

/// On a declined request: the headers the dev server in front adds to its own answer if it is
/// an HTML page (`Freshness`), each value as it is to be set.
pub const PAGE_HEADERS_HEADER: &str = "content-api-page-headers";

/// The cookie that holds the [`Generation`] a browser last loaded a page at.
const GENERATION_COOKIE: &str = "content-api-generation";

/// Which version of the output the author's browser may hold: this server's start and the
/// number of publishes since that changed something.
pub struct Generation {
    started: String,
    publishes: std::sync::atomic::AtomicU64,
}

impl Generation {
    pub fn new() -> Generation {
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        Generation {
            started: format!("{started:x}"),
            publishes: std::sync::atomic::AtomicU64::new(0),
        }
    }

    pub fn advance(&self) {
        self.publishes
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    fn current(&self) -> String {
        let publishes = self.publishes.load(std::sync::atomic::Ordering::Relaxed);
        format!("{}-{publishes}", self.started)
    }
}

/// The API's answers say `Cache-Control: public, max-age=3600`, as in production, so a browser
/// keeps them for an hour and a page reloaded after an edit would read the old copy. A page the
/// site serves (an HTML navigation) therefore carries the output's generation in a cookie, and,
/// when the browser's cookie names an older one, `Clear-Site-Data: "cache"`: the browser drops
/// its copies before the page asks for the API again. Only on the author's dev origin; the
/// API's own answers keep production's headers.
pub struct Freshness {
    /// The page headers to add, when the request is a page's.
    headers: Vec<(HeaderName, HeaderValue)>,
}

impl Freshness {
    pub fn of(request: &HeaderMap, generation: &Generation) -> Freshness {
        let navigation = request
            .get("sec-fetch-dest")
            .is_some_and(|dest| dest == "document");
        if !navigation {
            return Freshness {
                headers: Vec::new(),
            };
        }
        let current = generation.current();
        let seen = request
            .get_all(hyper::header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(name, _)| *name == GENERATION_COOKIE)
            .map(|(_, value)| value.to_string());
        let mut headers = Vec::new();
        if seen.is_some_and(|seen| seen != current) {
            headers.push((
                HeaderName::from_static("clear-site-data"),
                HeaderValue::from_static("\"cache\""),
            ));
        }
        if let Ok(cookie) = HeaderValue::from_str(&format!(
            "{GENERATION_COOKIE}={current}; Path=/; SameSite=Lax"
        )) {
            headers.push((hyper::header::SET_COOKIE, cookie));
        }
        Freshness { headers }
    }

    /// The dev server's answer with the page headers, when it is an HTML page.
    pub fn apply(&self, mut response: Response<Body>) -> Response<Body> {
        let html = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/html"));
        if html {
            for (name, value) in &self.headers {
                response.headers_mut().append(name.clone(), value.clone());
            }
        }
        response
    }

    /// The page headers as one header of a declined answer: `name=value` pairs joined by tabs
    /// (no value holds one).
    fn as_header(&self) -> Option<HeaderValue> {
        let joined: Vec<String> = self
            .headers
            .iter()
            .filter_map(|(name, value)| Some(format!("{name}={}", value.to_str().ok()?)))
            .collect();
        (!joined.is_empty())
            .then(|| HeaderValue::from_str(&joined.join("\t")).ok())
            .flatten()
    }
}

/// How long connecting to the site's dev server may take (it is on this machine).
const CONNECT_WAIT: Duration = Duration::from_secs(5);

/// How long the site's dev server may take to start answering (a first compile is slow).
const ANSWER_WAIT: Duration = Duration::from_secs(120);

/// Where the requests that are not the tool's go.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Site {
    /// The output folder is the whole site: what it does not hold is a 404.
    #[default]
    Alone,
    /// `serve --site URL`: the site's dev server answers them.
    Proxy(Upstream),
    /// A dev server in front forwards every request here first and answers the declined ones.
    Decline,
}

impl Site {
    /// Whether the output folder shares its origin with a site's own pages.
    pub fn is_shared(&self) -> bool {
        *self != Site::Alone
    }
}

/// A site's dev server: `http://HOST:PORT`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upstream {
    /// `host:port`, as connected to.
    authority: String,
    /// `http://host:port`, to recognise the server's own redirects.
    origin: String,
}

impl Upstream {
    /// Parses `--site`: an `http://` origin (a path, a query or credentials are refused: every
    /// request keeps its own path).
    pub fn parse(url: &str) -> Result<Upstream, String> {
        let rest = url.strip_prefix("http://").ok_or_else(|| {
            format!("`{url}` is not an http:// address (a dev server on this machine, such as http://127.0.0.1:1313)")
        })?;
        let authority = rest.strip_suffix('/').unwrap_or(rest);
        if authority.is_empty() || authority.contains(['/', '?', '#', '@']) {
            return Err(format!(
                "`{url}` must be an origin only, such as http://127.0.0.1:4321 (no path, query or credentials)"
            ));
        }
        let with_port = if has_port(authority) {
            authority.to_string()
        } else {
            format!("{authority}:80")
        };
        Ok(Upstream {
            origin: format!("http://{authority}"),
            authority: with_port,
        })
    }

    /// `http://host:port`: what the server's own redirects start with.
    pub fn origin(&self) -> &str {
        &self.origin
    }
}

/// Whether `authority` ends with `:PORT` (an IPv6 literal's colons are inside brackets).
fn has_port(authority: &str) -> bool {
    authority.rsplit_once(':').is_some_and(|(host, port)| {
        !port.is_empty()
            && port.bytes().all(|b| b.is_ascii_digit())
            && (!host.starts_with('[') || host.ends_with(']'))
    })
}

/// The answer to a request this server declines (`Site::Decline`). `varies`: the page has a
/// Markdown twin, so the site's answer must say `Vary: Accept`, which this answer carries for
/// the dev server in front to add; so are the page headers of `fresh`
/// ([`PAGE_HEADERS_HEADER`]: `name=value` pairs separated by tabs).
pub fn declined(varies: bool, fresh: &Freshness) -> Response<Body> {
    let mut builder = Response::builder();
    if varies {
        builder = builder.header(VARY, "Accept");
    }
    if let Some(page_headers) = fresh.as_header() {
        builder = builder.header(PAGE_HEADERS_HEADER, page_headers);
    }
    builder
        .status(StatusCode::NOT_FOUND)
        .header(DECLINED_HEADER, "1")
        .header(CACHE_CONTROL, "no-store")
        .header(CONTENT_LENGTH, 0)
        .body(super::respond::empty())
        .expect("valid declined response")
}

/// The site's answer with what the deployed site adds to it: `Vary: Accept` on a page that has
/// a Markdown twin (the edge layer), and open CORS on a 404 (static hosts send it with every
/// file, the not-found page included, and the contract's errors carry it).
pub fn as_deployed(mut response: Response<Body>, varies: bool) -> Response<Body> {
    let headers = response.headers_mut();
    if varies {
        let current = headers
            .get(VARY)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let has_accept = current
            .split(',')
            .any(|v| v.trim().eq_ignore_ascii_case("accept"));
        if !has_accept {
            let joined = if current.is_empty() {
                "Accept".to_string()
            } else {
                format!("{current}, Accept")
            };
            if let Ok(value) = HeaderValue::from_str(&joined) {
                headers.insert(VARY, value);
            }
        }
    }
    if response.status() == StatusCode::NOT_FOUND {
        response
            .headers_mut()
            .entry(ACCESS_CONTROL_ALLOW_ORIGIN)
            .or_insert(HeaderValue::from_static("*"));
    }
    response
}

/// Forwards `request` to the site's dev server and returns its answer (a 502 naming the server
/// when it cannot be reached).
/// `config` names the errors of a request that cannot be passed on (a body that cannot be read:
/// `400`, as when the tool answers).
pub async fn forward(
    upstream: &Upstream,
    config: &SiteConfig,
    mut request: Request<Incoming>,
) -> Response<Body> {
    let upgrading = is_upgrade(request.headers());
    let ours = upgrading.then(|| hyper::upgrade::on(&mut request));
    let (mut parts, body) = request.into_parts();
    // Whether the client's body broke off (a chunk size past 64 bits, a cut connection): the
    // request's fault, not the dev server's.
    let broken = Arc::new(AtomicBool::new(false));
    let body = {
        let broken = broken.clone();
        body.map_err(move |err| {
            broken.store(true, Ordering::Relaxed);
            err
        })
        .boxed_unsync()
    };
    let target = parts
        .uri
        .path_and_query()
        .map_or_else(|| "/".to_string(), |p| p.as_str().to_string());
    let client_host = parts.headers.get(HOST).cloned();
    remove_hop_by_hop(&mut parts.headers, upgrading);
    parts.uri = match target.parse() {
        Ok(uri) => uri,
        Err(_) => return unreachable_site(upstream, "the request's path is not a valid URI"),
    };
    // `Host` stays the client's (checked by `host`): the dev server's own check of it (Vite's
    // DNS-rebinding guard) judges what the browser sent, not this server's address.
    if !parts.headers.contains_key(HOST)
        && let Ok(host) = HeaderValue::from_str(&upstream.authority_for_host())
    {
        parts.headers.insert(HOST, host);
    }
    if let Some(host) = client_host {
        parts
            .headers
            .insert(HeaderName::from_static("x-forwarded-host"), host);
    }
    parts.headers.insert(
        HeaderName::from_static("x-forwarded-proto"),
        HeaderValue::from_static("http"),
    );
    let mut sender = match connect(upstream).await {
        Ok(sender) => sender,
        Err(cause) => return unreachable_site(upstream, &cause),
    };
    let answer = tokio::time::timeout(
        ANSWER_WAIT,
        sender.send_request(Request::from_parts(parts, body)),
    )
    .await;
    let mut response = match answer {
        Ok(Ok(response)) => response,
        Ok(Err(err)) if broken.load(Ordering::Relaxed) => {
            let path = parts_path(&target);
            let detail = format!("The request's body could not be read: {err}.");
            let hint = "Send a well-formed body (chunk sizes in hexadecimal, within 64 bits).";
            return super::respond::refused(
                config,
                StatusCode::BAD_REQUEST,
                &path,
                (detail, hint.to_string()),
                false,
            );
        }
        Ok(Err(err)) => return unreachable_site(upstream, &err.to_string()),
        Err(_) => return unreachable_site(upstream, &format!("no answer within {ANSWER_WAIT:?}")),
    };
    if response.status() == StatusCode::SWITCHING_PROTOCOLS {
        // Joined only as the websocket asked for: any other switch (h2c, or a 101 to a request
        // that asked for none) would carry later requests past `router`'s rules unseen.
        let Some(ours) = ours.filter(|_| is_websocket(response.headers())) else {
            return unreachable_site(
                upstream,
                "it switched protocols to something other than the websocket asked for",
            );
        };
        let theirs = hyper::upgrade::on(&mut response);
        tokio::spawn(async move {
            let (Ok(ours), Ok(theirs)) = tokio::join!(ours, theirs) else {
                tracing::debug!("a websocket upgrade through the proxy did not complete");
                return;
            };
            let _ =
                tokio::io::copy_bidirectional(&mut TokioIo::new(ours), &mut TokioIo::new(theirs))
                    .await;
        });
        let (parts, _) = response.into_parts();
        return Response::from_parts(parts, super::respond::empty());
    }
    let (mut parts, body) = response.into_parts();
    remove_hop_by_hop(&mut parts.headers, false);
    if let Some(location) = parts.headers.get(LOCATION).and_then(|v| v.to_str().ok())
        && let Some(local) = location.strip_prefix(&upstream.origin)
        && (local.is_empty() || local.starts_with(['/', '?', '#']))
        && let Ok(value) = HeaderValue::from_str(if local.is_empty() { "/" } else { local })
    {
        // The dev server's own absolute redirect stays on this origin.
        parts.headers.insert(LOCATION, value);
    }
    Response::from_parts(parts, streamed(body))
}

impl Upstream {
    /// `Host` for a request that had none (HTTP/1.0): without the port it did not have in
    /// `--site`.
    fn authority_for_host(&self) -> String {
        self.origin.trim_start_matches("http://").to_string()
    }
}

/// A client's body as passed on.
type ClientBody = UnsyncBoxBody<Bytes, hyper::Error>;

/// The request path of a target (`/a?b` → `/a`), for an error's `instance`.
fn parts_path(target: &str) -> String {
    target.split('?').next().unwrap_or("/").to_string()
}

/// One HTTP/1.1 connection to the dev server (upgrades allowed).
async fn connect(
    upstream: &Upstream,
) -> Result<hyper::client::conn::http1::SendRequest<ClientBody>, String> {
    let stream = tokio::time::timeout(CONNECT_WAIT, TcpStream::connect(&upstream.authority))
        .await
        .map_err(|_| format!("no connection within {CONNECT_WAIT:?}"))?
        .map_err(|err| err.to_string())?;
    let _ = stream.set_nodelay(true);
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|err| err.to_string())?;
    tokio::spawn(async move {
        if let Err(err) = connection.with_upgrades().await {
            tracing::debug!("a connection to the site's dev server ended: {err}");
        }
    });
    Ok(sender)
}

/// The dev server's body as it arrives; an error mid-way ends it (the client sees a short
/// body, as it would from the dev server itself).
fn streamed(body: Incoming) -> Body {
    let frames = BodyStream::new(body)
        .take_while(|frame| {
            if let Err(err) = frame {
                tracing::debug!("the site's dev server broke off a response: {err}");
            }
            std::future::ready(frame.is_ok())
        })
        .filter_map(|frame| std::future::ready(frame.ok().map(Ok::<_, Infallible>)));
    StreamBody::new(frames).boxed_unsync()
}

/// `Upgrade: websocket`, alone.
fn is_websocket(headers: &HeaderMap) -> bool {
    let mut upgrades = headers.get_all(UPGRADE).iter();
    upgrades
        .next()
        .is_some_and(|protocol| protocol.as_bytes().eq_ignore_ascii_case(b"websocket"))
        && upgrades.next().is_none()
}

/// `Connection: upgrade` with `Upgrade: websocket` (a websocket handshake, a dev server's hot
/// reload): the one upgrade passed on. Another (`h2c`) is dropped with the hop's headers, so the
/// request goes on as a plain one.
fn is_upgrade(headers: &HeaderMap) -> bool {
    is_websocket(headers)
        && headers
            .get_all(CONNECTION)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|token| token.trim().eq_ignore_ascii_case("upgrade"))
}

/// Removes the headers that describe one hop (RFC 9110 §7.6.1), keeping an upgrade's own.
fn remove_hop_by_hop(headers: &mut HeaderMap, upgrading: bool) {
    let named: Vec<HeaderName> = headers
        .get_all(CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|token| HeaderName::from_bytes(token.trim().as_bytes()).ok())
        .filter(|name| !(upgrading && *name == UPGRADE))
        .collect();
    for name in named {
        headers.remove(name);
    }
    for name in [
        "keep-alive",
        "proxy-connection",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
    ] {
        headers.remove(name);
    }
    if upgrading {
        headers.insert(CONNECTION, HeaderValue::from_static("upgrade"));
    } else {
        headers.remove(CONNECTION);
        headers.remove(UPGRADE);
    }
}

/// 502, naming the dev server and what to do.
fn unreachable_site(upstream: &Upstream, cause: &str) -> Response<Body> {
    tracing::warn!(
        "the site's dev server at {} does not answer: {cause}",
        upstream.origin
    );
    let text = format!(
        "content-api serve: the site's dev server at {} does not answer ({cause}).\n\
         Start it (for example `hugo server` or `astro dev`), or give its address with --site.\n",
        upstream.origin
    );
    Response::builder()
        .status(StatusCode::BAD_GATEWAY)
        .header(CONTENT_TYPE, "text/plain; charset=utf-8")
        .header(CACHE_CONTROL, "no-store")
        .header(CONTENT_LENGTH, text.len())
        .body(super::respond::full(Bytes::from(text)))
        .expect("valid 502 response")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_urls_are_http_origins() {
        let upstream = Upstream::parse("http://127.0.0.1:1313/").unwrap();
        assert_eq!(upstream.origin(), "http://127.0.0.1:1313");
        assert_eq!(upstream.authority, "127.0.0.1:1313");
        let upstream = Upstream::parse("http://localhost").unwrap();
        assert_eq!(upstream.authority, "localhost:80");
        assert_eq!(upstream.authority_for_host(), "localhost");
        assert_eq!(
            Upstream::parse("http://[::1]:4321").unwrap().authority,
            "[::1]:4321"
        );
        assert_eq!(
            Upstream::parse("http://[::1]").unwrap().authority,
            "[::1]:80"
        );
        for bad in [
            "https://example.com",
            "127.0.0.1:4321",
            "http://",
            "http://a:1/blog",
            "http://u@a:1",
            "http://a:1?x",
        ] {
            assert!(Upstream::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn hop_by_hop_headers_go_and_an_upgrade_keeps_its_own() {
        let mut headers = HeaderMap::new();
        headers.insert(
            CONNECTION,
            HeaderValue::from_static("keep-alive, x-private"),
        );
        headers.insert("x-private", HeaderValue::from_static("1"));
        headers.insert("keep-alive", HeaderValue::from_static("timeout=5"));
        headers.insert("accept", HeaderValue::from_static("*/*"));
        remove_hop_by_hop(&mut headers, false);
        assert_eq!(headers.len(), 1, "{headers:?}");
        let mut headers = HeaderMap::new();
        headers.insert(CONNECTION, HeaderValue::from_static("Upgrade"));
        headers.insert(UPGRADE, HeaderValue::from_static("websocket"));
        assert!(is_upgrade(&headers));
        remove_hop_by_hop(&mut headers, true);
        assert_eq!(headers[UPGRADE], "websocket");
        assert_eq!(headers[CONNECTION], "upgrade");
    }
}
