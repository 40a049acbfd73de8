//! The deploy recipes of `docs/deploy/`, followed here as their text says, from a fresh clone of
//! a fresh site with `CI=true`, up to the step that needs the host's network: the first build
//! and a second one after a post is removed both succeed and record (the deploy record at
//! `/.well-known/content-api/deploy.json`, and the removed post's tag timeline answered `410` by
//! the host's files). The files come out of the recipes themselves (their `watch.toml`,
//! `package.json` script, `.gitignore`, `netlify.toml` and shell blocks, and the workflow of
//! `docs/ci/github-actions.yml`), so a recipe cannot drift from what runs here.
//!
//! - Cloudflare Pages' Git integration: an Astro site with the integration, installed with npm
//!   from the packed tarballs (Astro itself from the registry), the site's `build` script; and
//!   a Hugo site with `@content-api/cli` and `hugo && content-api build` into `public/`;
//! - GitHub Actions: the same site, then the workflow's `run:` steps in order up to the deploy;
//! - Netlify: the same site with `[hosting] netlify = true`, the `netlify.toml` build command;
//! - nginx: after the Quick start's build into `out/`, the recipe's `out_dir` and commands, each
//!   build recording into the history the Quick start began, and Debian's nginx answering the
//!   removed path `410` through the printed block.
//!
//! Between the builds of the hosts that keep nothing, a local server stands in for the live site
//! (`history/live_site.rs`): the second build reads the first's record from it.

use super::guides::{Block, blocks, content_api_words, shell_commands};
use crate::ci_workflow;
use crate::common::{self, need};
use crate::conformance;
use crate::history::live_site::LiveSite;
use crate::npm_package::{
    Manager, NodeOnly, integration_tarball, launcher_name, launcher_tarball, packages_and_node,
    platform_name, platform_tarball,
};
use content_api::verify::client;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The post each second build goes without, and the API path that goes with it: the English
/// `travel` timeline, whose only post it is.
const REMOVED_POST: &str = "blog/en/2026-11-08_a-remote-week-in-salento.md";
const GONE: &str = "api/timeline/en/travel.json";
const RECORD: &str = ".well-known/content-api/deploy.json";

/// The recipe `docs/deploy/{name}.md`: its name and its fenced blocks.
fn recipe(name: &str) -> Vec<Block> {
    let path = format!("docs/deploy/{name}.md");
    let text = std::fs::read_to_string(common::repo().join(&path)).unwrap();
    blocks(&path, &text)
}

/// The one block of `lang` whose text holds `marker`.
fn block<'a>(blocks: &'a [Block], lang: &str, marker: &str) -> &'a Block {
    let found: Vec<&Block> = blocks
        .iter()
        .filter(|block| block.lang == lang && block.text.contains(marker))
        .collect();
    assert!(
        found.len() == 1,
        "the recipe should have one `{lang}` block with `{marker}`, has {}: {:?}",
        found.len(),
        found.iter().map(|b| &b.at).collect::<Vec<_>>()
    );
    found[0]
}

/// A recipe's `watch.toml` with `base_url` set to where the site is deployed here (the recipe's
/// is its production URL, out of reach).
fn with_base_url(watch_toml: &Block, base_url: &str) -> String {
    let mut replaced = 0;
    let text: Vec<String> = watch_toml
        .text
        .lines()
        .map(|line| {
            if line.starts_with("base_url = ") {
                replaced += 1;
                format!("base_url = \"{base_url}\"")
            } else {
                line.to_string()
            }
        })
        .collect();
    assert_eq!(replaced, 1, "{}: one base_url line", watch_toml.at);
    text.join("\n") + "\n"
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_ran(output: &Output, what: &str) {
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}\n{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    );
}

/// `git` with `args` in `dir`, as a site's author runs it.
fn git(program: &Path, dir: &Path, args: &[&str]) {
    let output = Command::new(program)
        .args([
            "-c",
            "user.name=Recipe",
            "-c",
            "user.email=recipe@127.0.0.1",
        ])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert_ran(&output, &format!("git {}", args.join(" ")));
}

