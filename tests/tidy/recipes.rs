//! The output documents' table (`contract::documents`) and CONTRIBUTING.md's recipes: the lists
//! derived from the table are the ones written out before it, every output document the sample
//! build writes has exactly one row, and every file, item and test module a recipe names exists.

use content_api::documents::OUTPUT_DOCUMENTS;
use content_api::render::host_files::twin_pages;
use content_api::render::{DOCUMENTS_LANE_FILES, LISTED_DOCUMENTS};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const CONTRIBUTING: &str = "CONTRIBUTING.md";
const RECIPE_HEADING: &str = "### Recipe: ";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_lists_derived_from_the_table_are_those_written_out_before_it() {
    // Each list as its own crate wrote it out before the table (issue 51): the index's links in
    // their order, which `api/index.json`, the catalogs, the portal and `_headers` follow.
    let documents: Vec<(&str, &str, &str)> = LISTED_DOCUMENTS
        .iter()
        .map(|d| (d.name, d.path, d.file))
        .collect();
    assert_eq!(
        documents,
        [
            ("openapi", "/openapi.json", "openapi.json"),
            ("developers", "/developers", "developers/index.html"),
            ("developers_markdown", "/developers.md", "developers.md"),
            ("llms_txt", "/llms.txt", "llms.txt"),
            ("llms_full_txt", "/llms-full.txt", "llms-full.txt"),
            ("auth", "/auth.md", "auth.md"),
            (
                "api_catalog",
                "/.well-known/api-catalog",
                ".well-known/api-catalog"
            ),
            (
                "ai_catalog",
                "/.well-known/ai-catalog.json",
                ".well-known/ai-catalog.json"
            ),
            (
                "mcp_server_card",
                "/.well-known/mcp/server-card.json",
                ".well-known/mcp/server-card.json"
            ),
            (
                "mcp_tools_module",
                "/.well-known/mcp/tools.js",
                ".well-known/mcp/tools.js"
            ),
            (
                "agent_skills",
                "/.well-known/agent-skills/index.json",
                ".well-known/agent-skills/index.json"
            ),
        ]
    );
    assert_eq!(
        DOCUMENTS_LANE_FILES,
        [
            "developers/index.html",
            "developers.md",
            "llms.txt",
            "llms-full.txt"
        ]
    );
    assert_eq!(
        twin_pages(&content_api::model::Languages::seed()),
        ["developers", "auth", "blog/", "es/blog/"]
    );
}

/// Every file below `dir`, relative to it, with `/`.
fn files_below(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let entries =
            std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path.strip_prefix(dir).unwrap();
                files.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    files.sort();
    files
}

/// Whether the output file at `path` is one the table does not describe: the API, the tool's
/// state, the host files, the posts' Markdown twins, the published skills and the deploy record.
fn outside_the_table(path: &str) -> bool {
    let skills = content_api::paths::AGENT_SKILLS_INDEX.trim_end_matches("index.json");
    path.starts_with("api/")
        || path.starts_with(".content-api/")
        || content_api::http::HOST_FILES.contains(&path)
        || content_api::http::is_post_twin(path)
        || (path.starts_with(skills) && path.ends_with("/SKILL.md"))
        || path == content_api::deploy::DEPLOY_RECORD_PATH
}

#[test]
fn every_output_document_of_the_sample_has_exactly_one_row() {
    // The committed out/ is the build of the bundled sample (`golden::` checks it).
    let written = files_below(&root().join("out"));
    let rows: Vec<&str> = OUTPUT_DOCUMENTS.iter().map(|row| row.file).collect();
    for path in written.iter().filter(|path| !outside_the_table(path)) {
        let matching = rows.iter().filter(|file| **file == path.as_str()).count();
        assert_eq!(
            matching, 1,
            "out/{path}: {matching} rows of OUTPUT_DOCUMENTS (crates/contract/src/documents.rs) \
             describe it; add its row (CONTRIBUTING.md, \"Recipe: add an output document\")"
        );
    }
    for file in rows {
        assert!(
            written.iter().any(|path| path == file),
            "OUTPUT_DOCUMENTS has a row for {file}, which a build of the sample does not write"
        );
    }
}

/// A recipe of CONTRIBUTING.md: its title and the text of each numbered step.
struct Recipe {
    title: String,
    steps: Vec<String>,
}

fn recipes(text: &str) -> Vec<Recipe> {
    let mut recipes: Vec<Recipe> = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if let Some(title) = line.strip_prefix(RECIPE_HEADING) {
            recipes.push(Recipe {
                title: title.to_string(),
                steps: Vec::new(),
            });
            inside = true;
        } else if line.starts_with('#') {
            inside = false;
        } else if inside {
            let recipe = recipes.last_mut().unwrap();
            let numbered = line
                .split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
            match recipe.steps.last_mut() {
                Some(step) if !numbered => {
                    step.push(' ');
                    step.push_str(line.trim());
                }
                _ if numbered => recipe.steps.push(line.trim().to_string()),
                _ => {}
            }
        }
    }
    recipes
}

