//! Sharing the output folder with the site's generator (Astro's `dist/`, Hugo's `public/`):
//! files this tool did not write are never silently replaced.
//!
//! - the site's `_headers` and `_redirects` survive: the tool's rules go in a marked block (last
//!   in `_headers`, first in Netlify's `_redirects`), the site's lines are kept byte for byte,
//!   through rebuilds and through the site generator writing its own version again;
//! - the site's own `404.html` wins, and is not claimed in the manifest; so do its `llms.txt`,
//!   `auth.md` and Markdown twins, and a document it puts in place of one the tool wrote;
//! - a path `--take-over` names is replaced on purpose;
//! - any other file of the site in the way stops the build, names the files grouped by folder,
//!   writes nothing.

use crate::common;

use common::*;
use content_api::write::{MANIFEST_PATH, OWNED_BLOCK_BEGIN, OWNED_BLOCK_END};

const SITE_404: &str = "<!doctype html><title>Lost?</title><p>The site's own page.\n";
const SITE_HEADERS: &str = "/assets/*\n  Cache-Control: public, max-age=31536000, immutable\n";
// No final newline, CRLF on one line: kept exactly as they are.
const SITE_REDIRECTS: &str = "/blog/old /blog/new 301\r\n/*  /index.html  200";

/// A site whose generator already built into `out/`, deployed on Netlify too (so the tool
/// writes `_redirects`).
fn site_with_its_own_files() -> Site {
    let site = Site::new();
    std::fs::write(
        site.root().join("watch.toml"),
        "[hosting]\nnetlify = true\n",
    )
    .unwrap();
    std::fs::create_dir_all(site.out()).unwrap();
    for (name, text) in [
        ("404.html", SITE_404),
        ("_headers", SITE_HEADERS),
        ("_redirects", SITE_REDIRECTS),
        ("index.html", "<p>home</p>\n"),
    ] {
        std::fs::write(site.out().join(name), text).unwrap();
    }
    site
}

fn read(site: &Site, name: &str) -> String {
    std::fs::read_to_string(site.out().join(name)).unwrap()
}

