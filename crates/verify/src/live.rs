//! One small document of the live site, read the way a build may depend on it: bounded in time
//! and in size, no proxy for a loopback address. A redirect is followed only within the site
//! ([`same_site`]: apex and `www.`, `http` to `https`, the same path; a record elsewhere is not
//! this site's), and a `403` says what usually causes it (a bot challenge or a firewall rule)
//! and how to let the build through. A build reads the site's deploy record through it.

use std::error::Error as _;
use std::time::Duration;

/// What the site answered.
#[derive(Debug, PartialEq, Eq)]
pub enum Fetched {
    /// `200`, with the body.
    Found(Vec<u8>),
    /// `404` or `410`: the site has no such document.
    Absent(u16),
}

/// GETs `url`: `Err` says, in words an owner can act on, why no answer could be had (timed out,
/// refused, TLS, DNS, another status, too large).
pub fn fetch(url: &str, limit: Duration, max_bytes: u64) -> Result<Fetched, String> {
    fetch_resolved(url, limit, max_bytes, &[])
}

/// The most redirects followed within the site.
const MAX_REDIRECTS: usize = 3;

/// Whether a redirect from `from` to `to` stays on the site: the same host but for a leading
/// `www.` on either side (apex to www and back), the same port, the same scheme or `http` to
/// `https`, and the same path (the record is at one path; a redirect to another page is not it).
pub fn same_site(from: &url::Url, to: &url::Url) -> bool {
    let host = |url: &url::Url| {
        let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
        host.strip_prefix("www.")
            .map(str::to_string)
            .unwrap_or(host)
    };
    let scheme_ok =
        from.scheme() == to.scheme() || (from.scheme() == "http" && to.scheme() == "https");
    let port_ok = from.port() == to.port() || from.scheme() != to.scheme();
    scheme_ok && port_ok && host(from) == host(to) && from.path() == to.path()
}

