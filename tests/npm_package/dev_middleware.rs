//! The Astro integration's middleware (`npm/content-api/astro/index.mjs`, from the repository,
//! packed with the launcher by `scripts/npm-pack --launcher-only` and laid out as installed) in
//! a stand-in for `astro dev`, run by Node: a plain HTTP server with a connect-style stack
//! where Vite's internal middlewares (its host check, named as Vite names it) come after the
//! integration's setup hook, and Astro's own, which answers an HTML 404, comes last. It checks
//! what no real Astro run can provoke on demand: a tool that stalls or is gone, and the order
//! of the host check; and which of the site's paths stay the site's (its public/ files, its
//! endpoints from `astro:routes:resolved`, never a host file). (The integration in real Astro
//! is tests/npm_package/astro.rs.)

use super::common::{self, http};
use super::{integration_name, js_packages_from_checkout, node};
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// What the stand-in runs: Vite's host check (loopback names only), the integration, Astro.
const HARNESS: &str = r#"
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
const { default: contentApi } = await import(process.env.INTEGRATION);
const root = process.cwd();
const integration = contentApi();
const logger = { info() {}, warn() {}, error() {} };
integration.hooks["astro:config:done"]({
  config: {
    root: pathToFileURL(root + "/"),
    publicDir: pathToFileURL(root + "/public/"),
    cacheDir: pathToFileURL(root + "/.astro/"),
    output: "static",
    build: {},
  },
  logger,
});
// Astro's route list: endpoints of the site's at paths the tool writes too (one answered, two
// Astro's 404 as a getStaticPaths without that path: one the tool has, one it has not), one of
// Astro's own (internal: not the site's), one rendered on demand (no file once built), and
// one under /api/ (the tool's by contract).
const endpoint = (regex, more) => ({ type: "endpoint", origin: "project", isPrerendered: true, patternRegex: regex, ...more });
integration.hooks["astro:routes:resolved"]({
  routes: [
    endpoint(/^\/llms-full\.txt\/?$/),
    endpoint(/^\/openapi\.json\/?$/),
    endpoint(/^\/no-twin\.md\/?$/),
    endpoint(/^\/developers\.md\/?$/, { origin: "internal" }),
    endpoint(/^\/llms\.txt\/?$/, { isPrerendered: false }),
    endpoint(/^\/api\/index\.json\/?$/),
  ],
  logger,
});
const stack = [];
const server = { middlewares: { stack } };
integration.hooks["astro:server:setup"]({ server });
// Vite adds its internal middlewares after the plugins' setup hooks.
stack.push({
  route: "",
  handle: function viteHostCheckMiddleware(request, response, next) {
    const name = (request.headers.host ?? "").replace(/:\d+$/, "");
    if (["localhost", "127.0.0.1"].includes(name)) return next();
    response.writeHead(403, { "content-type": "text/plain" });
    response.end("Blocked request. This host is not allowed.");
  },
});
// Vite's public/ files, then Astro: the site's endpoint, else its HTML 404.
stack.push({
  route: "",
  handle: (request, response, next) => {
    const file = path.join(root, "public", decodeURIComponent(request.url.split("?")[0]));
    if (!file.startsWith(path.join(root, "public") + path.sep) || !fs.statSync(file, { throwIfNoEntry: false })?.isFile()) {
      return next();
    }
    response.writeHead(200, { "content-type": "text/plain" });
    response.end(fs.readFileSync(file));
  },
});
stack.push({
  route: "",
  handle: (request, response) => {
    if (request.url === "/llms-full.txt") {
      response.writeHead(200, { "content-type": "text/plain" });
      return response.end("the site's endpoint");
    }
    response.writeHead(404, { "content-type": "text/html" });
    response.end("<html>Astro's 404</html>");
  },
});
const dev = http.createServer((request, response) => {
  let at = 0;
  const next = () => stack[at++].handle(request, response, next);
  next();
});
dev.listen(0, "127.0.0.1", () => {
  integration.hooks["astro:server:start"]({ address: dev.address() });
  console.log(`dev server on 127.0.0.1:${dev.address().port}`);
});
"#;

