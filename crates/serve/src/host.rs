//! Which `Host` a request may name: the server answers only the names it is opened by.
//!
//! A web page on another site can make the author's browser ask a name of its own that resolves
//! to 127.0.0.1 (DNS rebinding), and so read whatever this server answers, drafts included.
//! Such a request names the attacker's host; so it is refused, as Vite refuses it (`403`). The
//! names answered: `localhost` and its subdomains (RFC 6761: always loopback), any IP address
//! (an address cannot be rebound; it covers 127.0.0.1, [::1] and the address bound), and the
//! host of the origin the author opens (`--origin`). A request with no `Host` (or an empty one)
//! or more than one is malformed (RFC 9112 §3.2: `400`).

use super::respond::{self, Body};
use crate::config::SiteConfig;
use hyper::header::{HOST, HeaderMap};
use hyper::{Method, Request, Response, StatusCode};
use std::net::{IpAddr, Ipv6Addr};

/// Why a request's `Host` is refused.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// An HTTP/1.1 request without `Host`.
    Missing,
    /// More than one `Host` line.
    Many,
    /// A name this server is not opened by (the name, as sent).
    Foreign(String),
}

/// The names a server answers.
#[derive(Clone, Debug, Default)]
pub struct Hosts {
    /// The host of the origin the author opens, lowercase, without its port.
    origin: Option<String>,
}

impl Hosts {
    /// The loopback names and IP addresses, and `origin`'s host (`http://name:port`) if given.
    pub fn with_origin(origin: Option<&str>) -> Hosts {
        let origin = origin.and_then(|origin| {
            let authority = origin.split_once("://").map_or(origin, |(_, rest)| rest);
            let host = hostname(authority.trim_end_matches('/'));
            (!host.is_empty()).then(|| host.to_ascii_lowercase())
        });
        Hosts { origin }
    }

    /// Whether `request` names one host this server answers.
    pub fn check<B>(&self, request: &Request<B>) -> Result<(), Refused> {
        self.check_headers(request.headers())
    }

    fn check_headers(&self, headers: &HeaderMap) -> Result<(), Refused> {
        let mut hosts = headers.get_all(HOST).iter();
        // HTTP/1.0 made `Host` optional; every client sends it now, and a request without
        // one names no host this server answers.
        let Some(host) = hosts.next().filter(|host| !host.is_empty()) else {
            return Err(Refused::Missing);
        };
        if hosts.next().is_some() {
            return Err(Refused::Many);
        }
        let sent = String::from_utf8_lossy(host.as_bytes()).into_owned();
        let name = hostname(sent.trim()).to_ascii_lowercase();
        let name = name.strip_suffix('.').unwrap_or(&name);
        if is_address(name)
            || name == "localhost"
            || name.ends_with(".localhost")
            || self.origin.as_deref() == Some(name)
        {
            Ok(())
        } else {
            Err(Refused::Foreign(sent))
        }
    }
}

/// The answer to a refused request: `400` for a malformed one, `403` for another site's name,
/// each saying what to do.
pub fn refusal<B>(config: &SiteConfig, request: &Request<B>, refused: Refused) -> Response<Body> {
    let path = request.uri().path();
    let head = request.method() == Method::HEAD;
    let (status, detail, hint) = match refused {
        Refused::Missing => (
            StatusCode::BAD_REQUEST,
            "The request has no Host header (or an empty one): it names no host this server \
             answers."
                .to_string(),
            "Send exactly one Host header.".to_string(),
        ),
        Refused::Many => (
            StatusCode::BAD_REQUEST,
            "The request has more than one Host header.".to_string(),
            "Send exactly one Host header.".to_string(),
        ),
        Refused::Foreign(name) => (
            StatusCode::FORBIDDEN,
            format!(
                "This server does not answer the host {name:?}: only localhost, an IP address and \
                 the origin it serves (a page on another site may not read it through a name of \
                 its own)."
            ),
            "Open it at http://localhost:PORT or http://127.0.0.1:PORT, or give the address you \
             open with --origin."
                .to_string(),
        ),
    };
    respond::refused(config, status, path, (detail, hint), head)
}

/// `authority` without its port (`[::1]:80` → `[::1]`, `a.example:1` → `a.example`).
fn hostname(authority: &str) -> &str {
    if authority.starts_with('[') {
        return authority
            .find(']')
            .map_or(authority, |end| &authority[..=end]);
    }
    authority
        .rsplit_once(':')
        .map_or(authority, |(host, _port)| host)
}

/// An IPv4 address, or an IPv6 one in brackets.
fn is_address(name: &str) -> bool {
    match name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
        Some(v6) => v6.parse::<Ipv6Addr>().is_ok(),
        None => name.parse::<IpAddr>().is_ok_and(|ip| ip.is_ipv4()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    fn check(hosts: &Hosts, sent: &[&str]) -> Result<(), Refused> {
        let mut headers = HeaderMap::new();
        for host in sent {
            headers.append(HOST, HeaderValue::from_str(host).unwrap());
        }
        hosts.check_headers(&headers)
    }

    #[test]
    fn loopback_names_addresses_and_the_origin_are_answered_and_nothing_else() {
        let hosts = Hosts::with_origin(Some("http://Dev.Example:4321"));
        for good in [
            "localhost",
            "localhost:4399",
            "LOCALHOST.",
            "app.localhost:1",
            "127.0.0.1:4399",
            "[::1]:4399",
            "[::1]",
            "192.0.2.7",
            "dev.example:4321",
            "dev.example",
        ] {
            assert_eq!(check(&hosts, &[good]), Ok(()), "{good}");
        }
        for bad in [
            "evil.example",
            "evil.example:4399",
            "localhost.evil.example",
            "127.0.0.1.evil.example",
            "::1",
        ] {
            assert_eq!(
                check(&hosts, &[bad]),
                Err(Refused::Foreign(bad.into())),
                "{bad}"
            );
        }
        assert_eq!(
            check(&Hosts::with_origin(None), &["dev.example"]),
            Err(Refused::Foreign("dev.example".into()))
        );
    }

    #[test]
    fn exactly_one_host_is_required() {
        let hosts = Hosts::default();
        assert_eq!(check(&hosts, &[]), Err(Refused::Missing));
        assert_eq!(check(&hosts, &[""]), Err(Refused::Missing));
        assert_eq!(
            check(&hosts, &["localhost", "localhost"]),
            Err(Refused::Many)
        );
    }
}