/// A site's repository: `git init`, every file not ignored committed.
fn commit_site(git_program: &Path, site: &Path, message: &str) {
    if !site.join(".git").exists() {
        git(git_program, site, &["init", "--quiet"]);
    }
    git(git_program, site, &["add", "--all"]);
    git(git_program, site, &["commit", "--quiet", "-m", message]);
}

/// A fresh clone of `site`, as a host's build starts from: nothing but what is committed.
fn fresh_clone(git_program: &Path, site: &Path) -> tempfile::TempDir {
    let clone = tempfile::tempdir().unwrap();
    let output = Command::new(git_program)
        .args(["clone", "--quiet"])
        .arg(site)
        .arg(clone.path().join("site"))
        .output()
        .unwrap();
    assert_ran(&output, "git clone");
    clone
}

/// What a second build must show: the removed post's timeline no longer published, answered
/// `410` by the host's file `gone_file` (which names it as `named`), and both builds' records.
fn assert_second_build_recorded(out: &Path, gone_file: &str, named: &str, said: &str) {
    assert!(
        said.contains("read the live site's deploy record"),
        "the second build reads the first's record from the live site:\n{said}"
    );
    assert!(!out.join(GONE).exists(), "{GONE} is still published");
    let gone = std::fs::read_to_string(out.join(gone_file))
        .unwrap_or_else(|err| panic!("{gone_file}: {err}"));
    assert!(
        gone.contains(named),
        "{gone_file} does not answer /{GONE} 410 (no {named}):\n{gone}"
    );
    assert_recorded(out, true);
}

/// The build's deploy record: every API path any deploy published, `GONE` among them after the
/// removal (`removed`) as before it.
fn assert_recorded(out: &Path, removed: bool) {
    let record: Value = serde_json::from_slice(
        &std::fs::read(out.join(RECORD)).unwrap_or_else(|err| panic!("{RECORD}: {err}")),
    )
    .unwrap_or_else(|err| panic!("{RECORD} is not JSON: {err}"));
    let history = record["history"]
        .as_array()
        .unwrap_or_else(|| panic!("{RECORD} has no history: {record}"));
    assert!(
        history.iter().any(|path| path.as_str() == Some(GONE)),
        "{RECORD} does not list {GONE}: {record}"
    );
    assert_eq!(out.join(GONE).exists(), !removed);
}

// ---- The sites a Git integration builds: Astro with the integration. ----

/// What a host's build image runs the recipes with: Node and npm, no Rust; the tarballs.
struct Npm {
    env: NodeOnly,
    packages: PathBuf,
    platform: &'static str,
    git: PathBuf,
}

impl Npm {
    /// `None` once `common::need` has said what this machine lacks.
    fn find() -> Option<Npm> {
        let git = need::GIT.program()?;
        let (packages, platform, node) = packages_and_node()?;
        Some(Npm {
            env: NodeOnly::new(&node),
            packages,
            platform,
            git,
        })
    }

    /// `sh -c script` in `dir`, as the host's build runs a command (`CI=true` included).
    fn shell(&self, dir: &Path, script: &str) -> Output {
        let mut command = self.env.command("bash", dir);
        command.args(["-e", "-c", script]);
        let output = command.output().unwrap();
        assert_ran(&output, script);
        output
    }
}

/// The Astro site's own files, as `npm create astro` and `astro add` leave a small one.
const ASTRO_CONFIG: &str = "import { defineConfig } from \"astro/config\";\nimport contentApi from \"@content-api/astro\";\n\nexport default defineConfig({\n  integrations: [contentApi()],\n});\n";
const CONTENT_CONFIG: &str = "import { defineCollection } from \"astro:content\";\nimport { glob } from \"astro/loaders\";\n\nconst blog = defineCollection({\n  loader: glob({ pattern: \"**/*.md\", base: \"./src/content/blog\" }),\n});\n\nexport const collections = { blog };\n";
const INDEX_PAGE: &str = "---\nimport { getCollection } from \"astro:content\";\nconst posts = await getCollection(\"blog\");\n---\n<html lang=\"en\">\n  <head><title>Notes</title></head>\n  <body>\n    <ul>{posts.map((post) => <li>{post.id}</li>)}</ul>\n  </body>\n</html>\n";
const TSCONFIG: &str = "{\n  \"extends\": \"astro/tsconfigs/strict\",\n  \"include\": [\".astro/types.d.ts\", \"**/*\"],\n  \"exclude\": [\"dist\"]\n}\n";
const ASTRO: &str = "astro@7";

