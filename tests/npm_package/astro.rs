//! The Astro integration (`@content-api/astro`, installed alone as `astro add` installs it: the
//! launcher and the binary come as its dependencies) in a site shaped like the seed's
//! (`tests/fixtures/astro-dev-site`: content collections in `src/content`, a page that fetches
//! `/api/posts-en.json`), with real Astro of the current and the previous major from the npm
//! registry: `astro dev` answers the API on its own origin as production does and shows edits,
//! `astro build` writes the API with no other command; and `serve --site` in front of a plain
//! `astro dev`.

use super::cdp::{Browser, Page, chromium};
use super::common::{self, Log, http, spawn_with_output_logged};
use super::{
    Manager, NodeOnly, VERSION, assert_ran, integration_name, integration_tarball, launcher_name,
    launcher_tarball, packages_and_node, platform_name, platform_tarball, run, text,
};
use serde_json::Value;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The newest English post of the sample content, which the page shows as "latest".
const LATEST_POST: &str = "blog/en/2026-11-08_a-remote-week-in-salento.md";
const LATEST_TITLE: &str = "A Remote Week in Salento";

/// How long a dev server may take to start (a cold Vite on a busy CI machine).
const START_LIMIT: Duration = Duration::from_secs(120);

/// A running dev server with its output (stdout and stderr) collected; stopped on drop.
struct DevServer {
    child: Child,
    log: Log,
}

impl DevServer {
    /// Spawns `command` in a process group of its own, as a terminal runs a command: `npx` runs
    /// the dev server through a shell, and Ctrl-C reaches every process of the group.
    fn spawn(command: &mut Command) -> DevServer {
        let (child, log) = spawn_with_output_logged(
            command.process_group(0).stdin(Stdio::null()),
            "the dev server",
        );
        DevServer { child, log }
    }

    fn said(&self, needle: &str) -> bool {
        self.log
            .lock()
            .unwrap()
            .iter()
            .any(|line| line.contains(needle))
    }

    fn wait_until_said(&self, needle: &str, limit: Duration) {
        let wait = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            http::wait_for(
                &format!("{needle:?} in the dev server's log"),
                limit,
                || self.said(needle),
            )
        }));
        if let Err(panic) = wait {
            eprintln!(
                "--- the dev server's log ---\n{}",
                self.log.lock().unwrap().join("\n")
            );
            std::panic::resume_unwind(panic);
        }
    }

    /// Stops it as Ctrl-C in its terminal would (SIGINT to the whole group) and waits for it.
    fn stop(mut self) {
        self.signal_group("-INT");
        let _ = self.child.wait();
    }

    fn signal_group(&self, signal: &str) {
        let _ = Command::new("kill")
            .args([signal, "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
    }
}

impl Drop for DevServer {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "--- the dev server's log ---\n{}",
                self.log.lock().unwrap().join("\n")
            );
        }
        self.signal_group("-KILL");
        let _ = self.child.wait();
    }
}

/// What a site installs by name, besides Astro.
#[derive(Clone, Copy)]
enum Installs {
    /// `@content-api/astro` (which brings the launcher, which brings the binary).
    Integration,
    /// `@content-api/cli` alone, for a site that runs the command itself.
    Launcher,
}

/// `fixture` copied with the sample content in `src/content`, Astro `astro` and content-api's
/// package `installs` installed from the tarballs with npm (the packages it depends on too,
/// from their tarballs where npm would take them from the registry).
fn installed_site(
    env: &NodeOnly,
    dir: &Path,
    platform: &str,
    fixture: &str,
    astro: &str,
    installs: Installs,
) -> tempfile::TempDir {
    let site = tempfile::tempdir().unwrap();
    for (path, bytes) in common::read_tree(&common::repo().join("tests/fixtures").join(fixture)) {
        let target = site.path().join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, bytes).unwrap();
    }
    common::copy_sample_content(&site.path().join("src/content"));
    let mut dependencies = vec![(platform_name(platform), platform_tarball(dir, platform))];
    let (name, tarball) = match installs {
        Installs::Integration => {
            dependencies.push((launcher_name(), launcher_tarball(dir)));
            (integration_name(), integration_tarball(dir))
        }
        Installs::Launcher => (launcher_name(), launcher_tarball(dir)),
    };
    Manager::Npm.override_packages(site.path(), &dependencies);
    let install = run(&mut Manager::Npm.command(
        env,
        site.path(),
        &["install", "--save-dev", astro, tarball.to_str().unwrap()],
    ));
    assert_ran(&install, &format!("npm install {astro} {name}"));
    let installed: Value = serde_json::from_slice(
        &std::fs::read(site.path().join("node_modules/astro/package.json")).unwrap(),
    )
    .unwrap();
    eprintln!(
        "installed astro {} and {name} {VERSION}",
        installed["version"]
    );
    site
}

