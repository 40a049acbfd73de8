//! The guides against the tool: every fenced `sh`, `console` or `bash` block of README.md and
//! docs/ whose command line runs `content-api` (also through `npx content-api`) parses with the
//! real command line (`Cli::command()`: the command, its flags and their values), as does every
//! package.json script line of a `json` block that runs it, and every
//! fenced `toml` block that is a `watch.toml` (a top-level key of its schema) parses with
//! `watch_toml::parse` and validates against the schema.
//!
//! The schema of `watch.toml` is generated from the parser's own types; the committed
//! `docs/watch-toml.schema.json` must be that schema byte for byte (`content-api schema
//! watch-toml` prints it), and the bundled `watch.toml`, the test sites' own, the guides'
//! blocks and what `init` writes (a new site's, as written and uncommented, and each real
//! site's of `tests/fixtures/sites/`, with its `#:schema` line first) must validate against it.
//!
//! A block deliberately partial or illustrative is marked by the line before its fence,
//! `<!-- not checked: the reason -->`; the reason is required.

use crate::common::*;
use clap::CommandFactory;
use content_api::cli::Cli;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

const SCHEMA_FILE: &str = "docs/watch-toml.schema.json";

/// A fenced block of a guide.
pub(super) struct Block {
    /// The guide, relative to the repository, and the line of the opening fence.
    pub(super) at: String,
    /// The info string's first word (`sh`, `toml`...).
    pub(super) lang: String,
    /// The whole info string (`markdown title="content/posts/hello.md"`).
    pub(super) info: String,
    /// The block's lines, less the fence's indentation.
    pub(super) text: String,
    /// Why it is not checked, when the line before the fence says so.
    pub(super) not_checked: Option<String>,
}

pub(super) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every Markdown file under docs/, in a stable order.
fn guides() -> Vec<PathBuf> {
    let mut found = vec![root().join("README.md")];
    markdown_under(&root().join("docs"), &mut found);
    found
}

/// Adds every Markdown file under `dir` to `found`, in a stable order.
pub(super) fn markdown_under(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            markdown_under(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "md") {
            found.push(path);
        }
    }
}

/// The fenced blocks of `text` (a guide at `name`).
pub(super) fn blocks(name: &str, text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        let line = lines[at];
        let trimmed = line.trim_start();
        let Some(info) = trimmed.strip_prefix("```") else {
            at += 1;
            continue;
        };
        let indent = line.len() - trimmed.len();
        let lang = info.split_whitespace().next().unwrap_or("").to_string();
        let not_checked = lines[..at]
            .iter()
            .rev()
            .find(|line| !line.trim().is_empty())
            .and_then(|line| line.trim().strip_prefix("<!-- not checked:"))
            .map(|rest| {
                let reason = rest.trim_end_matches("-->").trim();
                assert!(
                    !reason.is_empty(),
                    "{name}:{}: `not checked` without a reason",
                    at + 1
                );
                reason.to_string()
            });
        let start = at + 1;
        let end = (start..lines.len())
            .find(|&i| lines[i].trim() == "```")
            .unwrap_or_else(|| panic!("{name}:{}: a fence never closed", at + 1));
        let text: Vec<&str> = lines[start..end]
            .iter()
            .map(|line| line.get(indent..).unwrap_or(line.trim_start()))
            .collect();
        found.push(Block {
            at: format!("{name}:{}", at + 1),
            lang,
            info: info.trim().to_string(),
            text: text.join("\n") + "\n",
            not_checked,
        });
        at = end + 1;
    }
    found
}

/// Every fenced block of every guide.
fn all_blocks() -> Vec<Block> {
    guides()
        .iter()
        .flat_map(|path| {
            let name = path.strip_prefix(root()).unwrap().display().to_string();
            blocks(&name, &std::fs::read_to_string(path).unwrap())
        })
        .collect()
}

