//! A drop-in for a real site: content-api's output added to a site's own build output (a site
//! shaped like the seed's: `tests/fixtures/pages-site`), served by the real hosts.
//!
//! On Cloudflare Pages (`wrangler pages dev`, run from the site's root as Pages runs it), with
//! the site's own Pages Functions and without them: every request of the site's own (its pages,
//! its redirects, trailing-slash canonicalization, its 404 page, its header rules, its
//! middleware and routes) is answered exactly as the site alone answers it (status, `Location`,
//! body, `Content-Type`, `Cache-Control`, and the header its middleware adds), the
//! conformance suite's checks hold on the combined site, and the deploy record is served whole
//! for the next build to read.
//!
//! On Debian's nginx (its default site enabled), with the block `content-api hosting nginx`
//! prints over the combined site's folder: the site's pages, files and 404 page answered as a
//! static host answers them (status and type as Pages gives them for the site alone, but for the
//! differences `NOT_AS_PAGES` names), the API's JSON 404 and 410 under `/api/`, and the
//! conformance suite's checks.
//!
//! wrangler and nginx are found as in `tests/conformance.rs` (`CONTENT_API_WRANGLER`,
//! `CONTENT_API_NGINX`, `PATH`); absent, the tests follow `common::need`'s rule.

use crate::common::{self, SAMPLE_TODAY, copy_sample_content, copy_tree, need, repo};
use crate::conformance::hosts;
use content_api::deploy::{DEPLOY_RECORD_PATH, DeployRecord};
use content_api::verify::client::{Reply, request};
use content_api::verify::{Http, Target, checks};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The sample site's base URL (the fixture's `watch.toml` keeps it).
const BASE_URL: &str = "https://lucia-montoya.example";

/// Its host, which the nginx block answers for (`server_name`).
const SITE_HOST: &str = "lucia-montoya.example";

/// Requests of the site's own: none is an API path, a document of content-api's, or a Markdown
/// negotiation for a page content-api made a twin for. (method, path, request headers,
/// whether it needs the site's Functions).
const SITE_REQUESTS: &[SiteRequest] = &[
    ("GET", "/", &[], false),
    ("GET", "/es/", &[], false),
    ("GET", "/about/", &[], false),
    ("GET", "/about", &[], false),
    ("GET", "/about/index.html", &[], false),
    ("HEAD", "/about/", &[], false),
    ("POST", "/about/", &[], false),
    ("GET", "/blog/", &[], false),
    ("GET", "/blog/hello-from-medellin/", &[], false),
    ("GET", "/blog/hello-from-medellin", &[], false),
    ("GET", "/es/blog/hello-from-medellin/", &[], false),
    ("GET", "/blog/designing-a-static-json-api/", &[], false),
    ("GET", "/blog/designing-a-static-json-api.md", &[], false),
    ("GET", "/blog/old-hello", &[], false),
    ("GET", "/blog/old-hello/", &[], false),
    ("GET", "/blog/old-hello.md", &[], false),
    ("GET", "/es/blog/viejo-hola", &[], false),
    ("GET", "/es/blog/viejo-hola/", &[], false),
    ("GET", "/feed", &[], false),
    ("GET", "/blog/no-such-post/", &[], false),
    ("GET", "/blog/no-such-post", &[], false),
    ("GET", "/no-such-page", &[], false),
    ("GET", "/es/no-such-page/", &[], false),
    ("GET", "/_astro/app.js", &[], false),
    ("GET", "/images/pixel.gif", &[], false),
    ("GET", "/images/mark.png", &[], false),
    ("GET", "/images/mark.svg", &[], false),
    ("GET", "/fonts/lucia.woff2", &[], false),
    ("GET", "/_astro/site.css", &[], false),
    ("GET", "/sitemap.xml", &[], false),
    ("GET", "/robots.txt", &[], false),
    (
        "GET",
        "/robots.txt",
        &[("User-Agent", "Mozilla/5.0 (Chrome-Lighthouse)")],
        true,
    ),
    ("GET", "/", &[("Accept", "text/markdown")], true),
    ("GET", "/about/", &[("Accept", "text/markdown")], true),
    (
        "GET",
        "/blog/designing-a-static-json-api/",
        &[("Accept", "text/markdown")],
        true,
    ),
    ("GET", "/hello", &[], true),
];

/// (method, path, request headers, whether it needs the site's Functions).
type SiteRequest = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
    bool,
);

