//! The owners' guides followed from their own text: `docs/guides/no-generator.md` and
//! `docs/guides/hugo.md` run block by block, in order, in a fresh temporary folder, with the
//! binary under test as `content-api` and Debian's `hugo`; `docs/guides/astro.md` checked
//! against what `npm_package/astro.rs` runs in a real Astro site.
//!
//! How a guide is followed (anything else fails the test: teach the follower, or change the
//! guide):
//! - a `sh` block's lines run in order, `a && b` as two steps; `cd DIR` moves the guide's
//!   current folder;
//! - `content-api serve` (or `watch`) and `hugo server` are long-running: each is started, asked
//!   for one page on 127.0.0.1 (`serve`: `/api/index.json`, `200`; `hugo server`: `/`, any
//!   answer), kept running while the block's later lines run (a `verify` of it), and stopped
//!   when the block ends; the ports a block names (`127.0.0.1:8421`, `--port 1313`) become free
//!   ones, and a `serve` without `--addr` gets the one chosen for 8421, its default;
//! - a line that installs from a registry or deploys to a host (`git clone`, `cargo install`,
//!   `npm`, `npx` of another tool) is skipped, and said on stderr: the test runs the binary
//!   cargo built for it;
//! - `content-api verify` of the deployed site (no URL, or one not on 127.0.0.1 or localhost)
//!   checks a stand-in for the host instead: `content-api serve` over the site's output folder;
//! - a `toml` block that is a `watch.toml` sets its keys in the site's `watch.toml`, and a block
//!   whose info string has `title="PATH"` is a file the owner writes at PATH;
//! - every step must succeed, and after each `content-api build` the output folder (`out_dir`
//!   of the site's `watch.toml`) must hold the API of each of the site's languages and the
//!   deploy record, `.well-known/content-api/deploy.json`.

use super::guides::{
    Block, blocks, content_api_words, is_watch_toml, root, shell_commands, top_level_keys,
};
use crate::common::{self, DAEMON_READY, Log, http, need, spawn_with_output_logged};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// How long one step may take (a debug build of a small site, Hugo's build).
const STEP_LIMIT: Duration = Duration::from_secs(60);
/// How long a server may take to answer its first request.
const START_LIMIT: Duration = Duration::from_secs(60);
/// The port `content-api serve` listens on when not told.
const SERVE_PORT: &str = "8421";

/// A server a guide started, with its output (stdout and stderr) collected; killed on drop.
struct Server {
    what: String,
    child: Child,
    log: Log,
}

impl Server {
    fn spawn(what: String, command: &mut Command) -> Server {
        let (child, log) = spawn_with_output_logged(
            command
                .env_remove("CI")
                .env_remove("RUST_LOG")
                .stdin(Stdio::null()),
            &what,
        );
        Server { what, child, log }
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }

    /// The first line of its log that holds `needle`, once there is one.
    fn wait_for_line(&mut self, needle: &str) -> String {
        let mut found = None;
        http::wait_for(
            &format!("{needle:?} from {}", self.what),
            START_LIMIT,
            || {
                if let Ok(Some(status)) = self.child.try_wait() {
                    panic!("{} exited ({status}):\n{}", self.what, self.log());
                }
                found = self
                    .log
                    .lock()
                    .unwrap()
                    .iter()
                    .find(|line| line.contains(needle))
                    .cloned();
                found.is_some()
            },
        );
        found.unwrap()
    }

