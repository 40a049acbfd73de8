//! nginx (1.22 and later): the `server` block `content-api hosting nginx` prints, and the
//! per-build file it includes (`_nginx_gone.conf`, the removed API paths answered 410).
//!
//! Everything is generated from the contract tables (`http`, `media`) and the
//! error bodies of `problem`, so nginx answers as `content-api serve` does. The server
//! block depends on the configuration and the output folder only; a build rewrites the
//! included file, which nginx reads at start and on `nginx -s reload`.

use super::gone::gone_paths;
use crate::config::SiteConfig;
use crate::db::Globals;
use crate::http::{
    ALLOW, CONTRACT_HEADERS, DOCUMENT_HEADERS, HOST_FILES, METHODS, NGINX_GONE_FILE,
};
use crate::media::{DEFAULT_TYPE, EXTENSION_TYPES, SITE_TYPES, document_types};
use crate::output::Output;
use crate::problem::{METHOD_SLOT, PATH_SLOT, request_problem};
use crate::wire::{ErrorCode, to_json};
use std::fmt::Write as _;

/// Why a configuration cannot be written.
#[derive(Debug, PartialEq, Eq)]
pub struct NginxError(pub String);

impl std::fmt::Display for NginxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A UTF-8 text type with its charset stated: nginx's `charset` module adds the parameter.
const CHARSET: &str = "; charset=utf-8";

/// The host names the block answers for when none is given: the base URL's host.
pub fn default_server_name(config: &SiteConfig) -> String {
    url::Url::parse(&config.base_url)
        .ok()
        .and_then(|url| url.host_str().map(str::to_string))
        .unwrap_or_else(|| "localhost".to_string())
}