/// The spans between backticks.
fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// Whether `span` names a file or folder of the repository (`crates/…/x.rs`, `render/docs/`).
fn is_path(span: &str) -> bool {
    !span.contains(' ') && span.contains('/') && (span.ends_with(".rs") || span.ends_with('/'))
}

/// Whether `span` names a Rust item (`OUTPUT_DOCUMENTS`, `OutputKind`).
fn is_item(span: &str) -> bool {
    let mut chars = span.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `span` resolved against the repository root, or a folder above a path named before it.
fn resolve(span: &str, named: &[PathBuf]) -> Option<PathBuf> {
    let at_root = root().join(span);
    if at_root.exists() {
        return Some(at_root);
    }
    named
        .iter()
        .flat_map(|path| path.ancestors().skip(1))
        .map(|folder| folder.join(span))
        .find(|candidate| candidate.exists())
}

/// Whether the Rust file at `path` declares `item`.
fn declares(path: &Path, item: &str) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    ["const", "static", "struct", "enum", "fn", "type", "trait"]
        .iter()
        .any(|keyword| {
            text.contains(&format!("{keyword} {item}:"))
                || text.contains(&format!("{keyword} {item} "))
                || text.contains(&format!("{keyword} {item}<"))
                || text.contains(&format!("{keyword} {item}("))
        })
}

#[test]
fn every_recipe_names_files_items_and_tests_that_exist() {
    let text = std::fs::read_to_string(root().join(CONTRIBUTING)).unwrap();
    let recipes = recipes(&text);
    assert!(recipes.len() >= 2, "{CONTRIBUTING} has its recipes");
    for recipe in &recipes {
        let title = &recipe.title;
        assert!(!recipe.steps.is_empty(), "recipe {title:?} has no steps");
        let mut named: Vec<PathBuf> = Vec::new();
        for step in &recipe.steps {
            let mut files_of_step: Vec<PathBuf> = Vec::new();
            for span in code_spans(step).into_iter().filter(|s| is_path(s)) {
                let Some(path) = resolve(span, &named) else {
                    panic!("recipe {title:?} names `{span}`, which is not in the repository");
                };
                files_of_step.push(path.clone());
                named.push(path);
            }
            for item in code_spans(step).into_iter().filter(|s| is_item(s)) {
                let mut rust_files = files_of_step.iter().chain(&named).filter_map(|path| {
                    if path.is_dir() {
                        None
                    } else {
                        Some(path.as_path())
                    }
                });
                assert!(
                    rust_files.any(|path| declares(path, item)),
                    "recipe {title:?} names `{item}`, which no file it names declares"
                );
            }
            for command in code_spans(step).into_iter().filter(|s| s.contains(' ')) {
                for module in command.split(' ').filter_map(|w| w.strip_suffix("::")) {
                    assert!(
                        root().join("tests").join(format!("{module}.rs")).is_file(),
                        "recipe {title:?} runs `{module}::`, which is no module of tests/"
                    );
                }
            }
        }
    }

    // The facts about an output document are stated once: its recipe names the table, and
    // none of the lists derived from it.
    let documents = recipes
        .iter()
        .find(|r| r.title == "add an output document")
        .expect("the recipe to add an output document");
    let spans: BTreeSet<&str> = documents
        .steps
        .iter()
        .flat_map(|step| code_spans(step))
        .collect();
    assert!(spans.contains("OUTPUT_DOCUMENTS"), "{spans:?}");
    for derived in [
        "LISTED_DOCUMENTS",
        "DOCUMENTS_LANE_FILES",
        "YIELDS_TO_SITE",
        "twin_pages",
        "DOCUMENT_TYPES",
    ] {
        assert!(
            !spans.contains(derived),
            "the recipe names `{derived}`, a list derived from OUTPUT_DOCUMENTS"
        );
    }
}

#[test]
fn the_recipe_walker_catches_what_does_not_exist() {
    // A planted step: a missing file and an item its file does not declare.
    let text = "### Recipe: planted\n\n1. Its row in `NO_SUCH_TABLE` (`crates/contract/src/paths.rs`)\n   and `crates/nowhere/src/x.rs`.\n";
    let recipes = recipes(text);
    assert_eq!(recipes.len(), 1);
    let step = &recipes[0].steps[0];
    let spans = code_spans(step);
    assert_eq!(
        spans,
        [
            "NO_SUCH_TABLE",
            "crates/contract/src/paths.rs",
            "crates/nowhere/src/x.rs"
        ]
    );
    let paths = resolve("crates/contract/src/paths.rs", &[]).unwrap();
    assert!(!declares(&paths, "NO_SUCH_TABLE"));
    assert!(declares(&paths, "LLMS_TXT"));
    assert!(resolve("crates/nowhere/src/x.rs", &[]).is_none());
    assert!(
        resolve(
            "render/groups.rs",
            &[root().join("crates/engine/src/render/docs/")]
        )
        .is_some()
    );
}