/// [`fetch`], with host names resolved to the given addresses first (tests: a site's names on
/// a loopback port).
fn fetch_resolved(
    url: &str,
    limit: Duration,
    max_bytes: u64,
    resolve: &[(&str, std::net::SocketAddr)],
) -> Result<Fetched, String> {
    let parsed = url::Url::parse(url).map_err(|err| format!("`{url}` is not a URL ({err})"))?;
    // reqwest's rustls takes the process's crypto provider (ring); already set is fine.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| format!("cannot start an HTTP client: {err}"))?;
    let mut builder = reqwest::Client::builder()
        .timeout(limit)
        .connect_timeout(limit)
        .redirect(reqwest::redirect::Policy::custom(|attempt| {
            let from = attempt.previous().last().cloned();
            let within = from.is_some_and(|from| same_site(&from, attempt.url()));
            if !within {
                attempt.stop()
            } else if attempt.previous().len() > MAX_REDIRECTS {
                attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
            } else {
                attempt.follow()
            }
        }))
        .user_agent(concat!(
            "content-api/",
            env!("CARGO_PKG_VERSION"),
            " (build)"
        ));
    if is_loopback(&parsed) || !resolve.is_empty() {
        builder = builder.no_proxy();
    }
    for (name, addr) in resolve {
        builder = builder.resolve(name, *addr);
    }
    let client = builder
        .build()
        .map_err(|err| format!("cannot start an HTTP client: {err}"))?;
    runtime.block_on(async {
        let mut response = client
            .get(parsed)
            .send()
            .await
            .map_err(|err| describe(&err, limit))?;
        let status = response.status();
        if matches!(status.as_u16(), 404 | 410) {
            return Ok(Fetched::Absent(status.as_u16()));
        }
        if status == reqwest::StatusCode::FORBIDDEN {
            let challenge = response.headers().contains_key("cf-mitigated");
            return Err(forbidden(response.url(), challenge));
        }
        if !status.is_success() {
            let location = response
                .headers()
                .get("location")
                .and_then(|value| value.to_str().ok())
                .map(|to| {
                    format!(
                        " (to {to}: redirects are followed only within the site, apex and www, http to https, the same path; if the site moved, set `base_url` in watch.toml to the address it answers at)"
                    )
                })
                .unwrap_or_default();
            return Err(format!("it answered {status}{location}"));
        }
        let too_large = || format!("it is larger than {max_bytes} bytes");
        if response.content_length().is_some_and(|len| len > max_bytes) {
            return Err(too_large());
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|err| describe(&err, limit))?
        {
            if (body.len() + chunk.len()) as u64 > max_bytes {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Fetched::Found(body))
    })
}

/// What a `403` in place of the document means, and the way through.
fn forbidden(url: &url::Url, challenge: bool) -> String {
    let what = if challenge {
        "a bot challenge (the host's `cf-mitigated` header)"
    } else {
        "usually a bot challenge or a firewall rule in front of the site"
    };
    format!(
        "it answered 403 Forbidden: {what} refused this build's request. Let it through: allow the path {} (user agent `content-api/{} (build)`) in the site's firewall (on Cloudflare: a WAF custom rule that skips bot protection for that path)",
        url.path(),
        env!("CARGO_PKG_VERSION")
    )
}

/// reqwest's error with its causes, led by what happened (the top one alone says little:
/// "error sending request"); `limit` is the request's deadline, named for a timeout.
pub fn describe(err: &reqwest::Error, limit: Duration) -> String {
    if err.is_timeout() {
        return format!("no answer within {} s", limit.as_secs_f32());
    }
    let whole = chain(err);
    let tls = tls_error(err).map(|tls| tls.to_string()).or_else(|| {
        // rustls-platform-verifier's error reaches reqwest's chain as text only.
        whole
            .find("invalid peer certificate")
            .map(|at| whole[at..].to_string())
    });
    let mut text = if let Some(tls) = tls {
        return format!(
            "TLS: the site's certificate was refused: {tls} (a private certificate authority: \
             add it to the system's store, or name its PEM file with SSL_CERT_FILE or \
             `verify --ca-file`)"
        );
    } else if whole.contains("dns error") {
        "DNS: cannot resolve the host name".to_string()
    } else if err.is_connect() {
        "cannot connect".to_string()
    } else {
        "the request failed".to_string()
    };
    text.push_str(&causes(err));
    text
}

/// The rustls error among `err`'s causes (tokio-rustls wraps it in an `io::Error`).
pub fn tls_error(err: &reqwest::Error) -> Option<&rustls::Error> {
    let mut cause = err.source();
    while let Some(inner) = cause {
        if let Some(tls) = inner.downcast_ref::<rustls::Error>() {
            return Some(tls);
        }
        if let Some(tls) = inner
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .and_then(|io| io.downcast_ref::<rustls::Error>())
        {
            return Some(tls);
        }
        cause = inner.source();
    }
    None
}

/// `err` and its causes, as one line.
fn chain(err: &reqwest::Error) -> String {
    err.to_string() + &causes(err)
}

/// `: cause: its cause...` of `err`.
fn causes(err: &reqwest::Error) -> String {
    let mut text = String::new();
    let mut cause = err.source();
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}

/// Whether `url` names this machine: such a request skips any proxy of the environment.
pub fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name == "localhost",
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_addresses_skip_the_proxy() {
        for (url, local) in [
            ("http://127.0.0.1:4321", true),
            ("http://[::1]:80", true),
            ("http://localhost:4321", true),
            ("https://example.com", false),
            ("http://10.0.0.1", false),
        ] {
            assert_eq!(is_loopback(&url::Url::parse(url).unwrap()), local, "{url}");
        }
    }
    use std::io::{Read, Write};
    use std::net::TcpListener;

    /// A server on a loopback port that answers one request with `reply`.
    fn answer_once(reply: &'static [u8]) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            if let Ok((mut stream, _)) = listener.accept() {
                let mut request = [0u8; 4096];
                let _ = stream.read(&mut request);
                let _ = stream.write_all(reply);
            }
        });
        format!("http://{addr}/.well-known/content-api/deploy.json")
    }

    const LIMIT: Duration = Duration::from_secs(5);

    #[test]
    fn a_document_is_read_whole_and_an_absent_one_is_told_apart() {
        let url =
            answer_once(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}");
        assert_eq!(fetch(&url, LIMIT, 100), Ok(Fetched::Found(b"{}".to_vec())));
        let url = answer_once(
            b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        );
        assert_eq!(fetch(&url, LIMIT, 100), Ok(Fetched::Absent(404)));
    }

    #[test]
    fn too_large_a_body_a_redirect_and_a_closed_port_are_errors_that_say_why() {
        let url =
            answer_once(b"HTTP/1.1 200 OK\r\ncontent-length: 200\r\nconnection: close\r\n\r\n");
        let why = fetch(&url, LIMIT, 100).unwrap_err();
        assert!(why.contains("larger than 100 bytes"), "{why}");
        // No length announced: the bound holds as the body streams in.
        let url = answer_once(
            b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n0123456789012345678901234567890123456789",
        );
        let why = fetch(&url, LIMIT, 10).unwrap_err();
        assert!(why.contains("larger than 10 bytes"), "{why}");
        let url = answer_once(b"HTTP/1.1 301 Moved\r\nlocation: https://elsewhere.example/x\r\ncontent-length: 0\r\n\r\n");
        let why = fetch(&url, LIMIT, 100).unwrap_err();
        assert!(
            why.contains("301") && why.contains("elsewhere.example") && why.contains("`base_url`"),
            "{why}"
        );
        let closed = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let why = fetch(&format!("http://{closed}/x"), LIMIT, 100).unwrap_err();
        assert!(why.starts_with("cannot connect"), "{why}");
    }

    /// A server on a loopback port that answers each request by `reply(request)`, as many times.
    fn answer_each(times: usize, reply: fn(&str) -> Vec<u8>) -> std::net::SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for _ in 0..times {
                let Ok((mut stream, _)) = listener.accept() else {
                    return;
                };
                let mut request = [0u8; 4096];
                let read = stream.read(&mut request).unwrap_or(0);
                let _ = stream.write_all(&reply(&String::from_utf8_lossy(&request[..read])));
            }
        });
        addr
    }

    #[test]
    fn a_redirect_from_the_apex_to_www_is_followed_and_one_elsewhere_says_which_setting() {
        let addr = answer_each(2, |request| {
            if request.to_ascii_lowercase().contains("host: www.site.test") {
                b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}".to_vec()
            } else {
                format!(
                    "HTTP/1.1 301 Moved\r\nlocation: http://www.site.test:{}/.well-known/content-api/deploy.json\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                    request.split("host: site.test:").nth(1).and_then(|rest| rest.split('\r').next()).unwrap_or("0")
                )
                .into_bytes()
            }
        });
        let url = format!(
            "http://site.test:{}/.well-known/content-api/deploy.json",
            addr.port()
        );
        let names = [("site.test", addr), ("www.site.test", addr)];
        assert_eq!(
            fetch_resolved(&url, LIMIT, 100, &names),
            Ok(Fetched::Found(b"{}".to_vec()))
        );
        let from = url::Url::parse("https://site.dev/.well-known/content-api/deploy.json").unwrap();
        for (to, same) in [
            (
                "https://www.site.dev/.well-known/content-api/deploy.json",
                true,
            ),
            ("https://site.dev/.well-known/content-api/deploy.json", true),
            (
                "https://other.dev/.well-known/content-api/deploy.json",
                false,
            ),
            ("https://www.site.dev/", false),
            (
                "http://www.site.dev/.well-known/content-api/deploy.json",
                false,
            ),
        ] {
            assert_eq!(
                same_site(&from, &url::Url::parse(to).unwrap()),
                same,
                "{to}"
            );
        }
    }

    #[test]
    fn a_forbidden_answer_names_the_bot_challenge_and_the_way_through() {
        let url = answer_once(
            b"HTTP/1.1 403 Forbidden\r\ncf-mitigated: challenge\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        );
        let why = fetch(&url, LIMIT, 100).unwrap_err();
        for said in [
            "403",
            "bot challenge",
            "/.well-known/content-api/deploy.json",
            "firewall",
        ] {
            assert!(why.contains(said), "{said}: {why}");
        }
    }

    #[test]
    fn a_silent_server_is_a_time_out() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let held = std::thread::spawn(move || listener.accept().map(|(stream, _)| stream));
        let why = fetch(&format!("http://{addr}/x"), Duration::from_millis(300), 100).unwrap_err();
        assert!(why.contains("no answer within 0.3 s"), "{why}");
        drop(held);
    }
}