    /// Stops it as Ctrl-C would (SIGINT), and waits for it.
    fn stop(mut self) {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        http::wait_for(
            &format!("{} to stop", self.what),
            Duration::from_secs(20),
            || matches!(self.child.try_wait(), Ok(Some(_))),
        );
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("--- {} ---\n{}", self.what, self.log());
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What following a guide did, for the test's own checks.
#[derive(Default)]
struct Followed {
    /// `content-api build` steps, each checked.
    builds: usize,
    /// `content-api verify` of the deployed site (a stand-in), each passed.
    deploys_verified: usize,
    /// `content-api verify` of a server the guide started, each passed.
    servers_verified: usize,
    /// Servers started and answering.
    servers: usize,
}

/// Follows a guide's text, from `start`.
struct Follower<'a> {
    cwd: PathBuf,
    hugo: Option<&'a Path>,
    followed: Followed,
}

/// Follows the guide `name` (its Markdown `text`) from the folder `start`; `hugo` is the
/// program its `hugo` commands run.
fn follow(name: &str, text: &str, start: &Path, hugo: Option<&Path>) -> Followed {
    let keys = top_level_keys();
    let mut follower = Follower {
        cwd: start.to_path_buf(),
        hugo,
        followed: Followed::default(),
    };
    for block in blocks(name, text) {
        if block.not_checked.is_some() {
            continue;
        }
        if let Some(path) = file_title(&block.info) {
            follower.write_file(&block, &path);
            continue;
        }
        match block.lang.as_str() {
            "sh" | "bash" => follower.run_block(&block),
            "toml" if is_watch_toml(&block.text, &keys) => follower.set_keys(&block),
            _ => {}
        }
    }
    follower.followed
}

/// The `title="PATH"` of a block's info string: a file the guide has the owner write.
fn file_title(info: &str) -> Option<String> {
    let re = regex_lite::Regex::new(r#"\btitle="([^"]+)""#).unwrap();
    re.captures(info).map(|c| c[1].to_string())
}

/// A script's lines, each continued line (`\` at its end) joined to the next.
fn logical_lines(script: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for line in script.lines() {
        match line.strip_suffix('\\') {
            Some(start) => current.push_str(start),
            None => {
                current.push_str(line);
                lines.push(std::mem::take(&mut current));
            }
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// A line without its comment (a `#` that starts a word outside quotes).
fn without_comment(line: &str) -> &str {
    let (mut single, mut double, mut previous) = (false, false, ' ');
    for (at, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && previous.is_whitespace() => return &line[..at],
            _ => {}
        }
        previous = c;
    }
    line
}

/// Whether `line` (without its comment) has a character outside quotes that `pattern` matches.
fn has_unquoted(line: &str, pattern: impl Fn(char) -> bool) -> bool {
    let (mut single, mut double) = (false, false);
    line.chars().any(|c| {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            _ => return !single && !double && pattern(c),
        }
        false
    })
}

/// The loopback ports a block names (a URL's, `--port`'s, `--liveReloadPort`'s) and serve's
/// default, each with a free port of this machine to use instead.
fn free_ports(text: &str) -> BTreeMap<String, String> {
    let named = regex_lite::Regex::new(
        r"(?:127\.0\.0\.1:|localhost:|--port[ =]|--liveReloadPort[ =])(\d{4,5})\b",
    )
    .unwrap();
    named
        .captures_iter(text)
        .map(|c| c[1].to_string())
        .chain([SERVE_PORT.to_string()])
        .map(|port| (port, http::free_port().to_string()))
        .collect()
}

/// `text` with each port of `ports` replaced by its free one.
fn with_ports(text: &str, ports: &BTreeMap<String, String>) -> String {
    let number = regex_lite::Regex::new(r"\b\d{4,5}\b").unwrap();
    number
        .replace_all(text, |c: &regex_lite::Captures<'_>| {
            ports
                .get(&c[0])
                .cloned()
                .unwrap_or_else(|| c[0].to_string())
        })
        .into_owned()
}

/// Why a command is not followed: it installs from a registry or a repository, or deploys to
/// a host (the network beyond loopback).
fn skipped(words: &[String]) -> Option<&'static str> {
    match words.first().map(String::as_str)? {
        "git" if words.get(1).is_some_and(|w| w == "clone") => {
            Some("clones a repository from the network")
        }
        "cargo" if words.get(1).is_some_and(|w| w == "install") => {
            Some("installs content-api: the test runs the binary cargo built for it")
        }
        "npm" | "pnpm" | "yarn" | "bun" => Some("installs from the npm registry"),
        "npx" if content_api_words(words).is_none() => {
            Some("runs another tool from the npm registry (a deploy to a host)")
        }
        _ => None,
    }
}

/// Whether `url` names this machine (a server the guide started), not the deployed site.
fn is_loopback(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let host = rest.split(['/', ':']).next().unwrap_or("");
    host == "127.0.0.1" || host == "localhost"
}

impl Follower<'_> {
    fn write_file(&self, block: &Block, path: &str) {
        assert!(
            !path.starts_with('/') && !path.split('/').any(|part| part == ".."),
            "{}: the file {path} is not inside the site",
            block.at
        );
        let target = self.cwd.join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(&target, &block.text).unwrap();
    }