/// A fresh Astro site set up as the Pages recipe says, committed: its `build` script and
/// `watch.toml` (`extra_toml` appended, `base_url` the live site's) and `.gitignore` lines are
/// the recipe's; `extra_files` are more of the recipe's files. The integration comes from its
/// tarball as `astro add` would install it from the registry, with `astro check`'s packages.
fn astro_site(
    npm: &Npm,
    base_url: &str,
    extra_toml: &str,
    extra_files: &[(&str, &str)],
) -> tempfile::TempDir {
    let pages = recipe("cloudflare-pages");
    let site = tempfile::tempdir().unwrap();
    let root = site.path();
    let build = block(&pages, "json", "astro build");
    let scripts: Value = serde_json::from_str(&format!("{{{}}}", build.text))
        .unwrap_or_else(|err| panic!("{}: not package.json's scripts: {err}", build.at));
    let manifest = serde_json::json!({
        "name": "recipe-site",
        "private": true,
        "type": "module",
        "scripts": scripts,
    });
    std::fs::write(
        root.join("package.json"),
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();
    let watch_toml = with_base_url(block(&pages, "toml", "out_dir"), base_url);
    std::fs::write(root.join("watch.toml"), watch_toml + extra_toml).unwrap();
    let ignored = block(&pages, "gitignore", "content-api");
    std::fs::write(
        root.join(".gitignore"),
        format!("node_modules/\ndist/\n.astro/\n{}", ignored.text),
    )
    .unwrap();
    for (path, contents) in [
        ("astro.config.mjs", ASTRO_CONFIG),
        ("src/content.config.ts", CONTENT_CONFIG),
        ("src/pages/index.astro", INDEX_PAGE),
        ("tsconfig.json", TSCONFIG),
    ]
    .iter()
    .chain(extra_files)
    {
        let target = root.join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, contents).unwrap();
    }
    common::copy_sample_content(&root.join("src/content"));
    Manager::Npm.override_packages(
        root,
        &[
            (
                platform_name(npm.platform),
                platform_tarball(&npm.packages, npm.platform),
            ),
            (launcher_name(), launcher_tarball(&npm.packages)),
        ],
    );
    let integration = integration_tarball(&npm.packages);
    let install = npm
        .env
        .command("npm", root)
        .args(["install", "--save-dev", "--prefer-offline", ASTRO])
        .arg(&integration)
        .args(["@astrojs/check", "typescript"])
        .output()
        .unwrap();
    assert_ran(&install, "npm install astro and the integration");
    commit_site(&npm.git, root, "a fresh Astro site with content-api");
    site
}

/// Two deploys of `site` as a Git integration makes them, each from a fresh clone built by
/// `build` (a fresh clone's root, then what the build said): the first, then one without
/// `removed_post` (its path in the site; its tag timeline is `GONE`). Returns the second's
/// clone and what its build said.
fn deploy_twice(
    npm: &Npm,
    live: &LiveSite,
    site: &Path,
    removed_post: &str,
    out_dir: &str,
    build: impl Fn(&Path) -> String,
) -> (tempfile::TempDir, String) {
    let first = fresh_clone(&npm.git, site);
    let root = first.path().join("site");
    let said = build(&root);
    assert!(
        said.contains("first deploy"),
        "the first build finds no record on the live site, and says so:\n{said}"
    );
    let out = root.join(out_dir);
    assert!(
        out.join(GONE).is_file(),
        "the first build publishes {GONE}:\n{said}"
    );
    assert_recorded(&out, false);
    live.deploy(&out);

    git(&npm.git, site, &["rm", "--quiet", removed_post]);
    git(
        &npm.git,
        site,
        &["commit", "--quiet", "-m", "remove a post"],
    );
    let second = fresh_clone(&npm.git, site);
    let said = build(&second.path().join("site"));
    (second, said)
}