/// The simple commands of a shell script, each as its words: quotes ('…', "…") and
/// backslashes read as a shell reads them, a line continued by `\`, commands ended by a new
/// line, `;`, `&`, `|` or a parenthesis, comments and redirections (`> FILE`) dropped.
pub(super) fn shell_commands(script: &str) -> Vec<Vec<String>> {
    #[derive(Default)]
    struct Lexer {
        commands: Vec<Vec<String>>,
        words: Vec<String>,
        word: String,
        in_word: bool,
        redirect: bool,
    }
    impl Lexer {
        fn end_word(&mut self) {
            if self.in_word {
                let word = std::mem::take(&mut self.word);
                if !std::mem::take(&mut self.redirect) {
                    self.words.push(word);
                }
            }
            self.in_word = false;
        }
        fn end_command(&mut self) {
            self.end_word();
            if !self.words.is_empty() {
                self.commands.push(std::mem::take(&mut self.words));
            }
        }
    }
    let mut lexer = Lexer::default();
    let mut chars = script.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                lexer.in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    lexer.word.push(c);
                }
            }
            '"' => {
                lexer.in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => lexer.word.extend(chars.next()),
                        c => lexer.word.push(c),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(c) => {
                    lexer.in_word = true;
                    lexer.word.push(c);
                }
            },
            '#' if !lexer.in_word => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
                lexer.end_command();
            }
            ' ' | '\t' => lexer.end_word(),
            '\n' | ';' | '&' | '|' | '(' | ')' => lexer.end_command(),
            '>' | '<' => {
                lexer.end_word();
                while chars.peek().is_some_and(|c| matches!(c, '>' | '&')) {
                    chars.next();
                }
                lexer.redirect = true;
            }
            c => {
                lexer.in_word = true;
                lexer.word.push(c);
            }
        }
    }
    lexer.end_command();
    lexer.commands
}

/// The words of `command` as `content-api` receives them (`content-api` first), when it runs
/// content-api: directly or through `npx`, after any `NAME=value` assignments.
pub(super) fn content_api_words(command: &[String]) -> Option<Vec<String>> {
    let mut words = command
        .iter()
        .skip_while(|word| {
            word.split_once('=').is_some_and(|(name, _)| {
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
        })
        .peekable();
    if words.peek().is_some_and(|word| *word == "npx") {
        words.next();
    }
    let words: Vec<String> = words.cloned().collect();
    (words.first().map(String::as_str) == Some("content-api")).then_some(words)
}

/// The commands of package.json's scripts in a JSON block: a whole package.json's `scripts`,
/// or a fragment of them as the guides show one (`"build": "hugo && content-api build"`).
/// Any other JSON (an API's answer, a report) holds none.
fn package_scripts(text: &str) -> Vec<String> {
    let strings = |object: &serde_json::Map<String, Value>| -> Vec<String> {
        object
            .values()
            .filter_map(|value| value.as_str().map(str::to_string))
            .collect()
    };
    match serde_json::from_str::<Value>(text) {
        Ok(json) => json["scripts"].as_object().map(strings).unwrap_or_default(),
        Err(_) => serde_json::from_str::<Value>(&format!("{{{text}}}"))
            .ok()
            .and_then(|json| json.as_object().map(strings))
            .unwrap_or_default(),
    }
}

/// Why `words` (`content-api` first) is not a command line content-api accepts; `None` when
/// it is (`--help` and `--version` included).
fn refused(words: &[String]) -> Option<String> {
    match Cli::command().try_get_matches_from(words) {
        Ok(_) => None,
        Err(err)
            if matches!(
                err.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            None
        }
        Err(err) => Some(err.render().to_string()),
    }
}

/// The generated schema, as JSON.
fn schema() -> Value {
    serde_json::from_str(&content_api::watch_toml::schema()).expect("the schema is JSON")
}

fn validator() -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema())
        .expect("the schema of watch.toml compiles")
}

/// Why `text`, a `watch.toml`, is not one content-api reads: the parser's error and every
/// complaint of the schema.
fn config_problems(validator: &jsonschema::Validator, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if let Err(diagnostic) =
        content_api::watch_toml::parse("watch.toml", text, camino::Utf8Path::new("."))
    {
        problems.push(format!("the parser: {diagnostic}"));
    }
    match toml::from_str::<toml::Table>(text) {
        Ok(table) => {
            let json = serde_json::to_value(&table).expect("TOML converts to JSON");
            for error in validator.iter_errors(&json) {
                problems.push(format!("the schema: {error} at {}", error.instance_path()));
            }
        }
        Err(err) => problems.push(format!("not TOML: {err}")),
    }
    problems
}

/// Whether a `toml` block is a `watch.toml`: one of its top-level keys is one of the schema's.
pub(super) fn is_watch_toml(text: &str, keys: &[String]) -> bool {
    toml::from_str::<toml::Table>(text)
        .map(|table| table.keys().any(|key| keys.contains(key)))
        .unwrap_or(true)
}

pub(super) fn top_level_keys() -> Vec<String> {
    schema()["properties"]
        .as_object()
        .expect("the schema lists the top-level keys")
        .keys()
        .cloned()
        .collect()
}