/// The `server` block for an output folder (an absolute path), listening on `listen` for the
/// host names `server_name` (space-separated), after the `map`s it reads (which nginx takes in
/// the `http` context only, where the block goes too).
pub fn server_block(
    config: &SiteConfig,
    out_dir: &str,
    listen: &str,
    server_name: &str,
) -> Result<String, NginxError> {
    let listen = listen_directive(listen)?;
    for (what, value) in [("output folder", out_dir), ("server name", server_name)] {
        if value.contains(|c: char| {
            c.is_whitespace() || matches!(c, ';' | '{' | '}' | '\'' | '"' | '$' | '#')
        }) {
            return Err(NginxError(format!(
                "the {what} `{value}` contains a character nginx reads as syntax (space, quote, `;`, `{{`, `}}`, `$`, `#`): choose one without it"
            )));
        }
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# The content API on nginx, written by `content-api hosting nginx`. The paths removed\n\
         # by later builds are in {out_dir}/{NGINX_GONE_FILE}, which every build rewrites: run\n\
         # `nginx -s reload` after a build that removes or restores an API path (other builds\n\
         # need nothing). Put this file in the `http` context (Debian: /etc/nginx/sites-available/,\n\
         # linked from sites-enabled/): it answers for {server_name}, and the default site keeps\n\
         # every other host name. It serves the whole folder, as a static host does: the API and\n\
         # the site's own pages and files beside it (Astro's dist/, Hugo's public/), the site's\n\
         # 404.html for a missing page, the API's JSON errors under /api/.\n{}{}\
         server {{\n    listen {listen};\n    server_name {server_name};\n    root {out_dir};\n    server_tokens off;\n    \
         etag on;\n    absolute_redirect off;\n    autoindex off;\n    index index.html;",
        negotiation_maps(),
        missing_map()
    );
    let (types, charset_types) = type_tables();
    let _ = writeln!(
        out,
        "    types {{\n{types}    }}\n    default_type {DEFAULT_TYPE};\n    charset utf-8;\n    \
         charset_types {charset_types};"
    );
    out.push_str(
        "    # The request path as sent (without the query), for the error bodies. A path that\n    \
         # JSON cannot hold as it is (a quote, a backslash) is named by a placeholder instead.\n    \
         set $request_path \"\";\n    if ($request_uri ~ \"^([^?]*)\") {\n        set $request_path $1;\n    }\n    \
         set $path_json $request_path;\n    if ($request_path ~ \"[\\\"\\\\\\\\]\") {\n        \
         set $path_json \"(the requested path)\";\n    }\n",
    );
    let _ = writeln!(
        out,
        "    # The Markdown twin of the page (`x.md` for `x`, `x/`, `x/index.html`, `x.html`), tried\n    \
         # first when Accept prefers text/markdown to text/html (the maps above).\n    \
         set $twin \"\";\n    if ($uri ~ \"^(.*?)(/index\\.html|\\.html|/)?$\") {{\n        set $twin $1.md;\n    }}\n    \
         if ($uri = /) {{\n        set $twin /index.md;\n    }}\n    \
         set $markdown_first \"\";\n    if ($content_api_prefers_markdown) {{\n        set $markdown_first $twin;\n    }}\n    \
         # {ALLOW} only (contract 4.1 rule 1); OPTIONS included.\n    \
         if ($request_method !~ \"^({})$\") {{\n        return 405;\n    }}\n    \
         # A missing path: the API's JSON 404 under /api/, the site's 404.html elsewhere.\n    \
         error_page 403 404 =404 $content_api_missing;\n    error_page 405 = @method_not_allowed;",
        METHODS.join("|")
    );
    let common = headers(&[]);
    let json = json_type();
    // Pages: the Markdown twin when asked for, else the file, else the page's HTML, else the
    // missing path's answer (`error_page`).
    let _ = writeln!(
        out,
        "    location / {{\n{common}        \
         try_files $markdown_first $uri $uri.html $uri/index.html =404;\n    }}"
    );
    // The site's 404 page, answered with the status of the error that led here; without one
    // (the folder holds the API alone and the build wrote none), the JSON 404.
    let _ = writeln!(
        out,
        "    location = /404.html {{\n{common}        try_files $uri @not_found;\n    }}"
    );
    // The API: `.json` files only; anything else is a JSON 404.
    let _ = writeln!(
        out,
        "    location /api/ {{\n{common}        if ($uri !~ \"\\.json$\") {{\n            return 404;\n        }}\n        \
         try_files $uri @not_found;\n    }}"
    );
    for (path, media) in document_types() {
        let extra: Vec<(&str, &str)> = DOCUMENT_HEADERS
            .iter()
            .filter(|(p, _, _)| *p == path)
            .map(|(_, name, value)| (*name, *value))
            .collect();
        let _ = writeln!(
            out,
            "    location = /{path} {{\n{}        types {{ }}\n        default_type '{media}';\n        \
             try_files $uri @not_found;\n    }}",
            headers(&extra)
        );
    }
    // Hidden files (except the leading .well-known/) and host files are never served.
    let host_files: Vec<String> = HOST_FILES.iter().map(|f| f.replace('.', "\\.")).collect();
    let _ = writeln!(
        out,
        "    location ~ \"^/\\.(?!well-known/)|./\\.|^/({})$\" {{\n{common}        return 404;\n    }}",
        host_files.join("|")
    );
    let problems = [
        ("not_found", ErrorCode::ResourceNotFound),
        ("method_not_allowed", ErrorCode::MethodNotAllowed),
    ];
    for (name, code) in problems {
        let extra: &[(&str, &str)] = if code == ErrorCode::MethodNotAllowed {
            &[("Allow", ALLOW)]
        } else {
            &[]
        };
        let body = nginx_string(&to_json(&request_problem(
            config,
            code,
            PATH_SLOT,
            METHOD_SLOT,
        )))?
        .replace(PATH_SLOT, "${path_json}")
        .replace(METHOD_SLOT, "${request_method}");
        let _ = writeln!(
            out,
            "    location @{name} {{\n{}{json}        return {} {body};\n    }}",
            headers(extra),
            code.status()
        );
    }
    let _ = writeln!(out, "    include {out_dir}/{NGINX_GONE_FILE};\n}}");
    Ok(out)
}

/// `_nginx_gone.conf`: one exact location per removed API path, answering 410 with the gone
/// body (the path is known, so it is written in). Rewritten by every build.
#[salsa::tracked(returns(ref))]
pub fn gone_file(db: &dyn salsa::Database) -> Output {
    let config = Globals::get(db).config(db);
    let mut out = String::from(
        "# Removed API paths (410), written by content-api on every build and included by the\n\
         # server block of `content-api hosting nginx`. Reload nginx after a build changes it.\n",
    );
    for path in gone_paths(db).iter() {
        let instance = format!("/{path}");
        let body = to_json(&request_problem(config, ErrorCode::Gone, &instance, ""));
        // A body nginx cannot hold (a `$` in the configuration) falls back to the static one.
        let body = nginx_string(&body).or_else(|_| {
            nginx_string(&to_json(&crate::problem::static_problem(
                config,
                ErrorCode::Gone,
            )))
        });
        let Ok(body) = body else { continue };
        let _ = writeln!(
            out,
            "location = {instance} {{\n{}{}    return 410 {body};\n}}",
            headers(&[]).replace("        ", "    "),
            json_type().replace("        ", "    ")
        );
    }
    Output::new(out)
}

/// The `map`s that decide Markdown negotiation by the `Accept` header's quality values, as
/// `http::prefers_markdown` does: each of text/markdown and text/html gets the quality of
/// the most specific range naming it (`text/markdown`, `text/*`, `*/*`; none: 0), as four digits
/// (`0.9` is `0900`), and Markdown is preferred when its digits are greater: a common prefix,
/// then a greater digit, which one regular expression with a back-reference decides.
fn negotiation_maps() -> String {
    let quality = |name: &str, media: &str| {
        let range = |pattern: &str| {
            format!(
                "    \"~*(?:^|,)\\s*{pattern}\\s*;[^,]*?\\bq\\s*=\\s*([0-9.]+)\" $1;\n    \
                 \"~*(?:^|,)\\s*{pattern}\\s*(?:;[^,]*)?(?:,|$)\" 1;\n"
            )
        };
        let family = media.split('/').next().unwrap_or("");
        format!(
            "map $http_accept $content_api_{name}_raw {{\n    default 0;\n{}{}{}}}\n\
             map $content_api_{name}_raw $content_api_{name}_q {{\n    default 0000;\n    \
             \"~^1(\\.0{{0,3}})?$\" 1000;\n    \
             \"~^0\\.(?<content_api_{name}_d>[0-9])$\" 0${{content_api_{name}_d}}00;\n    \
             \"~^0\\.(?<content_api_{name}_dd>[0-9][0-9])$\" 0${{content_api_{name}_dd}}0;\n    \
             \"~^0\\.([0-9][0-9][0-9])$\" 0$1;\n}}\n",
            range(media),
            range(&format!("{family}/\\*")),
            range("\\*/\\*"),
        )
    };
    let greater: Vec<String> = (1..=9)
        .map(|digit| format!("{digit}[0-9]*:\\1[0-{}]", digit - 1))
        .collect();
    format!(
        "# Markdown negotiation by quality values (content-api).\n{}{}\
         map \"$content_api_markdown_q:$content_api_html_q\" $content_api_prefers_markdown {{\n    \
         default \"\";\n    \"~^([0-9]*)(?:{})\" 1;\n}}\n",
        quality("markdown", "text/markdown"),
        quality("html", "text/html"),
        greater.join("|")
    )
}

/// Where a missing path's answer comes from (`error_page` takes a URI or a named location):
/// the JSON 404 for the API's paths, the site's own `404.html` for any other.
fn missing_map() -> String {
    "map $uri $content_api_missing {\n    default /404.html;\n    \"~^/api(/|$)\" @not_found;\n}\n"
        .to_string()
}

/// The `types` lines and the `charset_types` list, from `media`'s tables: the API's extensions,
/// then the site's own files.
fn type_tables() -> (String, String) {
    let mut types = String::new();
    let mut charset_types = Vec::new();
    for (extension, media) in EXTENSION_TYPES.iter().chain(&SITE_TYPES) {
        let base = media.strip_suffix(CHARSET).unwrap_or(media);
        // nginx always adds the charset to text/html, and warns when it is listed (or when a
        // type is listed twice).
        if base != *media && base != "text/html" && !charset_types.contains(&base) {
            charset_types.push(base);
        }
        let _ = writeln!(types, "        {base} {extension};");
    }
    (types, charset_types.join(" "))
}

/// The contract's headers and `extra`, on every status (`always`). Every location states them
/// all, because a location with one `add_header` of its own inherits none from the server.
fn headers(extra: &[(&str, &str)]) -> String {
    let layer = [(crate::http::LAYER_HEADER, crate::http::layer("nginx"))];
    CONTRACT_HEADERS
        .iter()
        .chain(&layer)
        .chain(extra)
        .map(|(name, value)| format!("        add_header {name} '{value}' always;\n"))
        .collect()
}

/// Error bodies are JSON whatever the request path's extension.
fn json_type() -> String {
    format!(
        "        types {{ }}\n        default_type {};\n",
        crate::media::media_type("error.json")
    )
}

/// A single-quoted nginx string. nginx has no escape for `$`, so a body holding one (from the
/// configuration: a site name, a URL) cannot be written.
/// The flags nginx's `listen` takes after the address (the `http` module's, as of nginx 1.26).
const LISTEN_FLAGS: [&str; 8] = [
    "default_server",
    "ssl",
    "http2",
    "quic",
    "proxy_protocol",
    "deferred",
    "bind",
    "reuseport",
];

/// The parameters of nginx's `listen` that take a value (`name=value`).
const LISTEN_SETTINGS: [&str; 8] = [
    "setfib",
    "fastopen",
    "backlog",
    "rcvbuf",
    "sndbuf",
    "accept_filter",
    "ipv6only",
    "so_keepalive",
];

/// `listen`'s arguments as nginx reads them: an address (`80`, `127.0.0.1:8080`,
/// `[::]:443`, `unix:/run/api.sock`), then parameters of nginx's own (`443 ssl`,
/// `[::]:443 ssl http2 default_server`, `backlog=511`), each once, separated by single spaces;
/// anything else is refused with what nginx accepts, so the printed block never fails
/// `nginx -t` on its `listen` line.
pub fn listen_directive(listen: &str) -> Result<String, NginxError> {
    let syntax = |c: char| matches!(c, ';' | '{' | '}' | '\'' | '"' | '$' | '#' | '\\');
    let mut words = listen.split_whitespace();
    let Some(address) = words.next() else {
        return Err(NginxError(
            "the listen address is empty: give a port (80), an address and port \
             (127.0.0.1:8080, [::]:443) or unix:PATH, then any of nginx's parameters (443 ssl)"
                .to_string(),
        ));
    };
    if address.contains(syntax) || address.contains('=') || !address_like(address) {
        return Err(NginxError(format!(
            "the listen address `{address}` is not an address nginx listens on: give a port (80), an address and port (127.0.0.1:8080, [::]:443) or unix:PATH"
        )));
    }
    let mut seen: Vec<&str> = Vec::new();
    for word in words {
        let name = word.split_once('=').map_or(word, |(name, _)| name);
        let known = match word.split_once('=') {
            None => LISTEN_FLAGS.contains(&word),
            Some((name, value)) => {
                LISTEN_SETTINGS.contains(&name)
                    && !value.is_empty()
                    && value
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '.' | '_' | '-'))
            }
        };
        if !known {
            return Err(NginxError(format!(
                "`{word}` in the listen address `{listen}` is not a parameter of nginx's listen: after the address come any of {}, or {} with a value (as in `443 ssl` or `[::]:443 ssl http2`)",
                LISTEN_FLAGS.join(", "),
                LISTEN_SETTINGS.map(|name| format!("{name}=")).join(", ")
            )));
        }
        if seen.contains(&name) {
            return Err(NginxError(format!(
                "the listen address `{listen}` names `{name}` twice: nginx refuses a parameter given twice"
            )));
        }
        seen.push(name);
    }
    Ok(std::iter::once(address)
        .chain(listen.split_whitespace().skip(1))
        .collect::<Vec<_>>()
        .join(" "))
}