/// `astro dev` on a free port of 127.0.0.1.
fn astro_dev(env: &NodeOnly, root: &Path) -> (DevServer, String) {
    let port = http::free_port();
    let server = DevServer::spawn(
        env.command("npx", root)
            .args(["--no-install", "astro", "dev", "--host", "127.0.0.1"])
            .args(["--port", &port.to_string()])
            // The author's machine, not CI: the dev server runs as it does for them.
            .env_remove("CI"),
    );
    (server, format!("127.0.0.1:{port}"))
}

/// The files of `folder` (relative paths and bytes).
fn tree(folder: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    common::read_tree(folder).into_iter().collect()
}

/// The title the page shows as the latest post, once its script ran. One tab for every visit:
/// each page holds an event stream, and a browser opens at most six connections to an origin.
fn latest_shown(page: &mut Page<'_>, url: &str) -> String {
    page.goto(url);
    page.wait_for(
        "document.getElementById('latest')?.textContent !== 'loading…'",
        "the page's fetch of /api/posts-en.json",
    );
    if let Some(dir) = std::env::var_os("CONTENT_API_SCREENSHOTS") {
        page.screenshot(&Path::new(&dir).join("astro-dev.png"));
    }
    page.eval("document.getElementById('latest').textContent")
        .as_str()
        .unwrap()
        .to_string()
}