#[test]
fn the_shell_reader_splits_commands_as_a_shell_does() {
    let script = "rm -rf o && content-api build --config b.toml \\\n  --out o   # a comment\n\
                  echo '{\"command\": \"content-api\",\n \"x\": 1}' | python3 c.py\n\
                  CONTENT_API_BENCH_DIR=/dev/shm npx content-api hosting nginx --listen 80 > /etc/x\n";
    let commands = shell_commands(script);
    let runs: Vec<Vec<String>> = commands
        .iter()
        .filter_map(|c| content_api_words(c))
        .collect();
    assert_eq!(
        runs,
        [
            vec!["content-api", "build", "--config", "b.toml", "--out", "o"],
            vec!["content-api", "hosting", "nginx", "--listen", "80"],
        ]
    );
    assert!(commands.iter().any(|c| c[0] == "echo" && c.len() == 2));
    // What the check refuses: an unknown flag, a flag of another command, a bad value.
    let words = |line: &str| content_api_words(&shell_commands(line)[0]).unwrap();
    assert!(refused(&words("content-api build --listen 80")).is_some());
    assert!(refused(&words("content-api new tag x --tier nope")).is_some());
    assert!(refused(&words("content-api buld")).is_some());
    assert!(
        refused(&words(
            "content-api serve --addr 127.0.0.1:1 --site http://x"
        ))
        .is_none()
    );
    assert!(refused(&words("content-api --version")).is_none());
    assert_eq!(
        package_scripts("{\"scripts\": {\"build\": \"astro build && content-api build\"}}"),
        ["astro build && content-api build"]
    );
    assert_eq!(
        package_scripts("\"build\": \"hugo && content-api build\"\n"),
        ["hugo && content-api build"]
    );
    // A block marked `not checked` says why; the others are checked.
    let found = blocks(
        "g.md",
        "<!-- not checked: a sketch -->\n```sh\ncontent-api x\n```\n\n  ```toml\n  a = 1\n  ```\n",
    );
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].not_checked.as_deref(), Some("a sketch"));
    assert_eq!(
        (found[1].lang.as_str(), found[1].text.as_str()),
        ("toml", "a = 1\n")
    );
    assert!(found[1].not_checked.is_none());
    assert!(package_scripts("{\"fix\": \"content-api gives its documents\"}").is_empty());
}

