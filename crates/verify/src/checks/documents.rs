//! The checks of the documents and pages: discovery documents and their media types, Markdown
//! negotiation, and what no request may reach (traversal, hidden and host files).

use super::{Target, contract_headers, expect, get, header_is, short, status};

const DISCOVERY: [(&str, &str); 9] = [
    ("/openapi.json", "application/json"),
    (
        "/.well-known/ai-catalog.json",
        "application/ai-catalog+json",
    ),
    (
        "/.well-known/mcp/server-card.json",
        "application/mcp-server-card+json",
    ),
    ("/.well-known/agent-skills/index.json", "application/json"),
    (
        "/.well-known/api-catalog",
        "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\"",
    ),
    ("/llms.txt", "text/plain; charset=utf-8"),
    ("/llms-full.txt", "text/plain; charset=utf-8"),
    ("/auth.md", "text/markdown; charset=utf-8"),
    ("/developers.md", "text/markdown; charset=utf-8"),
];

pub(super) fn discovery_documents(t: &Target) -> Result<(), String> {
    for (path, media) in DISCOVERY {
        let reply = get(t, path)?;
        status(&reply, 200, path)?;
        header_is(&reply, "content-type", media, path)?;
        contract_headers(&reply, path)?;
    }
    Ok(())
}

pub(super) fn catalog_media_types(t: &Target) -> Result<(), String> {
    let catalog = get(t, "/.well-known/ai-catalog.json")?.json()?;
    let entries = catalog["entries"].as_array().ok_or("no entries")?;
    for entry in entries {
        let (Some(url), Some(media)) = (entry["url"].as_str(), entry["mediaType"].as_str()) else {
            continue;
        };
        let Some(path) = url.strip_prefix(&t.base_url) else {
            continue;
        };
        let reply = get(t, path)?;
        status(&reply, 200, path)?;
        header_is(&reply, "content-type", media, path)?;
    }
    Ok(())
}

pub(super) fn api_catalog_link(t: &Target) -> Result<(), String> {
    let path = "/.well-known/api-catalog";
    for method in ["GET", "HEAD"] {
        let reply = t.request(method, path, &[])?;
        status(&reply, 200, path)?;
        let link = reply.header("link").unwrap_or("");
        expect(
            link.contains("rel=\"api-catalog\"") && link.contains(path),
            || format!("{method} {path}: Link is {link:?}"),
        )?;
    }
    Ok(())
}

fn markdown(t: &Target, path: &str, twin: &str) -> Result<(), String> {
    let want = get(t, twin)?;
    status(&want, 200, twin)?;
    let reply = t.request("GET", path, &[("Accept", "text/markdown")])?;
    status(&reply, 200, path)?;
    header_is(&reply, "content-type", "text/markdown; charset=utf-8", path)?;
    expect(reply.body == want.body, || {
        format!("{path}: not the body of {twin}")
    })
}

pub(super) fn markdown_on_portal(t: &Target) -> Result<(), String> {
    for path in ["/developers", "/developers/", "/developers/index.html"] {
        markdown(t, path, "/developers.md")?;
    }
    Ok(())
}

pub(super) fn markdown_on_post(t: &Target) -> Result<(), String> {
    let twin = format!("/blog/{}.md", t.post);
    header_is(
        &get(t, &twin)?,
        "content-type",
        "text/markdown; charset=utf-8",
        &twin,
    )?;
    markdown(t, &format!("/blog/{}", t.post), &twin)
}

pub(super) fn html_without_markdown(t: &Target) -> Result<(), String> {
    let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    for path in ["/developers", "/developers/", "/developers/index.html"] {
        let reply = t.request("GET", path, &[("Accept", browser)])?;
        status(&reply, 200, path)?;
        header_is(&reply, "content-type", "text/html; charset=utf-8", path)?;
    }
    Ok(())
}

pub(super) fn api_ignores_markdown(t: &Target) -> Result<(), String> {
    let path = "/api/posts-en.json";
    let reply = t.request("GET", path, &[("Accept", "text/markdown")])?;
    status(&reply, 200, path)?;
    header_is(&reply, "content-type", "application/json", path)
}

pub(super) fn vary_on_negotiable(t: &Target) -> Result<(), String> {
    for path in ["/developers", "/developers/", &format!("/blog/{}", t.post)] {
        for accept in ["text/markdown", "text/html"] {
            let reply = t.request("GET", path, &[("Accept", accept)])?;
            let vary = reply.header("vary").unwrap_or("");
            expect(
                vary.split(',')
                    .any(|v| v.trim().eq_ignore_ascii_case("accept")),
                || format!("{path} ({accept}): Vary is {vary:?}"),
            )?;
        }
    }
    Ok(())
}

pub(super) fn traversal(t: &Target) -> Result<(), String> {
    let attempts = [
        "/../../../../etc/passwd",
        "/api/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/api/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/..%2f..%2f..%2fetc%2fpasswd",
        "/%252e%252e/%252e%252e/etc/passwd",
        "/api/..%5c..%5c..%5cetc%5cpasswd",
        "//etc/passwd",
    ];
    for path in attempts {
        let reply = get(t, path)?;
        expect(matches!(reply.status, 400 | 404), || {
            format!("{path}: status {}", reply.status)
        })?;
        expect(!reply.text().contains("root:"), || {
            format!("{path}: served /etc/passwd")
        })?;
    }
    Ok(())
}

pub(super) fn hidden_files(t: &Target) -> Result<(), String> {
    for path in [
        "/.content-api/manifest.json",
        "/.content-api/published.json",
        "/_headers",
        "/_redirects",
        "/_routes.json",
        "/_worker.js",
        "/_nginx_gone.conf",
    ] {
        let reply = get(t, path)?;
        expect(reply.status == 404, || {
            format!("{path}: status {} ({})", reply.status, short(&reply.text()))
        })?;
    }
    Ok(())
}

pub(super) fn etag_revalidation(t: &Target) -> Result<(), String> {
    let path = "/api/posts-en.json";
    let reply = get(t, path)?;
    let etag = reply.header("etag").ok_or("no ETag")?.to_string();
    let again = t.request("GET", path, &[("If-None-Match", &etag)])?;
    status(&again, 304, path)?;
    expect(again.body.is_empty(), || "304 with a body".into())
}

pub(super) fn unknown_page(t: &Target) -> Result<(), String> {
    let path = "/no-such-page";
    let reply = get(t, path)?;
    status(&reply, 404, path)?;
    header_is(&reply, "access-control-allow-origin", "*", path)
}