    /// Sets the block's keys in the site's `watch.toml`, tables merged key by key.
    fn set_keys(&self, block: &Block) {
        fn merge(into: &mut toml::Table, from: &toml::Table) {
            for (key, value) in from {
                match (into.get_mut(key), value) {
                    (Some(toml::Value::Table(existing)), toml::Value::Table(table)) => {
                        merge(existing, table)
                    }
                    _ => {
                        into.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        let path = self.cwd.join("watch.toml");
        let existing = std::fs::read_to_string(&path).unwrap_or_else(|_| {
            panic!(
                "{}: the guide sets keys of watch.toml, and {} has none (is `content-api init` before it?)",
                block.at,
                self.cwd.display()
            )
        });
        let mut table: toml::Table = toml::from_str(&existing).unwrap();
        let keys: toml::Table = toml::from_str(&block.text).unwrap();
        merge(&mut table, &keys);
        std::fs::write(&path, toml::to_string(&table).unwrap()).unwrap();
    }

    fn run_block(&mut self, block: &Block) {
        let ports = free_ports(&block.text);
        let script = with_ports(&block.text, &ports);
        let mut servers = Vec::new();
        for line in logical_lines(&script) {
            let line = without_comment(&line).trim();
            let background = line.ends_with('&') && !line.ends_with("&&");
            assert!(
                !has_unquoted(line, |c| c == '|' || c == ';'),
                "{}: `{line}`: the follower runs one command, or commands joined by `&&`, a line",
                block.at
            );
            let commands = shell_commands(line);
            if let Some(why) = commands.iter().find_map(|words| skipped(words)) {
                eprintln!("{}: skipped `{line}`: it {why}", block.at);
                continue;
            }
            for words in commands {
                self.run(block, &words, background, &ports, &mut servers);
            }
        }
        for server in servers.into_iter().rev() {
            server.stop();
        }
    }

    fn run(
        &mut self,
        block: &Block,
        words: &[String],
        background: bool,
        ports: &BTreeMap<String, String>,
        servers: &mut Vec<Server>,
    ) {
        let at = format!("{}: `{}`", block.at, words.join(" "));
        if let Some(words) = content_api_words(words) {
            return self.content_api(&at, &words[1..], ports, servers);
        }
        let server = words[0] == "hugo" && words.get(1).is_some_and(|w| w == "server");
        assert!(
            server || !background,
            "{at}: the follower runs only servers in the background"
        );
        match words[0].as_str() {
            "cd" => {
                let dir = self.cwd.join(&words[1]);
                assert!(dir.is_dir(), "{at}: there is no folder {}", dir.display());
                self.cwd = dir;
            }
            "hugo" => self.hugo(&at, &words[1..], servers),
            other => panic!(
                "{at}: the follower does not know `{other}`: follow it in tests/docs/owner_guides.rs, or mark the block `<!-- not checked: why -->`"
            ),
        }
    }

    fn content_api(
        &mut self,
        at: &str,
        args: &[String],
        ports: &BTreeMap<String, String>,
        servers: &mut Vec<Server>,
    ) {
        match args.first().map(String::as_str) {
            Some("serve") => {
                let mut args = args.to_vec();
                if !args.iter().any(|arg| arg == "--addr") {
                    args.extend(["--addr".into(), format!("127.0.0.1:{}", ports[SERVE_PORT])]);
                }
                let (server, _) = self.serve(at, &args);
                servers.push(server);
            }
            None | Some("watch") => {
                let mut server = Server::spawn(
                    at.to_string(),
                    Command::new(common::BIN).args(args).current_dir(&self.cwd),
                );
                server.wait_for_line(DAEMON_READY);
                self.followed.servers += 1;
                servers.push(server);
            }
            Some("verify") => self.verify(at, args),
            Some(_) => {
                let run = common::run_binary(&self.cwd, args, STEP_LIMIT);
                assert!(
                    run.status.success() && !run.stderr.contains("panicked"),
                    "{at} failed ({}):\n{}{}",
                    run.status,
                    run.stdout,
                    run.stderr
                );
                if matches!(args[0].as_str(), "build" | "--once") {
                    self.check_build(at, args);
                }
            }
        }
    }

    /// `content-api serve ARGS` started, and answering `/api/index.json`; with its origin.
    fn serve(&mut self, at: &str, args: &[String]) -> (Server, String) {
        let mut server = Server::spawn(
            at.to_string(),
            Command::new(common::BIN).args(args).current_dir(&self.cwd),
        );
        let line = server.wait_for_line("listening on http://");
        let origin = line[line.find("http://").unwrap()..]
            .trim_end_matches('/')
            .to_string();
        let addr = origin.trim_start_matches("http://");
        let index = http::get(addr, "/api/index.json", &[]);
        assert_eq!(
            index.status,
            200,
            "{at}: /api/index.json:\n{}\n--- serve ---\n{}",
            index.text(),
            server.log()
        );
        self.followed.servers += 1;
        (server, origin)
    }

    /// `content-api verify`: of a server the block started as written; of the deployed site,
    /// against a stand-in for the host (`serve` over the output folder).
    fn verify(&mut self, at: &str, args: &[String]) {
        let url = args.get(1).filter(|arg| !arg.starts_with('-'));
        let mut stand_in = None;
        let args: Vec<String> = match url {
            Some(url) if is_loopback(url) => {
                self.followed.servers_verified += 1;
                args.to_vec()
            }
            _ => {
                let (server, origin) = self.serve(
                    &format!("{at} (the deployed site's stand-in)"),
                    &["serve".into(), "--addr".into(), "127.0.0.1:0".into()],
                );
                stand_in = Some(server);
                self.followed.deploys_verified += 1;
                let rest = &args[1 + usize::from(url.is_some())..];
                ["verify".to_string(), origin]
                    .into_iter()
                    .chain(rest.iter().cloned())
                    .collect()
            }
        };
        let run = common::run_binary(&self.cwd, &args, STEP_LIMIT);
        assert!(
            run.status.success(),
            "{at}: verify {} failed ({}):\n{}{}",
            args[1..].join(" "),
            run.status,
            run.stdout,
            run.stderr
        );
        if let Some(server) = stand_in {
            server.stop();
        }
    }

    /// The output folder of the build just run holds the API of every language of the site,
    /// and the deploy record.
    fn check_build(&mut self, at: &str, args: &[String]) {
        let config: toml::Table = std::fs::read_to_string(self.cwd.join("watch.toml"))
            .map(|text| toml::from_str(&text).unwrap())
            .unwrap_or_default();
        let out = args
            .iter()
            .position(|arg| arg == "--out")
            .map(|flag| args[flag + 1].clone())
            .or_else(|| config.get("out_dir")?.as_str().map(str::to_string))
            .unwrap_or_else(|| "out".to_string());
        let out = self.cwd.join(out);
        let languages: Vec<String> = match config.get("languages") {
            Some(toml::Value::Array(list)) => list
                .iter()
                .map(|lang| lang.as_str().unwrap().to_lowercase())
                .collect(),
            _ => vec!["en".into(), "es".into()],
        };
        let json = |path: &str| -> Value {
            let file = out.join(path);
            let bytes = std::fs::read(&file)
                .unwrap_or_else(|err| panic!("{at}: {}: {err}", file.display()));
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|err| panic!("{at}: {}: {err}", file.display()))
        };
        json("api/index.json");
        let posts: usize = languages
            .iter()
            .map(|lang| {
                json(&format!("api/posts-{lang}.json"))
                    .as_array()
                    .map_or(0, Vec::len)
            })
            .sum();
        assert!(posts > 0, "{at}: the build published no post");
        let record = json(".well-known/content-api/deploy.json");
        assert!(record.is_object(), "{at}: the deploy record: {record}");
        self.followed.builds += 1;
    }

    fn hugo(&mut self, at: &str, args: &[String], servers: &mut Vec<Server>) {
        let hugo = self
            .hugo
            .unwrap_or_else(|| panic!("{at}: this guide was followed without hugo"));
        if args.first().is_some_and(|arg| arg == "server") {
            let port = args
                .iter()
                .position(|arg| arg == "--port")
                .map_or("1313", |flag| args[flag + 1].as_str());
            let addr = format!("127.0.0.1:{port}");
            let server = Server::spawn(
                at.to_string(),
                Command::new(hugo).args(args).current_dir(&self.cwd),
            );
            http::wait_for(&format!("{at} to listen"), START_LIMIT, || {
                std::net::TcpStream::connect(&addr).is_ok()
            });
            // Any HTTP answer is Hugo's: a site without a theme has no home page yet (404).
            let home = http::get(&addr, "/", &[]);
            assert!(
                (200..600).contains(&home.status),
                "{at}: {addr} answered {}",
                home.status
            );
            self.followed.servers += 1;
            servers.push(server);
            return;
        }
        let run = common::run_binary_cmd(&self.cwd, hugo.to_str().unwrap(), args, &[], STEP_LIMIT);
        assert!(
            run.status.success(),
            "{at} failed ({}):\n{}{}",
            run.status,
            run.stdout,
            run.stderr
        );
    }
}

fn guide(name: &str) -> (String, String) {
    let path = format!("docs/guides/{name}");
    let text = std::fs::read_to_string(root().join(&path)).unwrap();
    (path, text)
}

#[test]
fn the_no_generator_guide_works_as_written() {
    let (name, text) = guide("no-generator.md");
    let start = tempfile::tempdir().unwrap();
    let followed = follow(&name, &text, start.path(), None);
    assert!(followed.builds >= 1, "the guide builds the site");
    assert!(followed.servers >= 1, "the guide previews the site");
    assert!(
        followed.servers_verified >= 1,
        "the guide verifies the preview"
    );
    assert!(
        followed.deploys_verified >= 1,
        "the guide verifies the deploy"
    );
}

#[test]
fn the_hugo_guide_works_as_written() {
    let Some(hugo) = need::HUGO.program() else {
        return;
    };
    let (name, text) = guide("hugo.md");
    let start = tempfile::tempdir().unwrap();
    let followed = follow(&name, &text, start.path(), Some(&hugo));
    assert!(followed.builds >= 1, "the guide builds the site");
    assert!(
        followed.servers >= 2,
        "the guide runs hugo server and serve --site"
    );
    assert!(
        followed.servers_verified >= 1,
        "the guide verifies the preview"
    );
    assert!(
        followed.deploys_verified >= 1,
        "the guide verifies the deploy"
    );
    // The API went into Hugo's output, beside Hugo's own files.
    let public = start.path().join("my-site/public");
    assert!(public.join("api/posts-en.json").is_file());
    assert!(public.join("sitemap.xml").is_file(), "Hugo's own output");
}

#[test]
fn the_follower_fails_a_guide_that_does_not_work() {
    for (why, guide) in [
        (
            "a command content-api refuses",
            "```sh\ncontent-api buld\n```\n",
        ),
        (
            "a command the follower does not know",
            "```sh\nrm -rf my-site\n```\n",
        ),
        (
            "a command that fails",
            "```sh\ncontent-api init my-site && cd my-site\ncontent-api verify http://127.0.0.1:9\n```\n",
        ),
        (
            "watch.toml's keys set where there is no watch.toml",
            "```sh\ncontent-api init my-site\n```\n\n```toml\nbase_url = \"https://a.example\"\n```\n",
        ),
        (
            "a build that records no deploy",
            "```sh\ncontent-api init my-site && cd my-site\ncontent-api build --drafts\n```\n",
        ),
        ("a folder that is not there", "```sh\ncd my-site\n```\n"),
    ] {
        let start = tempfile::tempdir().unwrap();
        let result = std::panic::catch_unwind(|| follow("planted.md", guide, start.path(), None));
        assert!(result.is_err(), "{why}: following it should fail");
    }
}

/// What `npm_package/astro.rs` installs into (`tests/fixtures/astro-dev-site`) and runs there.
#[test]
fn the_astro_guide_is_what_the_npm_package_test_runs() {
    let (name, text) = guide("astro.md");
    let found = blocks(&name, &text);
    let fixture = root().join("tests/fixtures/astro-dev-site");
    let read = |path: &Path| std::fs::read_to_string(path).unwrap();
    let astro_test = read(&root().join("tests/npm_package/astro.rs"));
    for runs in [
        "\"astro-dev-site\"",
        "&[\"run\", \"build\"]",
        "\"astro\", \"dev\"",
    ] {
        assert!(
            astro_test.contains(runs),
            "tests/npm_package/astro.rs no longer runs {runs}: check the Astro guide against what it runs now"
        );
    }
    let package: Value = serde_json::from_str(&read(&fixture.join("package.json"))).unwrap();
    let scripts = package["scripts"].as_object().unwrap();

    // The packages it installs are the ones scripts/npm-pack makes.
    let platforms: Value =
        serde_json::from_str(&read(&root().join("npm/content-api/platforms.json"))).unwrap();
    let scope = platforms["scope"].as_str().unwrap();
    let packages = [
        format!("{scope}/{}", platforms["launcher"].as_str().unwrap()),
        format!("{scope}/{}", platforms["integration"].as_str().unwrap()),
    ];
    let mut problems = Vec::new();
    let mut runs = Vec::new();
    for block in found.iter().filter(|b| b.lang == "sh") {
        for words in shell_commands(&block.text) {
            for word in words.iter().filter(|w| w.starts_with('@')) {
                if !packages.contains(word) {
                    problems.push(format!("{}: {word} is none of {packages:?}", block.at));
                }
            }
            if words.len() >= 3 && words[0] == "npm" && words[1] == "run" {
                runs.push((block.at.clone(), words[2].clone()));
            }
        }
    }
    // Each `npm run NAME` is a script the test's site has, and the guide's scripts are the
    // site's (the owner's own `astro check` before the build aside).
    for (at, script) in &runs {
        if !scripts.contains_key(script) {
            problems.push(format!(
                "{at}: npm run {script}: the test's site has no such script"
            ));
        }
    }
    let mut shown = 0;
    for block in found.iter().filter(|b| b.lang == "json") {
        let object: serde_json::Map<String, Value> =
            serde_json::from_str(&format!("{{{}}}", block.text)).unwrap();
        for (script, command) in object {
            shown += 1;
            let command = command.as_str().unwrap();
            let theirs = command.strip_prefix("astro check && ").unwrap_or(command);
            if scripts.get(&script).and_then(Value::as_str) != Some(theirs) {
                problems.push(format!(
                    "{}: \"{script}\": \"{command}\", the test's site runs {:?}",
                    block.at, scripts[&script]
                ));
            }
        }
    }
    assert!(
        runs.iter().any(|(_, s)| s == "dev") && runs.iter().any(|(_, s)| s == "build"),
        "the guide runs npm run dev and npm run build: {runs:?}"
    );
    assert!(shown >= 1, "the guide shows the build script");
    // The integration's lines in astro.config.mjs are the test site's.
    let config = read(&fixture.join("astro.config.mjs"));
    let js = found
        .iter()
        .find(|b| b.lang == "js")
        .expect("the guide shows astro.config.mjs");
    for line in js.text.lines().map(str::trim) {
        if line.contains("contentApi") && !config.lines().any(|l| l.trim() == line) {
            problems.push(format!("{}: `{line}` is not the test site's", js.at));
        }
    }
    // What it sets in watch.toml is what the test site sets.
    let site: toml::Table = toml::from_str(&read(&fixture.join("watch.toml"))).unwrap();
    let keys = top_level_keys();
    for block in found
        .iter()
        .filter(|b| b.lang == "toml" && is_watch_toml(&b.text, &keys))
    {
        let set: toml::Table = toml::from_str(&block.text).unwrap();
        for key in ["out_dir", "content_dir"] {
            if let Some(value) = set.get(key)
                && site.get(key) != Some(value)
            {
                problems.push(format!(
                    "{}: {key} = {value}, the test site's is {:?}",
                    block.at,
                    site.get(key)
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