/// How a fresh clone installs the lockfile's packages here. A host runs `npm ci`, which refuses
/// a lockfile without every optional package: the lockfile made here lacks the platform
/// packages of other machines (packed here, never published) and the optional packages this
/// machine's registry does not hold, so `npm install` stands in for it, with that lockfile.
const INSTALL_HERE: &str = "npm install --prefer-offline";

/// The Astro site's `REMOVED_POST`, in its content collection.
fn astro_post() -> String {
    format!("src/content/{REMOVED_POST}")
}

/// What a Git integration (Pages, Netlify) runs: the install of the lockfile's packages, then
/// the build command the recipe names.
fn git_integration_build(npm: &Npm, root: &Path, command: &str) -> String {
    npm.shell(root, INSTALL_HERE);
    text(&npm.shell(root, command).stderr)
}

/// The Pages recipe's build command and output folder: "build command `X`", "output directory
/// `Y`" (a line break may fall between the words and the value).
fn pages_project() -> (String, String) {
    let text =
        std::fs::read_to_string(common::repo().join("docs/deploy/cloudflare-pages.md")).unwrap();
    let quoted_after = |words: &str| -> String {
        let at = text
            .find(words)
            .unwrap_or_else(|| panic!("cloudflare-pages.md should say {words} `...`"));
        let rest = text[at + words.len()..].trim_start();
        let value = rest
            .strip_prefix('`')
            .and_then(|rest| rest.split_once('`'))
            .unwrap_or_else(|| panic!("cloudflare-pages.md: {words} `...`"));
        value.0.to_string()
    };
    (
        quoted_after("build command"),
        quoted_after("output directory"),
    )
}

#[test]
fn the_cloudflare_pages_recipe_builds_and_records_from_fresh_clones() {
    let Some(npm) = Npm::find() else { return };
    let live = LiveSite::start();
    let (command, out_dir) = pages_project();
    let site = astro_site(&npm, &live.base_url, "", &[]);
    let (clone, said) = deploy_twice(&npm, &live, site.path(), &astro_post(), &out_dir, |root| {
        git_integration_build(&npm, root, &command)
    });
    let out = clone.path().join("site").join(&out_dir);
    // No `functions/`: the edge layer is `_worker.js`.
    assert_second_build_recorded(&out, "_worker.js", &format!("\"{GONE}\""), &said);
}

#[test]
fn the_github_actions_recipe_runs_the_workflow_up_to_the_deploy() {
    let Some(npm) = Npm::find() else { return };
    let live = LiveSite::start();
    let workflow = ci_workflow::workflow();
    let steps = ci_workflow::steps(&workflow);
    let deploy = steps
        .iter()
        .position(|(name, _)| name.starts_with("Deploy"))
        .expect("the workflow has a deploy step");
    // Each `run:` before the deploy (which needs Cloudflare's API), as the runner runs it.
    let scripts: Vec<String> = steps[..deploy]
        .iter()
        .filter_map(|(_, step)| step.as_mapping_get("run").and_then(|run| run.as_str()))
        .map(str::to_string)
        .collect();
    assert!(
        scripts
            .iter()
            .any(|script| script.contains("npm run build")),
        "{scripts:?}"
    );
    let deployed = steps[deploy]
        .1
        .as_mapping_get("run")
        .and_then(|run| run.as_str())
        .expect("the deploy step runs wrangler");
    // It deploys the folder the recipe's watch.toml builds into.
    let out_dir = deployed
        .split_whitespace()
        .skip_while(|word| *word != "deploy")
        .nth(1)
        .expect("`wrangler pages deploy FOLDER`")
        .to_string();
    let site = astro_site(&npm, &live.base_url, "", &[]);
    let (clone, said) = deploy_twice(&npm, &live, site.path(), &astro_post(), &out_dir, |root| {
        let mut said = String::new();
        for script in &scripts {
            let script = if script.trim() == "npm ci" {
                INSTALL_HERE
            } else {
                script.as_str()
            };
            let mut command = npm.env.command("bash", root);
            command
                .args(["-e", "-c", script])
                .env("GITHUB_ACTIONS", "true")
                .env("npm_config_prefer_offline", "true");
            let output = command.output().unwrap();
            assert_ran(&output, script);
            said.push_str(&text(&output.stderr));
        }
        said
    });
    let out = clone.path().join("site").join(&out_dir);
    assert_second_build_recorded(&out, "_worker.js", &format!("\"{GONE}\""), &said);
}