/// What is compared, per answer.
const COMPARED: [&str; 4] = [
    "location",
    "content-type",
    "cache-control",
    "x-site-middleware",
];

/// A copy of the fixture site, alone and with content-api's output.
struct Sites {
    dir: tempfile::TempDir,
}

impl Sites {
    /// `alone/` is the site as its own build leaves it; `combined/` is the same site after
    /// `content-api build --out dist`, twice: the second build after deleting the only English
    /// post of one tag, so that tag's timeline is a removed path. Returns the sites and that path.
    fn new(functions: bool) -> (Sites, Target) {
        let dir = tempfile::tempdir().unwrap();
        let fixture = repo().join("tests/fixtures/pages-site");
        for name in ["alone", "combined"] {
            let site = dir.path().join(name);
            copy_tree(&fixture.join("dist"), &site.join("dist"));
            if functions {
                copy_tree(&fixture.join("functions"), &site.join("functions"));
            }
        }
        let combined = dir.path().join("combined");
        let content = combined.join("content");
        copy_sample_content(&content);
        write_watch_toml(&combined);
        build(&combined);
        let out = combined.join("dist");
        let tag = common::remove_the_post_of_a_single_post_tag(&content, &out, "en");
        build(&combined);
        let read = |path: &str| -> serde_json::Value {
            serde_json::from_slice(&std::fs::read(out.join(path)).unwrap()).unwrap()
        };
        let first = |path: &str, field: &str| read(path)[field][0].clone();
        let target = Target {
            http: Http::plain("127.0.0.1:9".parse().unwrap(), None),
            base_url: BASE_URL.into(),
            gone: Some(format!("/api/timeline/en/{tag}.json")),
            languages: content_api::model::Languages::seed(),
            post: read("api/posts-en.json")[0]["slug"]
                .as_str()
                .map(Into::into),
            series: first("api/series/en/index.json", "series")["slug"]
                .as_str()
                .map(Into::into),
            tag: read("api/posts-en.json")[0]["tags"][0]
                .as_str()
                .map(Into::into),
            deployed: Some(
                read(DEPLOY_RECORD_PATH)["files"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(path, hash)| (path.clone(), hash.as_str().unwrap().to_string()))
                    .collect(),
            ),
            deadline: None,
        };
        (Sites { dir }, target)
    }

