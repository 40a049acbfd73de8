//! Sites in languages of their own (`languages` in `watch.toml`): four small sites in
//! `tests/fixtures/languages/` (English only, Korean only, English with French and German, and
//! Japanese with Korean, Russian and Chinese (China)) each publish exactly their languages in
//! every output, hold the HTTP contract on every host, and follow a change of their languages
//! in watch mode.
//!
//! Each site is copied into a temporary folder and built there as of [`TODAY`], with its own
//! publishing history beside its `watch.toml` and `live_record = "off"` (no network). What is
//! checked of each build: the per-language files are those of the site's languages and no
//! other's; `openapi.json`'s `Language` schema and `lang` parameter list the site's codes in its
//! order, with one `listPostsIn<EnglishName>` operation each (CLDR's names); `api/index.json`
//! lists those operations in that order (how `verify` and `content-api mcp` learn the
//! languages); `llms.txt` names the languages in words; the MCP server card's and the WebMCP
//! module's `lang` enum is the site's; series titles are localized by `title<Suffix>`; every
//! JSON file validates against the site's own `openapi.json` (`schema::validate_build`).
//!
//! The hosts are those of `tests/conformance.rs`, whose harness takes a site
//! (`conformance::Fixture::of`): `content-api serve` (and `content-api verify` against it),
//! Debian's nginx with the block `content-api hosting nginx` prints, and `wrangler pages dev`;
//! nginx and wrangler follow `common::need`'s rule.

use crate::common::{self, live_snapshot, need, read_tree};
use crate::conformance::{self, Fixture, SiteSource};
use crate::schema;
use content_api::verify::client;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The date of every build: after every fixture post and deck.
const TODAY: &str = "2024-06-01";

/// How long a running daemon may take to follow an edit (both lanes).
const PATIENCE: Duration = Duration::from_secs(30);

/// A fixture site and what its build must say of its languages.
struct Expected {
    /// Its folder in `tests/fixtures/languages/`.
    folder: &'static str,
    /// The site's language codes, in its order (the default first).
    codes: &'static [&'static str],
    /// The operation id of each language's post list, in the same order.
    operations: &'static [&'static str],
    /// How `llms.txt` names the languages.
    in_words: &'static str,
    /// The series' title in each language's listing (`title<Suffix>`, else `title`).
    series_titles: &'static [&'static str],
    /// Languages CLDR names that appear nowhere in the site's documents.
    never_named: &'static [&'static str],
}

const SITES: [Expected; 4] = [
    Expected {
        folder: "en",
        codes: &["en"],
        operations: &["listPostsInEnglish"],
        in_words: "in English, as static JSON",
        series_titles: &["A Rust Notebook"],
        never_named: &["Spanish", "Español"],
    },
    Expected {
        folder: "ko",
        codes: &["ko"],
        operations: &["listPostsInKorean"],
        in_words: "in Korean, as static JSON",
        series_titles: &["러스트 공책"],
        never_named: &["English", "Spanish"],
    },
    Expected {
        folder: "en-fr-de",
        codes: &["en", "fr", "de"],
        operations: &[
            "listPostsInEnglish",
            "listPostsInFrench",
            "listPostsInGerman",
        ],
        in_words: "in English, French, and German, as static JSON",
        series_titles: &["A Rust Notebook", "Carnet Rust", "Ein Rust-Notizbuch"],
        never_named: &["Spanish", "Español"],
    },
    Expected {
        folder: "ja-ko-ru-zh",
        codes: &["ja", "ko", "ru", "zh-cn"],
        operations: &[
            "listPostsInJapanese",
            "listPostsInKorean",
            "listPostsInRussian",
            "listPostsInChineseChina",
        ],
        in_words: "in Japanese, Korean, Russian, and Chinese (China), as static JSON",
        series_titles: &["Rust ノート", "러스트 공책", "Тетрадь по Rust", "Rust 笔记"],
        never_named: &["English", "Spanish"],
    },
];

/// The fixture site's folder in the repository.
fn fixture(folder: &str) -> PathBuf {
    common::repo().join("tests/fixtures/languages").join(folder)
}