#[test]
fn the_netlify_recipe_builds_and_records_from_fresh_clones() {
    let Some(npm) = Npm::find() else { return };
    let live = LiveSite::start();
    let netlify = recipe("netlify");
    let hosting = block(&netlify, "toml", "netlify = true");
    let config = block(&netlify, "toml", "[build]");
    let build: toml::Table = toml::from_str(&config.text).unwrap();
    let command = build["build"]["command"].as_str().unwrap().to_string();
    let publish = build["build"]["publish"].as_str().unwrap().to_string();
    let site = astro_site(
        &npm,
        &live.base_url,
        &format!("\n{}", hosting.text),
        &[("netlify.toml", config.text.as_str())],
    );
    let (clone, said) = deploy_twice(&npm, &live, site.path(), &astro_post(), &publish, |root| {
        git_integration_build(&npm, root, &command)
    });
    let out = clone.path().join("site").join(&publish);
    assert_second_build_recorded(&out, "_redirects", &format!("/{GONE} "), &said);
}

/// A small Hugo site's posts: the first is the only one tagged `travel` (`GONE`'s tag).
const HUGO_POSTS: [(&str, &str); 2] = [
    (
        "content/posts/first.md",
        "---\ntitle: \"First\"\ndate: 2026-01-10\ntags: [\"travel\"]\n---\nA week away.\n",
    ),
    (
        "content/posts/second.md",
        "---\ntitle: \"Second\"\ndate: 2026-02-10\ntags: [\"code\"]\n---\nA week of code.\n",
    ),
];