    fn root(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// The site's `watch.toml`: the sample's base URL, its content in `content/`, the API written
/// into the site's own `dist/`. A real site names its author and licence: CI refuses
/// placeholders.
fn write_watch_toml(site: &Path) {
    std::fs::write(
        site.join("watch.toml"),
        format!(
            "base_url = \"{BASE_URL}\"\ncontent_dir = \"content\"\nout_dir = \"dist\"\n\
             [site]\nauthor = \"Lucía Montoya\"\nlicence = \"CC-BY-4.0\"\n"
        ),
    )
    .unwrap();
}

fn build(site: &Path) {
    let output = Command::new(env!("CARGO_BIN_EXE_content-api"))
        .env_remove("CI")
        .args(["build", "--today", SAMPLE_TODAY])
        .current_dir(site)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "build failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// One answer, reduced to what the comparison looks at.
fn summary(reply: &Reply) -> String {
    let mut out = format!("{}", reply.status);
    for name in COMPARED {
        if let Some(value) = reply.header(name) {
            out.push_str(&format!(" {name}={value:?}"));
        }
    }
    let body = reply.text();
    let first_line = body.lines().next().unwrap_or("");
    out.push_str(&format!(
        " body={}B {:?}",
        reply.body.len(),
        &first_line[..first_line.len().min(40)]
    ));
    out
}

/// Asks both hosts every request of the site's own; prints the table and fails on any
/// difference.
fn compare(alone: SocketAddr, combined: SocketAddr, functions: bool) {
    let mut table = String::from("| request | site alone | with content-api |\n|---|---|---|\n");
    let mut differences = Vec::new();
    for (method, path, headers, needs_functions) in SITE_REQUESTS {
        if *needs_functions && !functions {
            continue;
        }
        let before = request(alone, method, path, headers).unwrap();
        let after = request(combined, method, path, headers).unwrap();
        let label = format!(
            "{method} {path}{}",
            headers
                .iter()
                .map(|(n, v)| format!(" ({n}: {v})"))
                .collect::<String>()
        );
        let (a, b) = (summary(&before), summary(&after));
        let same = before.status == after.status
            && before.body == after.body
            && COMPARED.iter().all(|h| before.header(h) == after.header(h));
        table.push_str(&format!(
            "| {label} | {a} | {} |\n",
            if same { "same" } else { b.as_str() }
        ));
        if !same {
            differences.push(format!("{label}:\n  alone:    {a}\n  combined: {b}"));
        }
    }
    eprintln!("{table}");
    assert!(
        differences.is_empty(),
        "the site's own answers changed:\n{}",
        differences.join("\n")
    );
}

/// The checks on the combined site: every rule of the contract holds; with the site's own
/// Functions (its middleware negotiates the tool's pages by its own rule), the only findings
/// left are the site's choices and the tool's policy on what the site's code answered.
fn conformance(target: &Target, http: Http, host: &str, functions: bool) {
    let target = Target {
        http,
        base_url: target.base_url.clone(),
        gone: target.gone.clone(),
        languages: target.languages.clone(),
        post: target.post.clone(),
        series: target.series.clone(),
        tag: target.tag.clone(),
        deployed: target.deployed.clone(),
        deadline: None,
    };
    let outcomes = checks::run(&target);
    let report: Vec<String> = checks::strict_report(&target, &outcomes)
        .into_iter()
        .filter(|line| {
            !(functions
                && (line.starts_with("- note") || line.starts_with("- warn"))
                && line.contains("the site's"))
        })
        .collect();
    eprintln!("{host}: {} checks", checks::CHECKS.len());
    assert!(report.is_empty(), "{host}:\n{}", report.join("\n"));
}

fn drop_in_on_pages(functions: bool) {
    let Some(wrangler) = need::WRANGLER.program() else {
        return;
    };
    let (sites, target) = Sites::new(functions);
    let scratch = sites.dir.path();
    let combined = sites.root("combined");
    let edge = if functions {
        "_content-api.js"
    } else {
        "_worker.js"
    };
    assert!(combined.join("dist").join(edge).is_file(), "{edge}");
    assert_eq!(
        combined.join("dist/_worker.js").exists(),
        !functions,
        "a _worker.js would switch the site's Functions off"
    );
    if functions {
        let route = std::fs::read_to_string(combined.join("functions/[[content_api]].js")).unwrap();
        assert!(route.contains("../dist/_content-api.js"), "{route}");
    }
    let (_alone_host, alone) = hosts::wrangler(
        &wrangler,
        Path::new("dist"),
        &sites.root("alone"),
        scratch,
        "/",
    );
    let (_combined_host, with_api) = hosts::wrangler(
        &wrangler,
        Path::new("dist"),
        &combined,
        scratch,
        "/api/index.json",
    );
    compare(alone, with_api, functions);
    conformance(
        &target,
        Http::plain(with_api, None),
        if functions {
            "the site with its Functions and content-api"
        } else {
            "the site with content-api"
        },
        functions,
    );
    if !functions {
        // Without Functions of the site's, the edge layer negotiates the tool's pages by the
        // table (with them, the site's middleware answers first, by its own rule).
        let mismatches = checks::negotiation(&Target {
            http: Http::plain(with_api, None),
            ..target
        });
        assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    }
    // The deploy record, as the next build reads it from the live site: a static file that
    // Pages serves whole, past the edge layer and the site's Functions.
    let reply = request(with_api, "GET", &format!("/{DEPLOY_RECORD_PATH}"), &[]).unwrap();
    assert_eq!(reply.status, 200, "{}", reply.text());
    let record = DeployRecord::parse(&reply.body, BASE_URL, 200_000)
        .unwrap_or_else(|why| panic!("{DEPLOY_RECORD_PATH} through Pages: {why}"));
    assert_eq!(record.dropped, 0);
    assert!(
        record
            .record
            .history
            .iter()
            .any(|path| path == "api/posts.json"),
        "{:?}",
        record.record.history
    );
    if functions {
        // The site's middleware runs on the API's paths too, before the edge layer.
        let reply = request(with_api, "GET", "/api/index.json", &[]).unwrap();
        assert_eq!(reply.header("x-site-middleware"), Some("1"));
        let reply = request(with_api, "POST", "/api/posts.json", &[]).unwrap();
        assert_eq!(reply.status, 405);
        assert_eq!(reply.header("x-site-middleware"), Some("1"));
    }
}

#[test]
fn a_site_with_its_own_pages_functions_keeps_every_behaviour() {
    drop_in_on_pages(true);
}

#[test]
fn a_site_without_functions_keeps_every_behaviour() {
    drop_in_on_pages(false);
}

/// The site's own `llms.txt`, kept by the build (the guide: "the site's wins").
const SITE_LLMS_TXT: &str = "# Lucía Montoya\n\n> The site's own map for language models.\n\n\
                             - [The API](https://lucia-montoya.example/api/index.json)\n";

/// The site's own agent skills index (its content has no skill of the tool's to list).
const SITE_SKILLS_INDEX: &str = "{\"skills\":[]}\n";

/// A rule of the site's own for its skills index, on top of its `/*` rule: Pages joins the two
/// `Cache-Control` values.
const SITE_SKILLS_RULE: &str =
    "\n/.well-known/agent-skills/*\n  Cache-Control: public, max-age=600\n";

/// A site shaped like the seed's once it adds the tool as the guide says: its `_headers` with a
/// `/*` rule of `max-age=0`, its own `llms.txt` and skills index, its middleware answering
/// Markdown whenever `Accept` mentions `text/markdown` (q=0 included), built with content-api
/// and served by `wrangler pages dev`. Returns the site's folder, the host and its address.
fn seed_shaped_site(wrangler: &Path) -> (tempfile::TempDir, hosts::Host, SocketAddr) {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    let fixture = repo().join("tests/fixtures/pages-site");
    copy_tree(&fixture.join("dist"), &site.join("dist"));
    copy_tree(&fixture.join("functions"), &site.join("functions"));
    let headers = std::fs::read_to_string(site.join("dist/_headers")).unwrap();
    assert!(headers.contains("/*\n  Cache-Control: public, max-age=0"));
    std::fs::write(
        site.join("dist/_headers"),
        format!("{headers}{SITE_SKILLS_RULE}"),
    )
    .unwrap();
    std::fs::write(site.join("dist/llms.txt"), SITE_LLMS_TXT).unwrap();
    std::fs::create_dir_all(site.join("dist/.well-known/agent-skills")).unwrap();
    std::fs::write(
        site.join("dist/.well-known/agent-skills/index.json"),
        SITE_SKILLS_INDEX,
    )
    .unwrap();
    let content = site.join("content");
    copy_sample_content(&content);
    std::fs::remove_dir_all(content.join("agent-skills")).unwrap();
    write_watch_toml(&site);
    build(&site);
    assert_eq!(
        std::fs::read_to_string(site.join("dist/llms.txt")).unwrap(),
        SITE_LLMS_TXT,
        "the site's llms.txt is kept"
    );
    let (host, addr) = hosts::wrangler(
        wrangler,
        Path::new("dist"),
        &site,
        dir.path(),
        "/api/index.json",
    );
    (dir, host, addr)
}

fn verify(site: &Path, addr: SocketAddr, flags: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_content-api"))
        .env_remove("CI")
        .args(["verify", &format!("http://{addr}")])
        .args(flags)
        .current_dir(site)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    (output.status.code(), format!("{stdout}{stderr}"))
}

/// The lines of `report` about `url` (the finding's line and the two below it).
fn about<'a>(report: &'a str, url: &str) -> Vec<&'a str> {
    let lines: Vec<&str> = report.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim_start().starts_with(url) && line.starts_with("     ") {
            found.extend(lines[i.saturating_sub(1)..(i + 2).min(lines.len())].iter());
        }
    }
    found
}