/// The stand-in dev server with the integration, running `tool` as the binary; killed on drop.
struct DevServer {
    child: Child,
    addr: String,
}

impl DevServer {
    fn start(node: &Path, dir: &Path, tool: &Path, args_dir: &Path) -> DevServer {
        let harness = dir.join("harness.mjs");
        std::fs::write(&harness, HARNESS).unwrap();
        if !dir.join("node_modules").is_dir() {
            js_packages_from_checkout(node, dir);
        }
        let integration = dir
            .join("node_modules")
            .join(integration_name())
            .join("index.mjs");
        let mut child = Command::new(node)
            .arg(&harness)
            .env("INTEGRATION", integration)
            .env("CONTENT_API_BINARY", tool)
            .env_remove("CI")
            .current_dir(args_dir)
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .strip_prefix("dev server on ")
            .unwrap_or_else(|| panic!("the stand-in did not start: {line:?}"))
            .to_string();
        DevServer { child, addr }
    }
}

impl Drop for DevServer {
    fn drop(&mut self) {
        // SAFETY: killpg(2) on the process group this test made for the stand-in.
        unsafe { libc::killpg(self.child.id() as i32, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// An executable Node script `name` in `dir` that stands for the tool: it says it listens on
/// a port where a server accepts and never answers (`silent`), or where nothing listens.
fn tool(node: &Path, dir: &Path, name: &str, silent: bool) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let body = if silent {
        "const s = require('node:net').createServer(() => {});\n\
         s.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${s.address().port}/`));\n"
            .to_string()
    } else {
        format!(
            "console.log('listening on http://127.0.0.1:{}/');\nsetInterval(() => {{}}, 1000);\n",
            http::free_port()
        )
    };
    let path = dir.join(name);
    std::fs::write(&path, format!("#!{}\n{body}", node.display())).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A tool that stalls holds no page of `astro dev` up (the page goes on to Astro
/// within seconds), and an API path it cannot answer, stalled or gone, is a JSON 503, not
/// Astro's HTML 404.
#[test]
fn a_stalled_or_gone_tool_holds_no_page_up_and_the_api_answers_503() {
    let Some(node) = node() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for silent in [true, false] {
        let tool = tool(&node, dir.path(), &format!("tool-{silent}"), silent);
        let dev = DevServer::start(&node, dir.path(), &tool, dir.path());
        let started = Instant::now();
        let page = http::get(&dev.addr, "/blog/a-page", &[]);
        assert_eq!(page.status, 404, "Astro's answer");
        assert!(page.text().contains("Astro's 404"), "{}", page.text());
        let api = http::get(&dev.addr, "/api/posts.json", &[]);
        let took = started.elapsed();
        assert_eq!(api.status, 503, "silent: {silent}: {}", api.text());
        assert_eq!(api.header("content-type"), Some("application/problem+json"));
        let problem = http::json(&api);
        assert_eq!(problem["status"], 503);
        assert_eq!(problem["instance"], "/api/posts.json");
        assert!(
            took < Duration::from_secs(10),
            "silent: {silent}: waited {took:?}"
        );
    }
}

/// The tool is asked after Vite's host check, so a page elsewhere reaching `astro dev`
/// through a name of its own gets Vite's 403, for the API and the tool's pages too; the real
/// binary behind it answers the dev server's own names.
#[test]
fn the_tool_is_asked_after_the_dev_servers_host_check() {
    let Some(node) = node() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let site = common::Site::new();
    let dev = DevServer::start(&node, dir.path(), Path::new(common::BIN), site.root());
    http::wait_for(
        "the API through the stand-in",
        Duration::from_secs(60),
        || http::get(&dev.addr, "/api/index.json", &[]).status == 200,
    );
    for path in [
        "/api/index.json",
        "/llms.txt",
        "/__content-api/",
        "/__events",
    ] {
        let refused = http::get(&dev.addr, path, &[("Host", "evil.example")]);
        assert_eq!(refused.status, 403, "{path}: {}", refused.text());
        assert!(refused.text().contains("Blocked request"), "{path}: Vite's");
    }
    let landing = http::get(&dev.addr, "/__content-api/", &[("Host", "localhost")]);
    assert_eq!(landing.status, 200, "{}", landing.text());
    assert_eq!(landing.header("access-control-allow-origin"), None);
}

/// What the site serves itself stays the site's in `astro dev`, as production decides:
/// a file of its public/ folder (Astro gives the folder with a trailing `/`), a path one of its
/// endpoints answers (Astro's route list; not an internal route of Astro's, and never under
/// /api/, the tool's by contract); a host's configuration file is not served, the site's
/// public/_headers either (Astro's 404); and the tool's session writes nothing into the site's
/// Pages Functions.
#[test]
fn the_sites_own_files_and_endpoints_stay_the_sites_and_host_files_are_not_served() {
    let Some(node) = node() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let site = common::Site::new();
    let root = site.root();
    std::fs::write(root.join("watch.toml"), "").unwrap();
    std::fs::create_dir_all(root.join("public")).unwrap();
    std::fs::write(root.join("public/llms.txt"), "the site's own llms.txt\n").unwrap();
    std::fs::write(root.join("public/_headers"), "/*\n  X-Site-Rule: yes\n").unwrap();
    std::fs::create_dir_all(root.join("functions")).unwrap();
    let middleware = "export const onRequest = (context) => context.next();\n";
    std::fs::write(root.join("functions/_middleware.js"), middleware).unwrap();
    let dev = DevServer::start(&node, dir.path(), Path::new(common::BIN), root);
    http::wait_for(
        "the API through the stand-in",
        Duration::from_secs(60),
        || http::get(&dev.addr, "/api/index.json", &[]).status == 200,
    );
    let llms = http::get(&dev.addr, "/llms.txt", &[]);
    assert_eq!(llms.text(), "the site's own llms.txt\n");
    let endpoint = http::get(&dev.addr, "/llms-full.txt", &[]);
    assert_eq!(endpoint.text(), "the site's endpoint");
    let openapi = http::get(&dev.addr, "/openapi.json", &[]);
    assert_eq!(openapi.status, 200, "the tool's, past Astro's 404");
    assert!(http::json(&openapi)["openapi"].is_string());
    let no_twin = http::get(&dev.addr, "/no-twin.md", &[]);
    assert_eq!(no_twin.status, 404);
    assert!(no_twin.text().contains("Astro's 404"), "{}", no_twin.text());
    assert_eq!(no_twin.header("access-control-allow-origin"), Some("*"));
    let developers = http::get(&dev.addr, "/developers.md", &[]);
    assert_eq!(
        developers.status, 200,
        "the tool's, past Astro's internal route"
    );
    let index = http::get(&dev.addr, "/api/index.json", &[]);
    assert!(http::json(&index).is_object(), "the API is the tool's");
    let preview = http::get(&dev.addr, "/__preview.js", &[]);
    assert_eq!(preview.status, 200, "the tool's own dev path");
    for path in ["/_headers", "/%5Fheaders"] {
        let headers = http::get(&dev.addr, path, &[]);
        assert_eq!(headers.status, 404, "{path}: {}", headers.text());
        assert!(
            headers.text().contains("Astro's 404"),
            "{path}: {}",
            headers.text()
        );
    }
    let functions: Vec<_> = std::fs::read_dir(root.join("functions"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(functions, ["_middleware.js"], "functions/ is untouched");
    assert_eq!(
        std::fs::read_to_string(root.join("functions/_middleware.js")).unwrap(),
        middleware
    );
}