#[test]
fn the_cloudflare_pages_recipe_builds_a_hugo_site_from_fresh_clones() {
    let Some(npm) = Npm::find() else { return };
    if need::HUGO.program().is_none() {
        return;
    }
    let live = LiveSite::start();
    let pages = recipe("cloudflare-pages");
    let site = tempfile::tempdir().unwrap();
    let root = site.path();
    std::fs::write(
        root.join("hugo.toml"),
        format!(
            "baseURL = \"{}/\"\ntitle = \"Notes\"\nlanguageCode = \"en\"\n",
            live.base_url
        ),
    )
    .unwrap();
    for (path, text) in HUGO_POSTS {
        std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        std::fs::write(root.join(path), text).unwrap();
    }
    // The recipe: `content-api init` for the content folder's layout, Hugo's `public/`, and the
    // `[site]` the recipe's watch.toml gives.
    content_api(root, &["content-api", "init"].map(String::from));
    let site_block = block(&pages, "toml", "[site]");
    let settings: toml::Table = toml::from_str(&site_block.text).unwrap();
    let named = |key: &str| settings["site"][key].as_str().unwrap().to_string();
    let watch_toml = std::fs::read_to_string(root.join("watch.toml")).unwrap();
    let watch_toml = set_top_level(&watch_toml, "out_dir = \"public\"\n").replacen(
        "[site]\n",
        &format!(
            "[site]\nauthor = \"{}\"\nlicence = \"{}\"\n",
            named("author"),
            named("licence")
        ),
        1,
    );
    std::fs::write(root.join("watch.toml"), watch_toml).unwrap();
    let build = block(&pages, "json", "hugo");
    let scripts: Value = serde_json::from_str(&format!("{{{}}}", build.text))
        .unwrap_or_else(|err| panic!("{}: not package.json's scripts: {err}", build.at));
    std::fs::write(
        root.join("package.json"),
        serde_json::to_vec_pretty(
            &serde_json::json!({"name": "hugo-site", "private": true, "scripts": scripts}),
        )
        .unwrap(),
    )
    .unwrap();
    let ignored = block(&pages, "gitignore", "content-api");
    std::fs::write(
        root.join(".gitignore"),
        format!("node_modules/\npublic/\n.hugo_build.lock\n{}", ignored.text),
    )
    .unwrap();
    // `npm install --save-dev @content-api/cli`, from its tarball.
    Manager::Npm.override_packages(
        root,
        &[(
            platform_name(npm.platform),
            platform_tarball(&npm.packages, npm.platform),
        )],
    );
    let install = npm
        .env
        .command("npm", root)
        .args(["install", "--save-dev"])
        .arg(launcher_tarball(&npm.packages))
        .output()
        .unwrap();
    assert_ran(&install, "npm install --save-dev @content-api/cli");
    commit_site(&npm.git, root, "a Hugo site with content-api");
    let (command, _) = pages_project();
    let (clone, said) = deploy_twice(&npm, &live, root, HUGO_POSTS[0].0, "public", |root| {
        git_integration_build(&npm, root, &command)
    });
    let out = clone.path().join("site/public");
    assert!(out.join("index.xml").is_file(), "Hugo built the site");
    assert_second_build_recorded(&out, "_worker.js", &format!("\"{GONE}\""), &said);
}

// ---- nginx, on a server that keeps its history. ----

/// The English post `content-api init` writes, and the tag timeline only it is in.
const INIT_GONE: &str = "api/timeline/en/welcome.json";

/// `content-api` with `words` (its own first) in `dir`, as in CI.
fn content_api(dir: &Path, words: &[String]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_content-api"))
        .args(&words[1..])
        .current_dir(dir)
        .env("CI", "true")
        .output()
        .unwrap();
    assert_ran(&output, &words.join(" "));
    output
}

/// `text` (a `watch.toml`) with the top-level settings of `block` set: each line of the block
/// in place of the file's own line for that key, else first.
fn set_top_level(text: &str, block: &str) -> String {
    let mut kept: Vec<&str> = text.lines().collect();
    let mut first = Vec::new();
    for line in block.lines().filter(|line| line.contains(" = ")) {
        let key = line.split(" = ").next().unwrap();
        match kept
            .iter()
            .position(|kept| kept.starts_with(&format!("{key} = ")))
        {
            Some(at) => kept[at] = line,
            None => first.push(line),
        }
    }
    first.extend(kept);
    first.join("\n") + "\n"
}