/// Whether `address` has the shape of the address of nginx's `listen`: a port, `host:port`,
/// `[IPv6]` or `[IPv6]:port`, a host name or IPv4 address alone, `*:port`, or `unix:PATH`.
fn address_like(address: &str) -> bool {
    let port = |text: &str| {
        !text.is_empty()
            && text.len() <= 5
            && text.bytes().all(|b| b.is_ascii_digit())
            && text
                .parse::<u32>()
                .is_ok_and(|port| (1..=65535).contains(&port))
    };
    let host = |text: &str| {
        text == "*"
            || (!text.is_empty()
                && text
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-')))
    };
    if let Some(path) = address.strip_prefix("unix:") {
        return path.starts_with('/') && !path.contains(char::is_whitespace);
    }
    if let Some(rest) = address.strip_prefix('[') {
        let Some((ip, after)) = rest.split_once(']') else {
            return false;
        };
        let v6 = !ip.is_empty()
            && ip
                .chars()
                .all(|c| c.is_ascii_hexdigit() || matches!(c, ':' | '.'));
        return v6 && (after.is_empty() || after.strip_prefix(':').is_some_and(port));
    }
    match address.rsplit_once(':') {
        Some((name, number)) => host(name) && port(number),
        None => port(address) || (host(address) && address.chars().any(|c| !c.is_ascii_digit())),
    }
}

fn nginx_string(text: &str) -> Result<String, NginxError> {
    if text.contains('$') {
        return Err(NginxError(format!(
            "an error body contains `$`, which nginx reads as a variable: remove it from watch.toml ({text})"
        )));
    }
    Ok(format!(
        "'{}'",
        text.replace('\\', "\\\\").replace('\'', "\\'")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> SiteConfig {
        SiteConfig::defaults(camino::Utf8Path::new("."))
    }

    #[test]
    fn the_block_states_every_contract_header_and_type() {
        let block = server_block(&config(), "/srv/out", "127.0.0.1:8080", "example.com").unwrap();
        assert!(block.contains("server_name example.com;"));
        for (name, value) in CONTRACT_HEADERS {
            assert!(block.contains(&format!("add_header {name} '{value}' always;")));
        }
        assert!(block.contains("text/markdown md;"));
        assert!(block.contains("text/javascript js;"));
        assert!(block.contains(
            "charset_types text/javascript text/markdown text/plain text/css text/csv \
             text/calendar text/vtt;"
        ));
        // The site's own files beside the API, as Cloudflare Pages types them.
        for line in [
            "font/woff2 woff2;",
            "image/png png;",
            "image/svg+xml svg;",
            "text/css css;",
        ] {
            assert!(block.contains(line), "{line}");
        }
        assert!(block.contains("error_page 403 404 =404 $content_api_missing;"));
        assert!(block.contains("location = /404.html {"));
        assert!(
            block.contains(
                "add_header Link '</.well-known/api-catalog>; rel=\"api-catalog\"' always;"
            )
        );
        assert!(block.contains("add_header Allow 'GET, HEAD' always;"));
        assert!(block.contains("add_header Content-Api-Layer 'nginx' always;"));
        assert!(block.contains("include /srv/out/_nginx_gone.conf;"));
        assert!(block.contains("${path_json}"));
        assert_eq!(block.matches('{').count(), block.matches('}').count());
    }

    #[test]
    fn syntax_in_a_path_or_a_dollar_in_a_body_is_refused() {
        assert!(server_block(&config(), "/srv/my out", "127.0.0.1:80", "x").is_err());
        assert!(server_block(&config(), "/srv/out", "127.0.0.1:80", "a;b").is_err());
        let mut config = config();
        config.name = "$HOME".into();
        config.base_url = "https://x.example/$x".into();
        assert!(server_block(&config, "/srv/out", "127.0.0.1:80", "x").is_err());
    }

    #[test]
    fn a_listen_with_nginxs_parameters_is_taken_and_anything_else_refused() {
        for (given, printed) in [
            ("80", "80"),
            ("127.0.0.1:8080", "127.0.0.1:8080"),
            ("443 ssl", "443 ssl"),
            ("[::]:443 ssl http2", "[::]:443 ssl http2"),
            (
                "[::1]:8443  ssl   default_server",
                "[::1]:8443 ssl default_server",
            ),
            (
                "*:443 ssl backlog=511 ipv6only=on",
                "*:443 ssl backlog=511 ipv6only=on",
            ),
            ("localhost:8080 reuseport", "localhost:8080 reuseport"),
            ("unix:/run/api.sock", "unix:/run/api.sock"),
        ] {
            assert_eq!(listen_directive(given).unwrap(), printed, "{given}");
            let block = server_block(&config(), "/srv/out", given, "example.com").unwrap();
            assert!(
                block.contains(&format!("    listen {printed};\n")),
                "{given}"
            );
        }
        for bad in [
            "",
            "443 ssl;",
            "443 ssl; include /etc/passwd",
            "443 sll",
            "443 ssl ssl",
            "443 backlog=",
            "443 backlog=$x",
            "ssl 443",
            "99999",
            "443 {",
            "[::1 ssl",
            "host:port",
        ] {
            let err = listen_directive(bad)
                .err()
                .unwrap_or_else(|| panic!("{bad:?} taken"));
            assert!(!err.0.contains("Some(") && !err.0.contains("None"), "{err}");
            assert!(
                server_block(&config(), "/srv/out", bad, "x").is_err(),
                "{bad}"
            );
        }
        let err = listen_directive("443 sll").err().unwrap();
        assert!(err.0.contains("`sll`") && err.0.contains("ssl"), "{err}");
    }

    #[test]
    fn quotes_and_backslashes_are_escaped() {
        assert_eq!(nginx_string("a'b\\c").unwrap(), "'a\\'b\\\\c'");
    }
}
