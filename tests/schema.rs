//! Every JSON file the build writes validates against the schema that `openapi.json` gives for
//! its operation, strictly: required fields present, formats checked, and no field that the
//! schema does not declare.

use crate::common;

use common::*;
use serde_json::{Value, json};
use std::path::Path;

/// The operation's path template as a regex over output paths; `{lang}` is one of `languages`
/// (the codes of the description's `Language` schema).
fn template_regex(template: &str, languages: &[String]) -> regex_lite::Regex {
    let languages: Vec<String> = languages.iter().map(|l| regex_lite::escape(l)).collect();
    let pattern = regex_lite::escape(template.trim_start_matches('/'))
        .replace(r"\{lang\}", &format!("({})", languages.join("|")))
        .replace(r"\{slug\}", "[a-z0-9-]+")
        .replace(r"\{tag\}", "[a-z0-9-]+");
    regex_lite::Regex::new(&format!("^{pattern}$")).unwrap()
}

/// Adds `additionalProperties: false` to every object schema that lists its properties, so an
/// undeclared field fails validation (the published schema stays open, as the contract says
/// clients must ignore unknown fields).
fn strict(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            if object.contains_key("properties") && !object.contains_key("additionalProperties") {
                object.insert("additionalProperties".into(), Value::Bool(false));
            }
            object.values_mut().for_each(strict);
        }
        Value::Array(items) => items.iter_mut().for_each(strict),
        _ => {}
    }
}

fn validator(components: &Value, schema_name: &str) -> jsonschema::Validator {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/components/schemas/{schema_name}"),
        "components": components,
    });
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the schema compiles")
}

/// Validates every JSON file of a build against the schemas of its `openapi.json`. Returns the
/// number of files checked (every file under `api/`: one that no operation describes fails).
pub fn validate_build(out: &Path) -> usize {
    let files = read_tree(out);
    let openapi: Value = serde_json::from_slice(&files["openapi.json"]).unwrap();
    let languages: Vec<String> = openapi["components"]["schemas"]["Language"]["enum"]
        .as_array()
        .expect("the Language schema lists the site's languages")
        .iter()
        .map(|code| code.as_str().unwrap().to_string())
        .collect();
    let mut components = openapi["components"].clone();
    strict(&mut components);
    let mut routes = Vec::new();
    for (template, item) in openapi["paths"].as_object().unwrap() {
        let reference =
            item["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
                .as_str()
                .unwrap();
        let name = reference.rsplit('/').next().unwrap().to_string();
        routes.push((
            template_regex(template, &languages),
            validator(&components, &name),
        ));
    }
    let error = validator(&components, "Error");
    let mut checked = 0;
    for (path, bytes) in &files {
        if !path.starts_with("api/") {
            continue;
        }
        let instance: Value =
            serde_json::from_slice(bytes).unwrap_or_else(|e| panic!("{path} is not JSON: {e}"));
        let validator = if [
            "api/404.html",
            "api/404.json",
            "api/405.json",
            "api/410.json",
            "api/500.json",
        ]
        .contains(&path.as_str())
        {
            &error
        } else {
            &routes
                .iter()
                .find(|(regex, _)| regex.is_match(path))
                .unwrap_or_else(|| panic!("{path} matches no operation of openapi.json"))
                .1
        };
        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .take(5)
            .collect();
        assert!(
            errors.is_empty(),
            "{path} does not match its schema: {errors:#?}"
        );
        checked += 1;
    }
    checked
}

#[test]
fn the_committed_sample_build_matches_its_openapi_schemas() {
    let checked = validate_build(&repo().join("out"));
    assert!(checked > 40, "only {checked} files checked");
}

#[test]
fn a_preview_build_with_drafts_matches_too() {
    let out = tempfile::tempdir().unwrap();
    build(&repo().join("content"), out.path(), &["--drafts"]);
    validate_build(out.path());
    let detail: Value = serde_json::from_slice(
        &std::fs::read(
            out.path()
                .join("api/series/en/incremental-builds-in-rust.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert!(
        detail["posts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["isDraft"] == true),
        "the draft chapter is published with isDraft"
    );
}

/// A corpus with lists longer than one run, many tags in every tier, series and drafts: every
/// file validates, and every file under `api/` is checked.
#[test]
fn a_large_synthetic_corpus_build_matches_too() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = synthetic_corpus(dir.path());
    let out = dir.path().join("out");
    build(&corpus, &out, &[]);
    let api_files = read_tree(&out)
        .keys()
        .filter(|p| p.starts_with("api/"))
        .count();
    assert!(api_files > 100, "{api_files} files under api/");
    assert_eq!(validate_build(&out), api_files);
}

#[test]
#[ignore = "needs the real corpus at ../shared/corpus/xergioalex: cargo test --test integration -- --ignored schema::"]
fn the_real_corpus_build_matches_too() {
    let corpus = corpus();
    let out = tempfile::tempdir().unwrap();
    build(&corpus, out.path(), &[]);
    assert!(validate_build(out.path()) > 90);
}

#[test]
fn the_strict_check_catches_an_undeclared_or_missing_field() {
    let openapi: Value =
        serde_json::from_slice(&std::fs::read(repo().join("out/openapi.json")).unwrap()).unwrap();
    let mut components = openapi["components"].clone();
    strict(&mut components);
    let listing = validator(&components, "SeriesListing");
    let good: Value = serde_json::from_slice(
        &std::fs::read(repo().join("out/api/series/en/index.json")).unwrap(),
    )
    .unwrap();
    assert!(listing.is_valid(&good));
    let mut extra = good.clone();
    extra["series"][0]["surprise"] = json!(1);
    assert!(!listing.is_valid(&extra));
    let mut missing = good.clone();
    missing["series"][0]
        .as_object_mut()
        .unwrap()
        .remove("firstPostHero");
    assert!(!listing.is_valid(&missing));
    let mut null_optional = good;
    null_optional["series"][0]["lastPostDate"] = json!("yesterday");
    assert!(!listing.is_valid(&null_optional), "formats are checked");
}