#[test]
fn verify_passes_the_seed_shaped_site_with_warnings_and_notes_and_fails_it_with_strict() {
    let Some(wrangler) = need::WRANGLER.program() else {
        return;
    };
    // Each finding once: the llms.txt warning is the discovery documents' check's alone.
    let (dir, _host, addr) = seed_shaped_site(&wrangler);
    let site = dir.path().join("site");
    let (code, report) = verify(&site, addr, &[]);
    assert_eq!(code, Some(0), "{report}");
    assert!(!report.contains("FAIL"), "{report}");
    // The report speaks in sentences, never Rust's syntax for a value that may be absent.
    assert!(
        !report.contains("Some(") && !report.contains(" None"),
        "{report}"
    );
    let origin = format!("http://{addr}");
    // The site's own llms.txt: a note that it is the site's, a warning for its cache time,
    // each naming the URL, who answered and what to change.
    let llms = about(&report, &format!("{origin}/llms.txt "));
    let llms = llms.join("\n");
    for said in [
        "note 4.3 every discovery document answers: the site's own document",
        "warn 4.3 every discovery document answers: Cache-Control is \"public, max-age=0, must-revalidate\" and",
        "answered by the site (its own file or its own code: content-api published nothing at this path)",
        "change: the site's own `llms.txt`",
        "change: the site's `_headers` rules matching /llms.txt",
    ] {
        assert!(llms.contains(said), "{said}:\n{llms}\n\n{report}");
    }
    // Its skills index: two joined values from its own rules.
    let skills = about(
        &report,
        &format!("{origin}/.well-known/agent-skills/index.json "),
    );
    let skills = skills.join("\n");
    assert!(
        skills.contains(
            "Cache-Control is \"public, max-age=0, must-revalidate, public, max-age=600\""
        ) || skills.contains(
            "Cache-Control is \"public, max-age=600, public, max-age=0, must-revalidate\""
        ),
        "{skills}\n\n{report}"
    );
    // Its middleware's negotiation: q=0 still gets Markdown; a warning (the tool's rule) and a
    // note (the site's own code answered), naming the middleware.
    let negotiation: Vec<&str> = report
        .lines()
        .skip_while(|l| !l.starts_with("warn 4.3 negotiation by quality values"))
        .take(3)
        .collect();
    let negotiation = negotiation.join("\n");
    for said in [
        "Accept \"text/markdown;q=0\": want HTML, got status 200 with Content-Type \"text/markdown; charset=utf-8\"",
        &format!("{origin}/developers/ (answered by the site's Functions or middleware"),
        "change: the site's Functions middleware (`functions/_middleware.ts`)",
    ] {
        assert!(
            negotiation.contains(said),
            "{said}:\n{negotiation}\n\n{report}"
        );
    }
    assert!(
        report.contains("note 4.3 negotiation by quality values: the site's own code negotiates"),
        "{report}"
    );
    // The API itself: the edge layer answered it, and every rule of the contract held.
    let total = checks::CHECKS.len();
    let last = report.lines().last().unwrap_or("");
    assert!(
        last.starts_with(&format!(
            "{} of {} checks hold on {origin} (",
            total - 1,
            total - 1
        )) && last.contains("warnings")
            && last.contains("notes")
            && last.contains("1 not checked"),
        "{report}"
    );
    // At most one line of any body.
    assert!(!report.contains("<!doctype"), "{report}");
    assert_eq!(
        report
            .matches(&format!("{origin}/llms.txt (answered by"))
            .count(),
        2,
        "one warning and one note: {report}"
    );

    let (code, strict) = verify(&site, addr, &["--strict"]);
    assert_eq!(code, Some(1), "{strict}");
    for said in [
        "FAIL 4.3 negotiation by quality values",
        "FAIL 4.3 every discovery document answers: Cache-Control is",
    ] {
        assert!(strict.contains(said), "{said}:\n{strict}");
    }
    assert!(!strict.contains("\nwarn "), "{strict}");
}