/// The file is exactly `site_bytes`, then the tool's block; returns the block's rules.
fn assert_merged_last(text: &str, site_bytes: &str) -> Vec<String> {
    let (site, block) = text
        .split_once(&format!("{OWNED_BLOCK_BEGIN}\n"))
        .expect("the block");
    let separator = if site_bytes.is_empty() || site_bytes.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    assert_eq!(
        site,
        format!("{site_bytes}{separator}"),
        "the site's lines, byte for byte"
    );
    let block = block
        .strip_suffix(&format!("{OWNED_BLOCK_END}\n"))
        .expect("the block ends the file");
    block
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// The file is the tool's block, then exactly `site_bytes`; returns the block's rules.
fn assert_merged(text: &str, site_bytes: &str) -> Vec<String> {
    assert!(
        text.starts_with(&format!("{OWNED_BLOCK_BEGIN}\n")),
        "the block comes first:\n{text}"
    );
    let end = format!("\n{OWNED_BLOCK_END}\n");
    let (block, after) = text.split_once(&end).expect("the block ends");
    assert_eq!(after, site_bytes, "the site's lines, byte for byte");
    assert_eq!(text.matches(OWNED_BLOCK_BEGIN).count(), 1, "{text}");
    block
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_sites_host_files_survive_and_the_merged_files_keep_its_lines() {
    let site = site_with_its_own_files();
    site.build().assert_success();
    assert_eq!(
        read(&site, "404.html"),
        SITE_404,
        "the site's 404.html wins"
    );
    assert_eq!(read(&site, "index.html"), "<p>home</p>\n");
    assert!(
        site.out().join("api/404.html").is_file(),
        "the API's own 404"
    );
    let manifest = read(&site, MANIFEST_PATH);
    assert!(
        !manifest.contains("\"404.html\""),
        "not claimed: {manifest}"
    );
    assert!(manifest.contains("\"_redirects\""), "{manifest}");

    let headers = assert_merged_last(&read(&site, "_headers"), SITE_HEADERS);
    assert!(headers.contains(&"  Access-Control-Allow-Origin: *".to_string()));
    assert!(
        !headers.contains(&"/*".to_string()),
        "no rule for the site's pages: {headers:?}"
    );
    let rules = assert_merged(&read(&site, "_redirects"), SITE_REDIRECTS);
    // First match wins: the API's fallback comes before the site's catch-all.
    assert_eq!(rules, ["/api/* /api/404.json 404"]);

    // A rebuild that removes a tag rewrites the block only.
    site.write(EN_POST, EN_POST_TEXT.replace("tags: [\"rust\"]\n", ""));
    site.build().assert_success();
    let rules = assert_merged(&read(&site, "_redirects"), SITE_REDIRECTS);
    assert_eq!(
        rules,
        [
            "/api/timeline/en/rust.json /api/410.json 410",
            "/api/* /api/404.json 404"
        ]
    );
    assert_eq!(read(&site, "404.html"), SITE_404);

    // The site generator builds again and writes its own versions; so does the tool after it.
    let new_site_redirects = "/feed /rss.xml 301\n";
    std::fs::write(site.out().join("_redirects"), new_site_redirects).unwrap();
    std::fs::write(site.out().join("404.html"), SITE_404).unwrap();
    site.build().assert_success();
    let rules = assert_merged(&read(&site, "_redirects"), new_site_redirects);
    assert_eq!(rules.len(), 2, "{rules:?}");
    assert_merged_last(&read(&site, "_headers"), SITE_HEADERS);
    assert_eq!(read(&site, "404.html"), SITE_404);

    // An unchanged rebuild writes nothing at all (but the tool's fingerprint of the build,
    // which the builds before could not save: their outputs were too recent to trust).
    let outputs = |mut snapshot: Snapshot| {
        snapshot.remove(std::path::Path::new(".content-api/fingerprint.json"));
        snapshot
    };
    let before = outputs(site.out_snapshot());
    site.build().assert_success();
    assert_same(&before, &outputs(site.out_snapshot()));
}

#[test]
fn without_a_site_404_the_tool_writes_its_own() {
    let site = Site::new();
    site.build().assert_success();
    assert!(read(&site, "404.html").contains("Not Found"));
    assert_merged_last(&read(&site, "_headers"), "");
    assert!(
        !site.out().join("_redirects").exists(),
        "Netlify's rules only when asked for: Cloudflare Pages rejects them"
    );
}

#[test]
fn any_other_file_of_the_site_in_the_way_stops_the_build_before_it_writes() {
    let site = site_with_its_own_files();
    std::fs::write(site.out().join("openapi.json"), "{}").unwrap();
    std::fs::create_dir_all(site.out().join("api")).unwrap();
    std::fs::write(site.out().join("api/posts.json"), "[]").unwrap();
    let before = site.out_snapshot();
    let run = site.build();
    assert_ne!(run.code(), 0, "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    for named in ["openapi.json", "api/ (1 file)", "--take-over api/", "--out"] {
        assert!(
            run.stderr.contains(named),
            "{named} not named:\n{}",
            run.stderr
        );
    }
    // The fix every build can take (the Astro integration passes no flags) comes
    // first, in watch.toml; the flag second.
    let help = &run.stderr[run.stderr.find("= help:").expect("a help line")..];
    let setting = help
        .find("`take_over = [\"api/\"]` under [hosting] in watch.toml")
        .unwrap_or_else(|| panic!("the setting is not named:\n{help}"));
    let flag = help.find("`--take-over PATH`").expect("the flag");
    assert!(setting < flag, "the setting comes first:\n{help}");
    assert_same(&before, &site.out_snapshot());
    assert!(
        !site.root().join("content-api.history").exists(),
        "nothing recorded either"
    );

    // Taking them over on purpose replaces them.
    let run = site.build_with(&["--take-over", "api/", "--take-over", "openapi.json"]);
    run.assert_success();
    assert_ne!(read(&site, "api/posts.json"), "[]");
    assert_ne!(read(&site, "openapi.json"), "{}");
    // A file that already holds exactly the bytes the tool writes is not a collision.
    let fresh = Site::new();
    fresh.build().assert_success();
    std::fs::remove_dir_all(fresh.out().join(".content-api")).unwrap();
    fresh.build().assert_success();
}

#[test]
fn watch_rebuilds_keep_the_sites_files_too() {
    use content_api::session::Session;
    use content_api::source::ChangeSet;
    use std::sync::Arc;
    let site = site_with_its_own_files();
    let mut config = content_api::config::SiteConfig::defaults(
        camino::Utf8Path::from_path(site.root()).unwrap(),
    );
    config.content_dir = camino::Utf8PathBuf::from_path_buf(site.content()).unwrap();
    config.out_dir = camino::Utf8PathBuf::from_path_buf(site.out()).unwrap();
    config.hosting.netlify = true;
    let today = chrono::NaiveDate::parse_from_str(TODAY, "%Y-%m-%d").unwrap();
    let (mut session, outcome) = Session::start(Arc::new(config), today, false).unwrap();
    let first = outcome.report.expect("published");
    assert!(
        !first.written.iter().any(|p| &**p == "404.html"),
        "{first:?}"
    );
    assert_eq!(read(&site, "404.html"), SITE_404);
    let batch = ChangeSet {
        paths: [EN_POST.to_string()].into(),
        rescan: false,
        ..Default::default()
    };
    site.write(EN_POST, EN_POST_TEXT.replace("tags: [\"rust\"]\n", ""));
    let report = session.apply(&batch).unwrap().report.expect("published");
    assert!(
        report
            .removed
            .contains(&"api/timeline/en/rust.json".to_string())
    );
    assert!(
        !report.removed.iter().any(|p| p == "404.html"),
        "{report:?}"
    );
    let rules = assert_merged(&read(&site, "_redirects"), SITE_REDIRECTS);
    assert_eq!(
        rules,
        ["/api/* /api/404.json 404"],
        "a preview records nothing"
    );
    assert_eq!(read(&site, "404.html"), SITE_404);
    // The same content again: nothing to write, nothing removed.
    site.write(EN_POST, EN_POST_TEXT);
    session.apply(&batch).unwrap();
    let before = site.out_snapshot();
    site.write(EN_POST, EN_POST_TEXT.replace("Body.", "Body!"));
    let report = session.apply(&batch).unwrap().report.expect("published");
    assert_eq!(
        report.written.iter().map(|p| &**p).collect::<Vec<_>>(),
        ["blog/hello.md", "llms-full.txt"]
    );
    assert!(report.removed.is_empty());
    let after = site.out_snapshot();
    assert_eq!(before.len(), after.len());
    assert_eq!(read(&site, "404.html"), SITE_404);
}

#[test]
fn documents_a_site_writes_itself_are_its_own() {
    let site = Site::new();
    std::fs::create_dir_all(site.out().join("blog")).unwrap();
    for (name, text) in [
        ("llms.txt", "# The site's own llms.txt\n"),
        ("auth.md", "# The site's own access policy\n"),
        ("blog/hello.md", "# The site's own twin\n"),
        (
            "_headers",
            "/llms.txt\n  Cache-Control: public, max-age=60\n",
        ),
    ] {
        std::fs::write(site.out().join(name), text).unwrap();
    }
    let run = site.build();
    run.assert_success();
    assert_eq!(read(&site, "llms.txt"), "# The site's own llms.txt\n");
    assert_eq!(read(&site, "auth.md"), "# The site's own access policy\n");
    assert_eq!(read(&site, "blog/hello.md"), "# The site's own twin\n");
    assert!(
        site.out().join("es/blog/hello.md").is_file(),
        "the tool's twins elsewhere"
    );
    // No rule of the tool's touches the documents it left to the site.
    let rules = assert_merged_last(
        &read(&site, "_headers"),
        "/llms.txt\n  Cache-Control: public, max-age=60\n",
    );
    assert!(
        !rules
            .iter()
            .any(|r| r.starts_with("/llms.txt") || r.starts_with("/auth.md")),
        "{rules:?}"
    );
    let manifest = read(&site, MANIFEST_PATH);
    assert!(!manifest.contains("\"llms.txt\""), "{manifest}");
}

/// A generator that writes into a folder content-api already built into, without emptying it:
/// its `404.html` and `llms.txt` replace the tool's. Their bytes are not the ones the tool wrote
/// (it records their hashes), so they are the site's from then on, build after build; a
/// document the site did not replace is still the tool's, and follows the content.
#[test]
fn a_document_the_site_puts_in_place_of_the_tools_is_kept() {
    let site = Site::new();
    site.build().assert_success();
    assert!(read(&site, "404.html").contains("Not Found"));
    let tools_auth = read(&site, "auth.md");
    std::fs::write(site.out().join("404.html"), SITE_404).unwrap();
    std::fs::write(site.out().join("llms.txt"), "# The site's own llms.txt\n").unwrap();
    site.build().assert_success();
    assert_eq!(read(&site, "404.html"), SITE_404);
    assert_eq!(read(&site, "llms.txt"), "# The site's own llms.txt\n");
    let manifest = read(&site, MANIFEST_PATH);
    assert!(!manifest.contains("\"404.html\""), "{manifest}");
    assert!(!manifest.contains("\"llms.txt\""), "{manifest}");
    assert!(manifest.contains("\"auth.md\""), "{manifest}");

    // A content change: the tool's documents follow it, the site's stay.
    site.write(EN_POST, EN_POST_TEXT.replace("Hello", "Hello again"));
    site.build().assert_success();
    assert_eq!(read(&site, "404.html"), SITE_404);
    assert_eq!(read(&site, "llms.txt"), "# The site's own llms.txt\n");
    assert!(read(&site, "llms-full.txt").contains("Hello again"));
    assert_eq!(read(&site, "auth.md"), tools_auth);

    // The site stops providing its own: the tool's comes back.
    std::fs::remove_file(site.out().join("404.html")).unwrap();
    site.build().assert_success();
    assert!(read(&site, "404.html").contains("Not Found"));
}

/// Only a site rule the owner can act on is reported: one that matches only the
/// tool's paths is dead where the tool sets the same headers (delete it, or those lines), in the
/// same words by `check` and `build`; the site's `/*` rule is left alone (the tool's value wins
/// on its paths, the site's everywhere else, as intended).
#[test]
fn the_sites_header_rules_on_the_tools_paths_are_reported_and_the_tools_values_win() {
    let site = Site::new();
    std::fs::create_dir_all(site.out()).unwrap();
    let site_headers = "/*\n  Cache-Control: public, max-age=0, must-revalidate\n\n/.well-known/api-catalog\n  Cache-Control: public, max-age=300\n  X-Robots-Tag: noindex\n\n/.well-known/mcp/server-card.json\n  Cache-Control: public, max-age=300\n";
    std::fs::write(site.out().join("_headers"), site_headers).unwrap();
    let checked = site.run(&["check", "--today", TODAY, "--out", "out"]);
    let run = site.build();
    run.assert_success();
    let said = |run: &Run| -> Vec<String> {
        run.stderr
            .lines()
            .filter(|line| line.contains("_headers:"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(said(&checked), said(&run), "check and build say the same");
    let said = said(&run);
    assert_eq!(said.len(), 2, "{}", run.stderr);
    assert!(
        said[0].contains(
            "_headers:4: in the site's rule `/.well-known/api-catalog`, cache-control never applies"
        ),
        "{}",
        run.stderr
    );
    assert!(
        said[1].contains("_headers:8: the site's rule `/.well-known/mcp/server-card.json` is dead"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("delete the rule (line 8"),
        "{}",
        run.stderr
    );
    let rules = assert_merged_last(&read(&site, "_headers"), site_headers);
    let at = |pattern: &str| {
        rules
            .iter()
            .position(|r| r == pattern)
            .unwrap_or_else(|| panic!("{pattern} in {rules:?}"))
    };
    // The same pattern twice would replace the site's block: the tool's is widened instead.
    let catalog = at("/.well-known/api-catalog*");
    assert_eq!(rules[catalog + 1], "  ! Cache-Control");
    let api = at("/api/*");
    assert_eq!(rules[api + 1], "  ! Cache-Control");
}

#[test]
fn check_and_build_report_what_cloudflare_pages_would_refuse() {
    let site = Site::new();
    std::fs::write(
        site.root().join("watch.toml"),
        "[hosting]\ncloudflare_max_files = 10\n",
    )
    .unwrap();
    for run in [site.run(&["check", "--today", TODAY]), site.build()] {
        run.assert_success();
        assert!(
            run.stderr.contains("Cloudflare Pages deploys at most 10"),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr.contains("cloudflare_max_files"),
            "{}",
            run.stderr
        );
    }
}

/// The site's `robots.txt` read as RFC 9309 reads it, named by the file its owner
/// edits (`public/robots.txt`, which the generator copied into the output), in the same words
/// by `check` and `build`. The seed site's shape (everyone off `/api/`, named AI crawlers with
/// their own `Allow: /` groups) is the site's choice: no warning.
#[test]
fn robots_groups_are_read_as_rfc_9309_reads_them_and_named_by_their_source() {
    let site = Site::new();
    let copy = |text: &str| {
        std::fs::create_dir_all(site.root().join("public")).unwrap();
        std::fs::create_dir_all(site.out()).unwrap();
        std::fs::write(site.root().join("public/robots.txt"), text).unwrap();
        std::fs::write(site.out().join("robots.txt"), text).unwrap();
    };
    let runs = || {
        [
            site.run(&["check", "--today", TODAY]),
            site.run(&["build", "--today", TODAY]),
        ]
    };
    copy(
        "User-agent: *\nAllow: /\nDisallow: /api/\n\nUser-agent: GPTBot\nAllow: /\n\nUser-agent: ClaudeBot\nAllow: /\n",
    );
    for run in runs() {
        run.assert_success();
        assert!(!run.stderr.contains("robots.txt"), "{}", run.stderr);
    }
    copy("User-agent: *\nAllow: /\nDisallow: /api/\n");
    let [checked, built] = runs();
    let line = |run: &Run| {
        run.stderr
            .lines()
            .find(|line| line.contains("robots.txt"))
            .unwrap_or_else(|| panic!("no robots.txt line in {}", run.stderr))
            .to_string()
    };
    assert_eq!(line(&checked), line(&built));
    assert!(
        line(&built).starts_with("warning: ")
            && line(&built).contains("public/robots.txt (copied to ./out/robots.txt):3: `Disallow: /api/` keeps every crawler without a group of its own away from the API"),
        "{}",
        built.stderr
    );
}

/// The `.gitignore` lines the Cloudflare Pages guide gives (read from the guide itself) keep
/// the build's state and the generated route file out of the site's repository, and no file of
/// the site's own Functions: a build without content-api then deploys the site as before.
#[test]
fn the_deploy_guides_gitignore_lines_ignore_the_generated_route_and_nothing_of_the_sites() {
    let Some(git) = common::need::GIT.program() else {
        return;
    };
    let guide =
        std::fs::read_to_string(common::repo().join("docs/deploy/cloudflare-pages.md")).unwrap();
    let lines = guide
        .split("```gitignore\n")
        .nth(1)
        .and_then(|block| block.split("```").next())
        .expect("the guide gives its .gitignore lines in a gitignore block");
    let site = tempfile::tempdir().unwrap();
    let root = site.path();
    std::fs::write(root.join(".gitignore"), lines).unwrap();
    for file in [
        ".content-api/manifest.json",
        "functions/[[content_api]].js",
        "functions/_middleware.js",
        "functions/api/hello.js",
    ] {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "x").unwrap();
    }
    let git = |args: &[&str]| {
        std::process::Command::new(&git)
            .args(args)
            .current_dir(root)
            .output()
            .unwrap()
    };
    assert!(git(&["init", "-q"]).status.success());
    for (file, ignored) in [
        (".content-api/manifest.json", true),
        ("functions/[[content_api]].js", true),
        ("functions/_middleware.js", false),
        ("functions/api/hello.js", false),
    ] {
        let said = git(&["check-ignore", "-q", "--no-index", file]);
        assert_eq!(
            said.status.success(),
            ignored,
            "{file}: ignored should be {ignored} with the guide's lines:\n{lines}"
        );
    }
}