/// Everything the integration promises, on one Astro major.
fn dev_and_build_with_the_integration(astro: &str) {
    let Some((dir, platform, node)) = packages_and_node() else {
        return;
    };
    let Some(chromium) = chromium() else {
        return;
    };
    let env = NodeOnly::new(&node);
    let site = installed_site(
        &env,
        &dir,
        platform,
        "astro-dev-site",
        astro,
        Installs::Integration,
    );
    let root = site.path();
    let public_before = tree(&root.join("public"));
    let src_before = tree(&root.join("src"));
    let functions_before = tree(&root.join("functions"));
    let site_llms = std::fs::read_to_string(root.join("public/llms.txt")).unwrap();

    let (dev, addr) = astro_dev(&env, root);
    dev.wait_until_said("the API is served here too", START_LIMIT);
    let origin = format!("http://{addr}");

    // Astro's own page, with the tool's live reload added.
    let home = http::get(&addr, "/", &[]);
    assert_eq!(home.status, 200);
    assert!(
        home.text().contains("<h1") && home.text().contains("Notes"),
        "{}",
        home.text()
    );
    assert!(home.text().contains("/__preview.js"));
    // The API, as production answers it.
    let posts = http::get(&addr, "/api/posts-en.json", &[]);
    assert_eq!(posts.status, 200);
    assert_eq!(posts.header("cache-control"), Some("public, max-age=3600"));
    assert_eq!(posts.header("access-control-allow-origin"), Some("*"));
    assert_eq!(http::json(&posts)[0]["title"], LATEST_TITLE);
    let missing = http::get(&addr, "/api/timeline/en/nope.json", &[]);
    assert_eq!(missing.status, 404);
    assert_eq!(
        http::json(&missing)["instance"],
        "/api/timeline/en/nope.json"
    );
    let post = http::request(&addr, "POST", "/api/posts-en.json", &[], b"{}");
    assert_eq!(post.status, 405);
    assert_eq!(post.header("allow"), Some("GET, HEAD"));
    // The documents and the twins, with links to this origin.
    let llms_full = http::get(&addr, "/llms-full.txt", &[]);
    assert_eq!(llms_full.status, 200);
    assert!(
        llms_full.text().contains("http://localhost:"),
        "{}",
        llms_full.text()
    );
    // What the site serves itself stays the site's, as once deployed (the tool never
    // overwrites a file it did not write): its own public/llms.txt...
    let llms = http::get(&addr, "/llms.txt", &[]);
    assert_eq!(llms.status, 200);
    assert_eq!(llms.text(), site_llms, "the site's public/llms.txt");
    // ...and what its own endpoint answers at a twin's path (src/pages/blog/[slug].md.ts).
    let own_twin = http::get(&addr, "/blog/hello-from-medellin.md", &[]);
    assert_eq!(own_twin.status, 200);
    assert_eq!(
        own_twin.text(),
        "# The site's own Markdown for hello-from-medellin\n",
        "the site's endpoint"
    );
    // A host's configuration file is not served as a file, the site's public/_headers either:
    // a 404, as Cloudflare Pages answers.
    let headers_file = http::get(&addr, "/_headers", &[]);
    assert_eq!(headers_file.status, 404, "{}", headers_file.text());
    assert!(!headers_file.text().contains("X-Site-Rule"));
    let twin = http::get(
        &addr,
        "/blog/hello-from-medellin",
        &[("Accept", "text/markdown")],
    );
    assert_eq!(twin.status, 200);
    assert!(
        twin.header("content-type")
            .unwrap()
            .starts_with("text/markdown")
    );
    // The site's own file in public/ stays the site's; Vite's and Astro's paths stay theirs.
    let robots = http::get(&addr, "/robots.txt", &[]);
    assert_eq!(robots.text(), "User-agent: *\nAllow: /\n");
    let client = http::get(&addr, "/@vite/client", &[]);
    assert_eq!(client.status, 200);
    let unknown = http::get(&addr, "/no-such-page", &[]);
    assert_eq!(unknown.status, 404);
    assert!(
        !unknown.text().contains("resource_not_found"),
        "Astro's own 404"
    );

    // A page loaded by a browser that may hold older API answers (its generation cookie is not
    // the output's) tells it to drop its cached copies; one that is current does not.
    let navigate = |cookie: &str| {
        http::get(
            &addr,
            "/",
            &[("Sec-Fetch-Dest", "document"), ("Cookie", cookie)],
        )
    };
    let stale = navigate("content-api-generation=0-0");
    assert_eq!(stale.header("clear-site-data"), Some("\"cache\""));
    let cookie = stale
        .header("set-cookie")
        .expect("the generation cookie")
        .to_string();
    let current = cookie.split(';').next().unwrap();
    assert_eq!(navigate(current).header("clear-site-data"), None);
    assert_eq!(
        posts.header("set-cookie"),
        None,
        "the API's answers are production's"
    );

    // Vite's hot reload still connects, through its token as its client does.
    let hmr_path = http::vite_hmr_path(&client.text());
    let mut hmr = http::WebSocket::connect(&addr, &hmr_path, Some("vite-hmr"));
    assert!(hmr.next_text().contains("connected"));

    // The dev server keeps the contract: `content-api verify` against it passes.
    let verify = Command::new(common::BIN)
        .env_remove("CI")
        .args([
            "verify",
            &format!("http://localhost:{}", addr.rsplit(':').next().unwrap()),
        ])
        .output()
        .unwrap();
    assert!(
        verify.status.success(),
        "verify against astro dev:\n{}{}",
        text(&verify.stdout),
        text(&verify.stderr)
    );

    // A save shows in the API and, in a real browser, on the page that reads it: the open page
    // reloads itself (the tool's live reload), and a page opened later reads the new answer,
    // not the copy the API's one-hour Cache-Control would keep.
    let mut browser = Browser::launch(&chromium);
    let mut page = browser.new_page();
    assert_eq!(latest_shown(&mut page, &origin), LATEST_TITLE);
    let post_path = root.join("src/content").join(LATEST_POST);
    let original = std::fs::read_to_string(&post_path).unwrap();
    let revised = "A Remote Week in Salento, Revised";
    let retitled = original.replacen(LATEST_TITLE, revised, 1);
    assert_ne!(original, retitled);
    std::fs::write(&post_path, &retitled).unwrap();
    http::wait_for("the new title in the API", Duration::from_secs(30), || {
        http::json(&http::get(&addr, "/api/posts-en.json", &[]))[0]["title"] == revised
    });
    let mut shown = None;
    http::wait_for(
        "the open page to reload itself with the new title",
        Duration::from_secs(30),
        || {
            shown = page.try_eval("document.getElementById('latest')?.textContent");
            shown.as_ref().is_some_and(|title| title == revised)
        },
    );
    assert_eq!(
        latest_shown(&mut page, &origin),
        revised,
        "a later visit reads the new answer"
    );

    // A broken file: the dev server's log names it, the last good version stays served.
    let broken = "blog/en/2026-11-09_broken.md";
    std::fs::write(
        root.join("src/content").join(broken),
        "---\ntitle: \"Broken\ndescription: x\n---\n",
    )
    .unwrap();
    dev.wait_until_said(broken, Duration::from_secs(30));
    assert!(
        dev.log
            .lock()
            .unwrap()
            .iter()
            .any(|line| line.contains("error") && line.contains("content-api")),
        "an error line from the tool"
    );
    assert_eq!(http::get(&addr, "/api/posts-en.json", &[]).status, 200);
    // ...and the tool's overlay shows it over the site's page.
    page.goto(&origin);
    page.wait_for(
        "document.getElementById('content-api-overlay')?.shadowRoot?.textContent.includes('2026-11-09_broken.md')",
        "the content error overlay on Astro's page",
    );
    if let Some(dir) = std::env::var_os("CONTENT_API_SCREENSHOTS") {
        page.screenshot(&Path::new(&dir).join("astro-dev-error.png"));
    }
    std::fs::remove_file(root.join("src/content").join(broken)).unwrap();

    // A content error reaches the dev server's log as one message: its location and its help
    // with its `error:` line, not as separate lines of their own.
    let dev_log: Vec<String> = dev.log.lock().unwrap().clone();
    let error_at = dev_log
        .iter()
        .position(|line| line.contains("error") && line.contains("content-api"))
        .expect("an error line");
    assert!(
        dev_log[error_at..]
            .iter()
            .take(12)
            .any(|line| line.contains(broken)),
        "the file follows its error line: {dev_log:#?}"
    );

    // Stopping the dev server stops the tool's server with it.
    let dev_out = root.join("node_modules/.astro/content-api");
    assert!(
        dev_out.join("api/posts-en.json").is_file(),
        "the dev output is in Astro's cache"
    );
    dev.stop();
    http::wait_for(
        "the tool's server to stop with astro dev",
        Duration::from_secs(10),
        || !running_with_argument(&dev_out),
    );
    // astro dev wrote nothing into the site's Pages Functions (the route file that
    // imports the edge layer is `build`'s to write).
    assert_eq!(
        tree(&root.join("functions")),
        functions_before,
        "functions/ is untouched by astro dev"
    );

    // The dev server's log has no advice for a build: a dev session never records history.
    assert!(
        !dev_log.iter().any(|line| line.contains("records nothing")),
        "{dev_log:#?}"
    );
    // The types of the integration's options ship with it.
    let integration = root.join("node_modules/@content-api/astro");
    assert!(integration.join("index.d.ts").is_file());

    // `astro build` alone writes the API into dist/, published where Astro's `site` says.
    let config = root.join("astro.config.mjs");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replace(
            "https://lucia-montoya.example",
            "https://notes.lucia.example",
        ),
    )
    .unwrap();
    let build = run(&mut Manager::Npm.command(&env, root, &["run", "build"]));
    assert_ran(&build, "npm run build (astro build)");
    let dist = root.join("dist");
    assert!(dist.join("index.html").is_file());
    let built: Value =
        serde_json::from_slice(&std::fs::read(dist.join("api/posts-en.json")).unwrap()).unwrap();
    assert_eq!(built[0]["title"], "A Remote Week in Salento, Revised");
    for document in [
        "api/index.json",
        "openapi.json",
        "llms-full.txt",
        "_headers",
        "_content-api.js",
    ] {
        assert!(dist.join(document).is_file(), "dist/{document} is missing");
    }
    let llms = std::fs::read_to_string(dist.join("llms-full.txt")).unwrap();
    assert!(llms.contains("https://notes.lucia.example/"), "{llms}");
    assert!(!llms.contains("https://lucia-montoya.example"), "{llms}");
    // The site's own files won there too, as they did in astro dev.
    assert_eq!(
        std::fs::read_to_string(dist.join("llms.txt")).unwrap(),
        site_llms
    );
    assert_eq!(
        std::fs::read_to_string(dist.join("blog/hello-from-medellin.md")).unwrap(),
        "# The site's own Markdown for hello-from-medellin\n"
    );
    // `build` joined the API's edge layer to the site's Pages Functions.
    let route = std::fs::read_to_string(root.join("functions/[[content_api]].js")).unwrap();
    assert!(route.contains("../dist/_content-api.js"), "{route}");
    assert_eq!(
        std::fs::read_to_string(dist.join("robots.txt")).unwrap(),
        "User-agent: *\nAllow: /\n"
    );

    // Nothing was written into public/ or src/ but the author's own edits.
    assert_eq!(
        tree(&root.join("public")),
        public_before,
        "public/ is untouched"
    );
    let mut src_expected = src_before;
    src_expected.insert(format!("content/{LATEST_POST}"), retitled.into_bytes());
    let src_after = tree(&root.join("src"));
    let changed: Vec<&String> = src_after
        .iter()
        .filter(|(path, bytes)| src_expected.get(*path) != Some(bytes))
        .map(|(path, _)| path)
        .chain(
            src_expected
                .keys()
                .filter(|path| !src_after.contains_key(*path)),
        )
        .collect();
    assert!(
        changed.is_empty(),
        "src/ changed beyond the author's edits: {changed:?}"
    );
}