/// The site's own files nginx serves (path, status, `Content-Type`, the file whose bytes are the
/// body): its pages at each of their addresses, its 404 page for a missing page, and its
/// assets typed as Cloudflare Pages types them.
const NGINX_SITE_ANSWERS: &[(&str, u16, &str, &str)] = &[
    ("/", 200, "text/html; charset=utf-8", "index.html"),
    (
        "/about/",
        200,
        "text/html; charset=utf-8",
        "about/index.html",
    ),
    (
        "/about",
        200,
        "text/html; charset=utf-8",
        "about/index.html",
    ),
    ("/blog/", 200, "text/html; charset=utf-8", "blog/index.html"),
    ("/blog", 200, "text/html; charset=utf-8", "blog/index.html"),
    (
        "/es/blog/hello-from-medellin/",
        200,
        "text/html; charset=utf-8",
        "es/blog/hello-from-medellin/index.html",
    ),
    ("/no-such-page", 404, "text/html; charset=utf-8", "404.html"),
    (
        "/es/no-such-page/",
        404,
        "text/html; charset=utf-8",
        "404.html",
    ),
    (
        "/blog/no-such-post/",
        404,
        "text/html; charset=utf-8",
        "404.html",
    ),
    ("/_headers", 404, "text/html; charset=utf-8", "404.html"),
    ("/fonts/lucia.woff2", 200, "font/woff2", "fonts/lucia.woff2"),
    ("/images/mark.png", 200, "image/png", "images/mark.png"),
    ("/images/mark.svg", 200, "image/svg+xml", "images/mark.svg"),
    ("/images/pixel.gif", 200, "image/gif", "images/pixel.gif"),
    (
        "/_astro/site.css",
        200,
        "text/css; charset=utf-8",
        "_astro/site.css",
    ),
    (
        "/_astro/app.js",
        200,
        "text/javascript; charset=utf-8",
        "_astro/app.js",
    ),
    ("/sitemap.xml", 200, "application/xml", "sitemap.xml"),
    (
        "/robots.txt",
        200,
        "text/plain; charset=utf-8",
        "robots.txt",
    ),
];