#[test]
fn every_content_api_command_in_the_guides_is_one_it_accepts() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for block in all_blocks() {
        if block.not_checked.is_some() {
            continue;
        }
        let script = match block.lang.as_str() {
            "sh" | "bash" => block.text.clone(),
            // A console block's commands follow a `$ ` prompt; the rest is output.
            "console" => block
                .text
                .lines()
                .filter_map(|line| line.strip_prefix("$ "))
                .collect::<Vec<_>>()
                .join("\n"),
            // package.json's scripts: `"build": "hugo && content-api build"`.
            "json" => package_scripts(&block.text).join("\n"),
            _ => continue,
        };
        for command in shell_commands(&script) {
            let Some(words) = content_api_words(&command) else {
                continue;
            };
            checked += 1;
            if let Some(why) = refused(&words) {
                problems.push(format!("{}: `{}`:\n{why}", block.at, words.join(" ")));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} command lines of the guides that content-api refuses:\n\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(
        checked >= 20,
        "only {checked} content-api command lines found in the guides: is the reader broken?"
    );
}

#[test]
fn every_watch_toml_in_the_guides_is_one_content_api_reads() {
    let keys = top_level_keys();
    let validator = validator();
    let mut problems = Vec::new();
    let mut checked = 0;
    for block in all_blocks() {
        if block.lang != "toml" || block.not_checked.is_some() || !is_watch_toml(&block.text, &keys)
        {
            continue;
        }
        checked += 1;
        for problem in config_problems(&validator, &block.text) {
            problems.push(format!("{}: {problem}", block.at));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        checked >= 8,
        "only {checked} watch.toml blocks found in the guides: is the reader broken?"
    );
}

#[test]
fn the_committed_schema_is_the_generated_one() {
    let committed = std::fs::read_to_string(root().join(SCHEMA_FILE)).unwrap_or_default();
    assert!(
        committed == content_api::watch_toml::schema(),
        "{SCHEMA_FILE} is not the schema of watch.toml's parser; write it again with\n  \
         cargo run -- schema watch-toml > {SCHEMA_FILE}"
    );
    // `content-api schema watch-toml` prints it.
    let dir = tempfile::tempdir().unwrap();
    let run = run_binary(
        dir.path(),
        &["schema", "watch-toml"],
        Duration::from_secs(30),
    );
    run.assert_success();
    assert_eq!(run.stdout, committed);
}

#[test]
fn the_schema_describes_every_key_with_its_default_and_refuses_what_the_parser_refuses() {
    let schema = schema();
    // Every key at every level has a description that states its default (or says it has
    // none), so an editor shows it on hover.
    fn walk(schema: &Value, at: &str, problems: &mut Vec<String>) {
        assert_eq!(schema["additionalProperties"], false, "{at}: unknown keys");
        for (key, property) in schema["properties"].as_object().unwrap() {
            let path = format!("{at}{key}");
            let description = property["description"].as_str().unwrap_or("");
            if property.get("properties").is_some() {
                walk(property, &format!("{path}."), problems);
            } else if !description.contains("Default") && !description.contains("no default") {
                problems.push(format!("{path}: {description:?} states no default"));
            }
            if description.is_empty() {
                problems.push(format!("{path}: no description"));
            }
        }
    }
    let mut problems = Vec::new();
    walk(&schema, "", &mut problems);
    assert!(
        !content_api::watch_toml::schema().contains("$ref"),
        "every section inline"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // What the parser refuses, the schema refuses too.
    let validator = validator();
    for text in [
        "contnt_dir = \"x\"\n",
        "[site]\nlicense = \"MIT\"\n",
        "[front_matter.keys]\nsumary = [\"summary\"]\n",
        "[hosting]\nlive_record = \"sometimes\"\n",
        "[hosting]\nnetlify = \"yes\"\n",
        "[watch]\ndebounce_ms = -1\n",
        "languages = []\n",
        "[api]\nversion = \"v1\"\n",
    ] {
        let problems = config_problems(&validator, text);
        assert!(
            problems.iter().any(|p| p.starts_with("the parser"))
                && problems.iter().any(|p| p.starts_with("the schema")),
            "{text:?}: the parser and the schema must both refuse it: {problems:?}"
        );
    }
}

#[test]
fn the_bundled_and_the_initial_watch_toml_validate() {
    let validator = validator();
    let bundled = std::fs::read_to_string(root().join("watch.toml")).unwrap();
    let mut problems: Vec<String> = config_problems(&validator, &bundled)
        .into_iter()
        .map(|p| format!("watch.toml: {p}"))
        .collect();
    // And every one the test sites keep.
    fn fixtures(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() && !path.ends_with("node_modules") {
                fixtures(&path, found);
            } else if path.ends_with("watch.toml") {
                found.push(path);
            }
        }
    }
    let mut found = Vec::new();
    fixtures(&root().join("tests/fixtures"), &mut found);
    assert!(found.len() >= 10, "the test sites' watch.toml files");
    for path in found {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.strip_prefix(root()).unwrap().display().to_string();
        problems.extend(
            config_problems(&validator, &text)
                .into_iter()
                .map(|p| format!("{name}: {p}")),
        );
    }
    // `content-api init`'s watch.toml, as written and with every key uncommented.
    let dir = tempfile::tempdir().unwrap();
    run_binary(
        dir.path(),
        &["init", "site", "--today", "2026-11-22"],
        Duration::from_secs(30),
    )
    .assert_success();
    let written = std::fs::read_to_string(dir.path().join("site/watch.toml")).unwrap();
    // Its first line names the committed schema on the repository's main branch, for Taplo.
    let repository = env!("CARGO_PKG_REPOSITORY")
        .strip_prefix("https://github.com/")
        .expect("the repository is on GitHub");
    assert_eq!(
        written.lines().next(),
        Some(
            format!("#:schema https://raw.githubusercontent.com/{repository}/main/{SCHEMA_FILE}")
                .as_str()
        )
    );
    let uncommented: String = written
        .lines()
        .map(|line| {
            line.strip_prefix("# ")
                .filter(|l| l.contains(" = "))
                .unwrap_or(line)
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(written, uncommented);
    for (name, text) in [("init", &written), ("init, uncommented", &uncommented)] {
        problems.extend(
            config_problems(&validator, text)
                .into_iter()
                .map(|p| format!("{name}: {p}")),
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_watch_toml_init_writes_into_each_real_site_validates() {
    let validator = validator();
    let sites = root().join("tests/fixtures/sites");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&sites)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    names.sort();
    assert!(
        names.len() >= 5,
        "the real sites are in {}",
        sites.display()
    );
    let mut problems = Vec::new();
    for site in names {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(&site, dir.path());
        let _ = std::fs::remove_file(dir.path().join("watch.toml"));
        run_binary(dir.path(), &["init"], Duration::from_secs(60)).assert_success();
        let written = std::fs::read_to_string(dir.path().join("watch.toml")).unwrap();
        let name = site.file_name().unwrap().to_string_lossy().to_string();
        if !written.starts_with("#:schema https://") {
            problems.push(format!("{name}: no #:schema line first"));
        }
        problems.extend(
            config_problems(&validator, &written)
                .into_iter()
                .map(|p| format!("{name}: {p}")),
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