/// A copy of a fixture site in a temporary folder (`site/`: its `watch.toml` and `content/`).
struct Copy {
    dir: tempfile::TempDir,
}

impl Copy {
    fn of(folder: &str) -> Copy {
        let dir = tempfile::tempdir().unwrap();
        for (path, bytes) in read_tree(&fixture(folder)) {
            let target = dir.path().join("site").join(path);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(target, bytes).unwrap();
        }
        Copy { dir }
    }

    /// The site's folder: its `watch.toml`, `content/`, `out/` and history.
    fn root(&self) -> PathBuf {
        self.dir.path().join("site")
    }

    fn out(&self) -> PathBuf {
        self.root().join("out")
    }

    /// `content-api ARGS` in the site's folder, with `CI` unset; fails after a time limit.
    fn run(&self, args: &[&str]) -> common::Run {
        common::run_binary(&self.root(), args, common::TIMEOUT)
    }

    /// A recorded one-shot build (`--once`) into the site's `out/`, which must succeed.
    fn build(&self) -> common::Run {
        let run = self.run(&["--once", "--today", TODAY]);
        run.assert_success();
        run
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.out().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn json(&self, path: &str) -> Value {
        serde_json::from_str(&self.read(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// Replaces `languages = [...]` in the site's `watch.toml` with `codes`.
    fn set_languages(&self, codes: &[&str]) {
        let path = self.root().join("watch.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        let line = text
            .lines()
            .find(|line| line.starts_with("languages = "))
            .expect("the fixture names its languages");
        let quoted: Vec<String> = codes.iter().map(|code| format!("\"{code}\"")).collect();
        let text = text.replace(line, &format!("languages = [{}]", quoted.join(", ")));
        std::fs::write(path, text).unwrap();
    }
}

/// The language codes that name a per-language output of a build: `api/posts-{code}.json`,
/// `api/series/{code}/`, `api/timeline/{code}/`, `api/slides-timeline/{code}.json`, and the
/// folders of other languages' post twins (`{code}/blog/`).
fn languages_in_paths(out: &Path) -> BTreeMap<&'static str, BTreeSet<String>> {
    let mut found: BTreeMap<&'static str, BTreeSet<String>> = BTreeMap::new();
    for path in read_tree(out).keys() {
        let code = if let Some(name) = path.strip_prefix("api/posts-") {
            Some(("posts", name.trim_end_matches(".json")))
        } else if let Some(rest) = path.strip_prefix("api/series/") {
            rest.split_once('/').map(|(code, _)| ("series", code))
        } else if let Some(rest) = path.strip_prefix("api/timeline/") {
            rest.split_once('/').map(|(code, _)| ("timeline", code))
        } else if let Some(name) = path.strip_prefix("api/slides-timeline/") {
            Some(("slides", name.trim_end_matches(".json")))
        } else {
            path.split_once("/blog/")
                .filter(|(code, _)| !code.contains('/') && path.ends_with(".md"))
                .map(|(code, _)| ("twins", code))
        };
        if let Some((kind, code)) = code {
            found.entry(kind).or_default().insert(code.to_string());
        }
    }
    found
}

/// The `lang` property's enum of every tool that takes one, by tool name.
fn lang_enums(tools: &[Value]) -> BTreeMap<String, Value> {
    tools
        .iter()
        .filter_map(|tool| {
            let lang = &tool["inputSchema"]["properties"]["lang"];
            (!lang.is_null()).then(|| {
                (
                    tool["name"].as_str().unwrap().to_string(),
                    lang["enum"].clone(),
                )
            })
        })
        .collect()
}

/// What every build of a site must hold of its languages (see the module's header).
fn assert_publishes_its_languages(site: &Expected, copy: &Copy) {
    let name = site.folder;
    let codes: Vec<String> = site.codes.iter().map(|c| c.to_string()).collect();
    let all: BTreeSet<String> = codes.iter().cloned().collect();
    let others: BTreeSet<String> = codes[1..].iter().cloned().collect();
    // Exactly the site's per-language files.
    let found = languages_in_paths(&copy.out());
    for kind in ["posts", "series", "timeline", "slides"] {
        assert_eq!(
            found.get(kind),
            Some(&all),
            "{name}: the {kind} files' languages"
        );
    }
    let twins = found.get("twins").cloned().unwrap_or_default();
    assert_eq!(
        twins, others,
        "{name}: twin folders of non-default languages"
    );
    for code in site.codes {
        assert!(copy.out().join(format!("api/posts-{code}.json")).is_file());
    }
    if !site.codes.contains(&"es") {
        assert!(!copy.out().join("api/posts-es.json").exists(), "{name}");
    }
    // The default language's twins at the site's root, the others under /{code}.
    let default_twins = read_tree(&copy.out().join("blog")).len();
    assert!(
        default_twins > 0,
        "{name}: the default language's twins at /blog/"
    );
    // Cloudflare's edge layer runs for each language's twin folder, and no other's.
    let routes = copy.json("_routes.json");
    let twin_routes: Vec<&str> = routes["include"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .filter(|r| r.ends_with("/blog/*"))
        .collect();
    let mut expected_routes = vec!["/blog/*".to_string()];
    expected_routes.extend(site.codes[1..].iter().map(|code| format!("/{code}/blog/*")));
    assert_eq!(twin_routes, expected_routes, "{name}: _routes.json");
    // openapi.json: the Language schema, the lang parameter, one operation per language.
    let openapi = copy.json("openapi.json");
    let schemas = &openapi["components"]["schemas"];
    assert_eq!(
        schemas["Language"]["enum"],
        json!(codes),
        "{name}: Language"
    );
    assert_eq!(
        openapi["components"]["parameters"]["lang"]["schema"]["enum"],
        json!(codes),
        "{name}: the lang parameter"
    );
    let post_lists: Vec<(String, String)> = openapi["paths"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(path, _)| path.starts_with("/api/posts-"))
        .map(|(path, item)| {
            let id = item["get"]["operationId"].as_str().unwrap().to_string();
            (path.clone(), id)
        })
        .collect();
    let expected: Vec<(String, String)> = site
        .codes
        .iter()
        .zip(site.operations)
        .map(|(code, id)| (format!("/api/posts-{code}.json"), id.to_string()))
        .collect();
    assert_eq!(post_lists, expected, "{name}: openapi.json's post lists");
    // The API index lists the same operations in the same order: the default first.
    let index = copy.json("api/index.json");
    let listed: Vec<(String, String)> = index["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            e["pathTemplate"]
                .as_str()
                .unwrap()
                .starts_with("/api/posts-")
        })
        .map(|e| {
            (
                e["pathTemplate"].as_str().unwrap().to_string(),
                e["operationId"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(listed, expected, "{name}: api/index.json's post lists");
    // llms.txt names the languages in words; no document names a language the site lacks.
    let llms = copy.read("llms.txt");
    assert!(llms.contains(site.in_words), "{name}: llms.txt:\n{llms}");
    for (path, bytes) in read_tree(&copy.out()) {
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        assert!(
            !text.to_lowercase().contains("bilingual"),
            "{name}: {path} says bilingual"
        );
        for word in site.never_named {
            assert!(!text.contains(word), "{name}: {path} names {word}");
        }
    }
    // The agents' tools: the MCP server card's and the WebMCP module's lang enum.
    let card_tools = common::card_tools(&copy.out());
    let enums = lang_enums(&card_tools);
    assert!(enums.len() >= 3, "{name}: tools taking a lang: {enums:?}");
    for (tool, lang) in &enums {
        assert_eq!(*lang, json!(codes), "{name}: the card's {tool}");
    }
    let module = copy.read(".well-known/mcp/tools.js");
    let start = module.find("const TOOLS = ").expect("the tools table") + "const TOOLS = ".len();
    let end = start + module[start..].find("];\n").expect("its end") + 1;
    let module_tools: Vec<Value> = serde_json::from_str(&module[start..end]).unwrap();
    assert_eq!(lang_enums(&module_tools), enums, "{name}: tools.js");
    // Series titles in each language.
    for (code, title) in site.codes.iter().zip(site.series_titles) {
        let listing = copy.json(&format!("api/series/{code}/index.json"));
        assert_eq!(
            listing["series"][0]["title"], *title,
            "{name}: the series' title in `{code}`"
        );
    }
    // Every JSON file validates against the site's own description.
    let api_files = read_tree(&copy.out())
        .keys()
        .filter(|p| p.starts_with("api/"))
        .count();
    assert_eq!(schema::validate_build(&copy.out()), api_files, "{name}");
}

#[test]
fn each_site_publishes_exactly_its_languages() {
    for site in &SITES {
        let copy = Copy::of(site.folder);
        let run = copy.build();
        assert_publishes_its_languages(site, &copy);
        // A folder of a language the site does not have: one warning, naming the site's.
        let unread: Vec<String> = run
            .warnings()
            .into_iter()
            .map(|w| w.message)
            .filter(|m| m.contains("which is not one of the site's languages"))
            .collect();
        let expected: Vec<String> = match site.folder {
            "en-fr-de" => vec![
                "1 file in `es`, which is not one of the site's languages (`en`, `fr`, `de`): \
                 not read"
                    .into(),
            ],
            _ => vec![],
        };
        assert_eq!(unread, expected, "{}: {}", site.folder, run.stderr);
    }
}

/// The conformance harness's fixture over a language site: built, then built again without
/// the default language's only post of one tag (a removed timeline, 410).
fn conformance_fixture(site: &Expected) -> Fixture {
    Fixture::of(SiteSource::Folder(fixture(site.folder)), TODAY)
}

/// Each language's post twins answer where its pages live (the default language's at the
/// site's root, the others under `/{code}`): a page's URL with `Accept: text/markdown`, on
/// `host` at `addr`, gives the twin's Markdown.
fn assert_twins_negotiated(host: &str, site: &Expected, out: &Path, addr: SocketAddr) {
    for (i, code) in site.codes.iter().enumerate() {
        let folder = match i {
            0 => out.join("blog"),
            _ => out.join(code).join("blog"),
        };
        let Some(twin) = read_tree(&folder).into_keys().next() else {
            continue;
        };
        let prefix = match i {
            0 => String::new(),
            _ => format!("/{code}"),
        };
        let page = format!("{prefix}/blog/{}/", twin.trim_end_matches(".md"));
        let reply = client::request(addr, "GET", &page, &[("Accept", "text/markdown")]).unwrap();
        assert_eq!(reply.status, 200, "{host}: {}: {page}", site.folder);
        assert_eq!(
            reply.header("content-type"),
            Some("text/markdown; charset=utf-8"),
            "{host}: {}: {page}",
            site.folder
        );
    }
}

#[test]
fn serve_holds_the_contract_on_every_site() {
    for site in &SITES {
        let fixture = conformance_fixture(site);
        let (_serve, addr) = conformance::serve_conforms(&fixture);
        assert_twins_negotiated("content-api serve", site, &fixture.out(), addr);
        // Each of the site's post lists answers; another language's is the contract's 404.
        for code in site.codes {
            let reply = client::request(addr, "GET", &format!("/api/posts-{code}.json"), &[]);
            assert_eq!(reply.unwrap().status, 200, "{}: {code}", site.folder);
        }
        let reply = client::request(addr, "GET", "/api/posts-es.json", &[]).unwrap();
        assert_eq!(reply.status, 404, "{}", site.folder);
        let problem: Value = serde_json::from_slice(&reply.body).unwrap();
        assert_eq!(problem["instance"], "/api/posts-es.json", "{}", site.folder);
    }
}

#[test]
fn nginx_holds_the_contract_on_every_site() {
    let Some(nginx) = conformance::debian_nginx_program() else {
        return;
    };
    for site in &SITES {
        conformance::nginx_conforms(&nginx, &conformance_fixture(site));
    }
}

#[test]
fn cloudflare_pages_holds_the_contract_on_every_site() {
    let Some(wrangler) = need::WRANGLER.program() else {
        return;
    };
    for site in &SITES {
        let fixture = conformance_fixture(site);
        let (_host, addr) = conformance::wrangler_conforms(&wrangler, &fixture);
        assert_twins_negotiated("wrangler pages dev", site, &fixture.out(), addr);
    }
}

#[test]
fn content_api_mcp_offers_the_sites_languages() {
    let site = &SITES[3];
    let copy = Copy::of(site.folder);
    copy.build();
    let out = copy.out();
    let mut client = common::McpClient::start(&["--out", out.to_str().unwrap()]);
    assert_eq!(client.tools(), common::card_tools(&out), "the card's tools");
    for code in site.codes {
        let result = client.call("list_series", &json!({ "lang": code }));
        assert_ne!(result["isError"], json!(true), "{code}: {result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        let listing: Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            listing,
            copy.json(&format!("api/series/{code}/index.json")),
            "{code}"
        );
    }
    let result = client.call("list_series", &json!({ "lang": "en" }));
    assert_eq!(result["isError"], json!(true), "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("ja, ko, ru, zh-cn"), "{text}");
    assert!(client.close().success());
}

/// `content-api new` takes the site's languages: the default without `--lang`, and a
/// language the site does not have is refused, naming the site's.
#[test]
fn new_post_writes_in_the_sites_languages_only() {
    let copy = Copy::of("ko");
    let refused = copy.run(&[
        "new",
        "post",
        "Bonjour",
        "--lang",
        "fr",
        "--date",
        "2024-05-20",
    ]);
    refused.assert_code(2);
    assert!(
        refused
            .stderr
            .contains("`fr` is not one of the site's languages (`ko`); nothing was written"),
        "{}",
        refused.stderr
    );
    assert!(!copy.root().join("content/blog/fr").exists());
    let written = copy.run(&["new", "post", "Hello", "--date", "2024-05-20"]);
    written.assert_success();
    let path = written.stdout.trim();
    assert!(
        path.ends_with("content/blog/ko/2024-05-20_hello.md"),
        "{path}"
    );
    assert!(copy.root().join(path).is_file(), "{path}");
    // A second language of another site: its folder, whatever the case of `--lang`.
    let copy = Copy::of("ja-ko-ru-zh");
    let default = copy.run(&["new", "post", "Hello", "--date", "2024-05-20"]);
    default.assert_success();
    assert!(
        default
            .stdout
            .trim()
            .ends_with("content/blog/ja/2024-05-20_hello.md"),
        "{}",
        default.stdout
    );
    let refused = copy.run(&["new", "deck", "Talk", "--lang", "en"]);
    refused.assert_code(2);
    assert!(
        refused
            .stderr
            .contains("`en` is not one of the site's languages (`ja`, `ko`, `ru`, `zh-cn`)"),
        "{}",
        refused.stderr
    );
    let chinese = copy.run(&[
        "new",
        "post",
        "Hello",
        "--lang",
        "zh-CN",
        "--date",
        "2024-05-20",
    ]);
    chinese.assert_success();
    assert!(
        chinese
            .stdout
            .trim()
            .ends_with("content/blog/zh-CN/2024-05-20_hello.md"),
        "the site's own folder, `zh-CN`: {}",
        chinese.stdout
    );
    // The slug is checked where the language's posts are: taken, in `zh-CN/`.
    let again = copy.run(&[
        "new",
        "post",
        "Hello",
        "--lang",
        "zh-cn",
        "--date",
        "2024-05-21",
    ]);
    again.assert_code(2);
    assert!(
        again.stderr.contains("already has the slug `hello`"),
        "{}",
        again.stderr
    );
    copy.build();
    for (code, slug) in [("ja", "hello"), ("zh-cn", "hello")] {
        let posts = copy.json(&format!("api/posts-{code}.json"));
        assert_eq!(posts[0]["slug"], slug, "{code}: {posts}");
    }
}

/// Waits until `out` equals a fresh `--once` build of the site as it is now (into a folder
/// beside it, from the same `watch.toml` and history, which such a build only reads), byte for
/// byte: the deploy record and the state folder aside. Fails after [`PATIENCE`].
fn settles(copy: &Copy, step: &str, serve_log: &Path) -> BTreeMap<String, Vec<u8>> {
    let fresh_out = copy.dir.path().join(format!("fresh-{step}"));
    let run = copy.run(&[
        "--once",
        "--today",
        TODAY,
        "--out",
        fresh_out.to_str().unwrap(),
    ]);
    run.assert_success();
    let fresh = live_snapshot(&fresh_out);
    let start = Instant::now();
    loop {
        let output = live_snapshot(&copy.out());
        if output == fresh {
            return output;
        }
        if start.elapsed() > PATIENCE {
            let differing: Vec<&String> = fresh
                .keys()
                .chain(output.keys())
                .filter(|p| fresh.get(*p) != output.get(*p))
                .collect();
            panic!(
                "after {step}, the output never matched a fresh build: {differing:?}\nlog:\n{}",
                std::fs::read_to_string(serve_log).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn status(addr: SocketAddr, path: &str) -> u16 {
    client::request(addr, "GET", path, &[]).unwrap().status
}

#[test]
fn a_change_of_languages_in_watch_mode_publishes_as_a_fresh_build_would() {
    let copy = Copy::of("en-fr-de");
    // A recorded build first: the history then holds the German paths.
    copy.build();
    let history = std::fs::read_to_string(copy.root().join("content-api.history")).unwrap();
    assert!(history.contains("\napi/posts-de.json\n"), "{history}");
    let log = copy.dir.path().join("serve.log");
    let mut serve = Command::new(common::BIN);
    serve
        .env_remove("CI")
        .args(["serve", "--addr", "127.0.0.1:0", "--today", TODAY])
        .current_dir(copy.root());
    let (_serve, addr) = conformance::spawn_serve(serve, &log);
    assert_eq!(status(addr, "/api/posts-es.json"), 404);

    // A language added: its folder, read now, is published.
    copy.set_languages(&["en", "fr", "de", "es"]);
    let output = settles(&copy, "adding es", &log);
    assert!(output.contains_key("api/posts-es.json"));
    assert!(output.contains_key("api/series/es/notebook.json"));
    assert!(output.contains_key("es/blog/first-steps.md"));
    assert!(
        String::from_utf8_lossy(&output["llms.txt"])
            .contains("in English, French, German, and Spanish, as static JSON")
    );
    assert_eq!(status(addr, "/api/posts-es.json"), 200);

    // A language removed: its files go, and its published paths are gone (410).
    copy.set_languages(&["en", "fr", "es"]);
    let output = settles(&copy, "removing de", &log);
    let found = languages_in_paths(&copy.out());
    let expected: BTreeSet<String> = ["en", "fr", "es"].map(String::from).into();
    assert_eq!(found["posts"], expected);
    assert_eq!(found["series"], expected);
    assert!(!output.keys().any(|path| path.starts_with("de/")));
    let gone = String::from_utf8_lossy(&output["_nginx_gone.conf"]).into_owned();
    let worker = String::from_utf8_lossy(&output["_worker.js"]).into_owned();
    for path in [
        "/api/posts-de.json",
        "/api/series/de/index.json",
        "/api/series/de/notebook.json",
        "/api/timeline/de/rust.json",
        "/api/slides-timeline/de.json",
    ] {
        let location = format!("location = {path} {{");
        assert!(
            gone.contains(&location),
            "{path} in _nginx_gone.conf:\n{gone}"
        );
        let entry = format!("\"{}\"", &path[1..]);
        assert!(worker.contains(&entry), "{path} in _worker.js's gone table");
        assert_eq!(status(addr, path), 410, "{path} through serve");
    }
    assert_eq!(status(addr, "/api/posts-fr.json"), 200);

    // The default changed: French at the site's root, English under /en.
    copy.set_languages(&["fr", "en", "es"]);
    let output = settles(&copy, "making fr the default", &log);
    assert!(output.contains_key("blog/night-train.md"));
    assert!(output.contains_key("en/blog/borrowing.md"));
    assert!(!output.contains_key("fr/blog/first-steps.md"));
    let openapi: Value = serde_json::from_slice(&output["openapi.json"]).unwrap();
    assert_eq!(
        openapi["components"]["schemas"]["Language"]["enum"],
        json!(["fr", "en", "es"])
    );
}