/// Where nginx answers the site's own requests otherwise than Pages, and why.
const NOT_AS_PAGES: [(&str, &str); 2] = [
    (
        "/_headers",
        "a host file: Pages never serves it (wrangler pages dev answers 502)",
    ),
    (
        "/_astro/app.js",
        "`.js` is typed by the contract, text/javascript (RFC 9239); Pages says application/javascript",
    ),
];

/// The block `content-api hosting nginx` prints serves a whole site's folder (the
/// site's build output with the API added), beside Debian's default site, as a static host
/// does, while the API keeps the contract.
#[test]
fn nginx_serves_the_whole_site_with_the_api() {
    let Some(nginx) = crate::conformance::debian_nginx_program() else {
        return;
    };
    let (sites, target) = Sites::new(false);
    let combined = sites.root("combined");
    let dist = combined.join("dist");
    let host = hosts::DebianNginx::in_folder(sites.dir.path());
    let addr = host.addr;
    host.enable_printed_block(Path::new(env!("CARGO_BIN_EXE_content-api")), &combined, &[]);
    let _host = host.start(&nginx, "nginx with the site and the API");
    let http = Http::plain(addr, Some(SITE_HOST.into()));
    let mut wrong = Vec::new();
    for (path, status, media, file) in NGINX_SITE_ANSWERS {
        let reply = http.send("GET", path, &[]).unwrap();
        let body = std::fs::read(dist.join(file)).unwrap();
        if reply.status != *status
            || reply.header("content-type") != Some(*media)
            || reply.body != body
        {
            wrong.push(format!(
                "GET {path}: want {status} {media:?} with the bytes of {file}, got {} {:?} {:?}",
                reply.status,
                reply.header("content-type"),
                reply.first_line()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // HEAD of a missing page: its status, no body.
    let head = http.send("HEAD", "/no-such-page", &[]).unwrap();
    assert_eq!((head.status, head.body.len()), (404, 0));
    // The API's own errors stay JSON, the site's 404 page notwithstanding.
    for (path, status, code) in [
        ("/api/no-such-endpoint.json", 404, "resource_not_found"),
        ("/api/", 404, "resource_not_found"),
        ("/api", 404, "resource_not_found"),
        (target.gone.as_deref().unwrap(), 410, "gone"),
    ] {
        let reply = http.send("GET", path, &[]).unwrap();
        assert_eq!(reply.status, status, "{path}: {}", reply.text());
        assert_eq!(
            reply.header("content-type"),
            Some("application/json"),
            "{path}"
        );
        let body = reply.json().unwrap();
        assert_eq!(body["error"]["code"], code, "{path}: {body}");
    }
    conformance(
        &target,
        Http::plain(addr, Some(SITE_HOST.into())),
        "nginx with the site and content-api (Debian's configuration)",
        false,
    );
    // The same requests to Cloudflare Pages (the site alone, as its own host serves it): the
    // same status and type, but where Pages redirects a folder's page without its slash.
    let Some(wrangler) = need::WRANGLER.program() else {
        return;
    };
    let (_pages, pages) = hosts::wrangler(
        &wrangler,
        Path::new("dist"),
        &sites.root("alone"),
        sites.dir.path(),
        "/",
    );
    let mut differences = Vec::new();
    for (path, ..) in NGINX_SITE_ANSWERS {
        if NOT_AS_PAGES.iter().any(|(other, _)| other == path) {
            continue;
        }
        let on_nginx = http.send("GET", path, &[]).unwrap();
        let on_pages = request(pages, "GET", path, &[]).unwrap();
        let redirected = on_pages.status == 308
            && on_pages.header("location") == Some(&format!("{path}/"))
            && on_nginx.status == 200;
        let same = on_nginx.status == on_pages.status
            && on_nginx.header("content-type") == on_pages.header("content-type");
        if !(same || redirected) {
            differences.push(format!(
                "GET {path}: nginx {} {:?}, Pages {} {:?}",
                on_nginx.status,
                on_nginx.header("content-type"),
                on_pages.status,
                on_pages.header("content-type")
            ));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