#[test]
fn the_nginx_recipe_records_after_the_quick_start_and_nginx_answers_410() {
    let Some(git_program) = need::GIT.program() else {
        return;
    };
    let Some(nginx) = conformance::debian_nginx_program() else {
        return;
    };
    let recipe = recipe("nginx");
    let server = tempfile::tempdir().unwrap();
    // nginx's workers (www-data) must enter the folders up to the output, as they enter /srv.
    let host = conformance::hosts::DebianNginx::in_folder(server.path());
    let srv = server.path().join("srv");
    let toml = block(&recipe, "toml", "out_dir");
    let toml_text = toml.text.replace("/srv/", &format!("{}/", srv.display()));
    assert_ne!(
        toml_text, toml.text,
        "{}: the recipe's out_dir is under /srv",
        toml.at
    );
    let settings: toml::Table = toml::from_str(&toml_text).unwrap();
    let base_url = settings["base_url"].as_str().unwrap();

    // The Quick start: a new site, `base_url` and `[site]` set, committed; then, on the server,
    // a fresh clone's first build into out/.
    let author = tempfile::tempdir().unwrap();
    let init = content_api(
        author.path(),
        &["content-api", "init", "my-site"].map(String::from),
    );
    assert_ran(&init, "content-api init my-site");
    let site = author.path().join("my-site");
    let watch_toml = std::fs::read_to_string(site.join("watch.toml")).unwrap();
    let watch_toml = set_top_level(&watch_toml, &format!("base_url = \"{base_url}\"\n")).replacen(
        "[site]\n",
        "[site]\nname = \"My Site\"\nauthor = \"Your Name\"\nlicence = \"CC-BY-4.0\"\n",
        1,
    );
    std::fs::write(site.join("watch.toml"), &watch_toml).unwrap();
    commit_site(&git_program, &site, "a new site");
    let clone = tempfile::Builder::new().tempdir_in(server.path()).unwrap();
    let output = Command::new(&git_program)
        .args(["clone", "--quiet"])
        .arg(&site)
        .arg(clone.path().join("my-site"))
        .output()
        .unwrap();
    assert_ran(&output, "git clone");
    let root = clone.path().join("my-site");
    content_api(&root, &["content-api", "build"].map(String::from));
    assert!(root.join("out").join(INIT_GONE).is_file());
    let history = root.join("content-api.history");
    assert!(history.is_file(), "the Quick start's build records");

    // The recipe: its out_dir in watch.toml, then its commands, in order.
    let watch_toml = std::fs::read_to_string(root.join("watch.toml")).unwrap();
    std::fs::write(
        root.join("watch.toml"),
        set_top_level(&watch_toml, &toml_text),
    )
    .unwrap();
    let out = srv.join("site-api");
    let addr = host.addr.to_string();
    let commands = block(&recipe, "sh", "hosting nginx");
    let mut ran = Vec::new();
    for command in shell_commands(&commands.text) {
        let Some(mut words) = content_api_words(&command) else {
            continue;
        };
        for word in &mut words {
            *word = word.replace("/srv/", &format!("{}/", srv.display()));
            if word == "80" {
                *word = addr.clone();
            }
        }
        let output = content_api(&root, &words);
        let said = text(&output.stderr);
        match words[1].as_str() {
            "build" => {
                assert!(
                    !said.contains("records nothing") && said.contains("records its history"),
                    "the recipe's build records into the Quick start's history:\n{said}"
                );
                assert!(out.join(INIT_GONE).is_file());
            }
            "hosting" => {
                std::fs::write(host.conf.join("sites-enabled/site-api"), &output.stdout).unwrap()
            }
            other => panic!(
                "{}: `content-api {other}` is not a step of the recipe's test",
                commands.at
            ),
        }
        ran.push(words[1].clone());
    }
    assert_eq!(ran, ["build", "hosting"], "{}", commands.at);
    assert!(
        std::fs::read_to_string(&history)
            .unwrap()
            .contains(&format!("\"out\":\"{}\"", "../../srv/site-api")),
        "the history follows out_dir"
    );

    // "Rebuild on the server": a post removed, its tag's timeline answers 410 after a reload.
    let posts: Vec<PathBuf> = std::fs::read_dir(root.join("content/blog/en"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(posts.len(), 1, "init writes one English post: {posts:?}");
    std::fs::remove_file(&posts[0]).unwrap();
    let said = text(&content_api(&root, &["content-api", "build"].map(String::from)).stderr);
    assert!(said.contains(&format!("/{INIT_GONE}")), "{said}");
    assert!(!out.join(INIT_GONE).exists());
    assert_ran(&host.test(&nginx), "nginx -t");
    let _running = host.start(&nginx, "nginx with the recipe's block");
    let site_host = base_url.split_once("://").unwrap().1.trim_end_matches('/');
    let reply = client::request(
        host.addr,
        "GET",
        &format!("/{INIT_GONE}"),
        &[("Host", site_host)],
    )
    .unwrap();
    assert_eq!(reply.status, 410, "nginx answers the removed path");
}
