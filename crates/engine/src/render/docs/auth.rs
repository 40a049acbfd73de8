//! `auth.md`: the access policy, from the same constants as the `authentication` object of
//! `api/index.json`.

use super::licence::{licence_name, reuse_or_see_licence};
use super::page::{Block, Page, code, link, text};
use crate::config::SiteConfig;
use crate::http::CACHE_CONTROL;
use crate::render::index::{AUTH_REQUIRED, AUTH_SCHEME, AUTHENTICATION, listed_document};

/// The Markdown of `auth.md` (depends on the configuration only).
pub fn auth_md(config: &SiteConfig) -> String {
    let index = config.url("/api/index.json");
    let auth_docs = config.url(&format!(
        "{}#authentication",
        listed_document("developers").path
    ));
    let blocks = vec![
        Block::Paragraph(vec![text(AUTHENTICATION)]),
        Block::List(vec![
            vec![text(
                "Public and anonymous: there is nothing to apply for, no API key, registration, account, OAuth flow, or paid or free tier.",
            )],
            vec![text(
                "Credentials sent with a request (cookies, an Authorization header, a key in any form) have no effect and are ignored.",
            )],
            vec![
                text(
                    "Read-only: only GET and HEAD are supported; any other method is answered 405 with the error code ",
                ),
                code("method_not_allowed"),
                text(
                    ", OPTIONS included: a cross-origin GET without custom headers needs no CORS preflight, and every response allows any origin.",
                ),
            ],
            vec![
                text("No application-level rate limit. Responses are cacheable ("),
                code(format!("Cache-Control: {CACHE_CONTROL}")),
                text("), so there is no reason to poll more than once an hour."),
            ],
            vec![
                text(format!("Content by {} is licensed ", config.author)),
                licence_name(&config.licence),
                text(format!(
                    "; {}.",
                    reuse_or_see_licence(&config.licence, "with attribution")
                )),
            ],
        ]),
        Block::Paragraph(vec![
            text("The API index reports the same policy at run time: "),
            code(format!("authentication.required: {AUTH_REQUIRED}")),
            text(" and "),
            code(format!("authentication.scheme: \"{AUTH_SCHEME}\"")),
            text(" in "),
            link("/api/index.json", &index),
            text(", whose links name every document for agents. More in the "),
            link("developer documentation", auth_docs),
            text("."),
        ]),
    ];
    Page {
        title: format!("Access policy: {}", config.name),
        html_url: config.url(listed_document("developers").path),
        markdown_url: config.url(listed_document("auth").path),
        modules: Vec::new(),
        blocks,
    }
    .to_markdown()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_says_public_anonymous_read_only() {
        let md = auth_md(&SiteConfig::defaults(camino::Utf8Path::new(".")));
        assert!(md.starts_with("# Access policy: "));
        assert!(md.contains("public, anonymous and read-only"));
        assert!(md.contains("error code `method_not_allowed`, OPTIONS included"));
        assert!(md.contains("`authentication.required: false`"));
        assert!(md.contains("`authentication.scheme: \"none\"`"));
        assert!(md.contains("http://localhost:4321/developers#authentication"));
    }
}