/// Whether a process runs with `argument` in its command line (the tool's dev server names its
/// output folder).
fn running_with_argument(argument: &Path) -> bool {
    let needle = argument.to_string_lossy().into_owned();
    std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline")).is_ok_and(|cmdline| {
            cmdline
                .split(|b| *b == 0)
                .any(|part| part == needle.as_bytes())
        })
    })
}

#[test]
fn the_astro_integration_serves_the_api_in_astro_dev_and_builds_it_in_astro_build_astro_7() {
    dev_and_build_with_the_integration("astro@7");
}

#[test]
fn the_astro_integration_serves_the_api_in_astro_dev_and_builds_it_in_astro_build_astro_6() {
    dev_and_build_with_the_integration("astro@6");
}

/// `serve --site` in front of a plain `astro dev` (no integration): one origin, Astro's pages
/// and hot reload through it, the API the tool's.
#[test]
fn serve_site_in_front_of_astro_dev() {
    let Some((dir, platform, node)) = packages_and_node() else {
        return;
    };
    let env = NodeOnly::new(&node);
    let site = installed_site(
        &env,
        &dir,
        platform,
        "astro-npm-site",
        "astro@7",
        Installs::Launcher,
    );
    let root = site.path();
    let (dev, astro_addr) = astro_dev(&env, root);
    dev.wait_until_said(&astro_addr, START_LIMIT);
    let out = tempfile::tempdir().unwrap();
    let binary: PathBuf = root
        .join("node_modules")
        .join(platform_name(platform))
        .join("content-api");
    let serve = DevServer::spawn(
        Command::new(&binary)
            .env_remove("CI")
            .args([
                "serve",
                "--addr",
                "127.0.0.1:0",
                "--site",
                &format!("http://{astro_addr}"),
            ])
            .arg("--out")
            .arg(out.path())
            .current_dir(root),
    );
    serve.wait_until_said("listening on", Duration::from_secs(30));
    let addr = serve
        .log
        .lock()
        .unwrap()
        .iter()
        .find_map(|line| line.strip_prefix("listening on http://"))
        .unwrap()
        .trim_end_matches('/')
        .to_string();

    let home = http::get(&addr, "/", &[]);
    assert_eq!(home.status, 200);
    assert!(
        home.text().contains("Hello from Medellín"),
        "Astro's page: {}",
        home.text()
    );
    assert_eq!(
        http::json(&http::get(&addr, "/api/posts-en.json", &[]))[0]["title"],
        LATEST_TITLE
    );
    let client = http::get(&addr, "/@vite/client", &[]);
    assert_eq!(client.status, 200);
    let hmr_path = http::vite_hmr_path(&client.text());
    let mut hmr = http::WebSocket::connect(&addr, &hmr_path, Some("vite-hmr"));
    assert!(
        hmr.next_text().contains("connected"),
        "Vite's hot reload through serve --site"
    );
    drop(serve);
    dev.stop();
}
