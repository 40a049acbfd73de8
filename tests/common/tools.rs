//! The calls every client of the site's tools makes in the tests (the browser's WebMCP, the MCP
//! Python SDK, a raw JSON-RPC client of `content-api mcp`), and what each must answer, worked
//! out from the built files, independently of the tools' own code.

use serde_json::{Value, json};
use std::path::Path;

/// One call and its expected result: `text` and whether it is an error result.
#[derive(Clone, Debug)]
pub struct Case {
    pub tool: &'static str,
    pub arguments: Value,
    pub text: String,
    pub is_error: bool,
}

fn read(out: &Path, file: &str) -> String {
    std::fs::read_to_string(out.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The posts of a post list whose title or description holds every word (lowercased) and whose
/// tags or topics hold `tag`, each re-serialized compactly in the file's key order.
fn search(list: &str, words: &[&str], tag: Option<&str>) -> String {
    let entries: Vec<Value> = serde_json::from_str(list).unwrap();
    let kept: Vec<&Value> = entries
        .iter()
        .filter(|entry| {
            let text = format!(
                "{}\n{}",
                entry["title"].as_str().unwrap(),
                entry["description"].as_str().unwrap()
            )
            .to_lowercase();
            let tagged = tag.is_none_or(|tag| {
                ["tags", "topics"]
                    .iter()
                    .any(|field| entry[*field].as_array().unwrap().iter().any(|t| t == tag))
            });
            tagged && words.iter().all(|word| text.contains(&word.to_lowercase()))
        })
        .collect();
    serde_json::to_string(&kept).unwrap()
}

/// Every tool with valid inputs (a series, a tag and search words taken from the build in
/// `out`), then bad inputs, each naming the input. `rebase` turns a file's text into what the
/// client is served (the preview writes its own origin for the production base URL).
pub fn cases(out: &Path, rebase: &dyn Fn(String) -> String) -> Vec<Case> {
    let file = |name: &str| rebase(read(out, name));
    let ok = |tool, arguments: Value, text: String| Case {
        tool,
        arguments,
        text,
        is_error: false,
    };
    let listing: Value = serde_json::from_str(&read(out, "api/series/en/index.json")).unwrap();
    let series = listing["series"][0]["slug"].as_str().unwrap().to_string();
    let posts_es: Value = serde_json::from_str(&read(out, "api/posts-es.json")).unwrap();
    let tag = posts_es[0]["tags"][0].as_str().unwrap().to_string();
    let posts: Value = serde_json::from_str(&read(out, "api/posts.json")).unwrap();
    // The longest word of the newest title, in capitals: the search ignores case.
    let title = posts[0]["title"].as_str().unwrap();
    let word = title
        .split(' ')
        .max_by_key(|w| w.chars().count())
        .unwrap()
        .to_uppercase();
    let mut cases = vec![
        ok("get_api_index", json!({}), file("api/index.json")),
        ok(
            "list_series",
            json!({ "lang": "en" }),
            file("api/series/en/index.json"),
        ),
        ok(
            "list_series",
            json!({ "lang": "es" }),
            file("api/series/es/index.json"),
        ),
        ok(
            "get_series",
            json!({ "lang": "en", "slug": series }),
            file(&format!("api/series/en/{series}.json")),
        ),
        ok(
            "get_tag_timeline",
            json!({ "lang": "es", "tag": tag }),
            file(&format!("api/timeline/es/{tag}.json")),
        ),
        ok(
            "list_talks",
            json!({ "lang": "en" }),
            file("api/slides-timeline/en.json"),
        ),
        ok(
            "list_talks",
            json!({ "lang": "es" }),
            file("api/slides-timeline/es.json"),
        ),
        ok(
            "search_posts",
            json!({}),
            search(&file("api/posts.json"), &[], None),
        ),
        ok(
            "search_posts",
            json!({ "query": word }),
            search(&file("api/posts.json"), &[&word], None),
        ),
        ok(
            "search_posts",
            json!({ "lang": "es", "tag": tag }),
            search(&file("api/posts-es.json"), &[], Some(&tag)),
        ),
        ok(
            "search_posts",
            json!({ "query": "zzz-no-such-word", "lang": "en" }),
            "[]".into(),
        ),
    ];
    assert!(
        cases[8].text.len() > 2 && cases[8].text != cases[7].text,
        "the search words find some posts, not all: {word}"
    );
    assert!(cases[9].text.len() > 2, "the tag search finds a post");
    cases.extend(every_tag_and_series(out, &file));
    // Bad inputs: (tool, arguments, the input the error names).
    let bad = [
        ("list_series", json!({ "lang": "fr" }), "`lang`"),
        (
            "get_series",
            json!({ "lang": "en", "slug": "no-such-series" }),
            "`slug`",
        ),
        (
            "get_series",
            json!({ "lang": "en", "slug": "Not A Slug" }),
            "`slug`",
        ),
        ("get_tag_timeline", json!({ "lang": "en" }), "`tag`"),
        ("list_talks", json!({ "lang": 3 }), "`lang`"),
        (
            "get_series",
            json!({ "lang": "en", "slug": "index" }),
            "`slug`",
        ),
        ("search_posts", json!({ "query": "" }), "`query`"),
        (
            "search_posts",
            json!({ "query": "rust", "colour": "red" }),
            "\"colour\"",
        ),
        // A tag the site does not have is an error (docs/agents.md), not `[]`.
        (
            "search_posts",
            json!({ "lang": "en", "tag": "no-such-tag" }),
            "`tag`",
        ),
    ];
    for (tool, arguments, names) in bad {
        let text = expected_error(tool, &arguments);
        assert!(text.contains(names), "{tool} {arguments}: {text}");
        cases.push(Case {
            tool,
            arguments,
            text,
            is_error: true,
        });
    }
    cases
}

/// For every tag timeline and every series of the build: `search_posts` with the tag finds the
/// timeline's posts (derived from the timeline file, not from the tools' rule), and
/// `get_series` answers the series' file.
fn every_tag_and_series(out: &Path, file: &dyn Fn(&str) -> String) -> Vec<Case> {
    let mut cases = Vec::new();
    for lang in ["en", "es"] {
        let list: Vec<Value> =
            serde_json::from_str(&file(&format!("api/posts-{lang}.json"))).unwrap();
        let mut tags: Vec<String> = std::fs::read_dir(out.join("api/timeline").join(lang))
            .unwrap()
            .filter_map(|entry| {
                let name = entry.unwrap().file_name().into_string().unwrap();
                name.strip_suffix(".json").map(str::to_string)
            })
            .collect();
        tags.sort();
        for tag in tags {
            let timeline: Value =
                serde_json::from_str(&file(&format!("api/timeline/{lang}/{tag}.json"))).unwrap();
            let slugs: Vec<&str> = timeline["posts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|post| post["slug"].as_str().unwrap())
                .collect();
            let kept: Vec<&Value> = list
                .iter()
                .filter(|entry| slugs.contains(&entry["slug"].as_str().unwrap()))
                .collect();
            assert_eq!(
                kept.len(),
                slugs.len(),
                "{lang}/{tag}: every timeline post is listed"
            );
            cases.push(Case {
                tool: "search_posts",
                arguments: json!({ "lang": lang, "tag": tag }),
                text: serde_json::to_string(&kept).unwrap(),
                is_error: false,
            });
        }
        let listing: Value =
            serde_json::from_str(&file(&format!("api/series/{lang}/index.json"))).unwrap();
        for series in listing["series"].as_array().unwrap() {
            let slug = series["slug"].as_str().unwrap();
            cases.push(Case {
                tool: "get_series",
                arguments: json!({ "lang": lang, "slug": slug }),
                text: file(&format!("api/series/{lang}/{slug}.json")),
                is_error: false,
            });
        }
    }
    cases
}

/// The error text of a bad call, as the tool table words it (an invalid input, or a name the
/// site does not have).
fn expected_error(tool: &str, arguments: &Value) -> String {
    let tool = content_api::tools::Tool::by_name(tool).unwrap();
    match tool.request(Some(arguments), &content_api::model::Languages::seed()) {
        Err(text) => text,
        // A search's error comes from its list: a tag no post carries (none of an empty one).
        Ok(request) => request
            .search
            .and_then(|search| search.filter("[]").err())
            .unwrap_or(request.not_found),
    }
}

/// The tools as `tools/list` and the browser must give them: the server card's, without the
/// operations it adds.
pub fn card_tools(out: &Path) -> Vec<Value> {
    let card: Value = serde_json::from_str(&read(out, ".well-known/mcp/server-card.json")).unwrap();
    let meta = card["_meta"].as_object().unwrap();
    let (_, tools) = meta
        .iter()
        .find(|(key, _)| key.ends_with("/tools"))
        .unwrap();
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            let mut tool = tool.clone();
            tool.as_object_mut().unwrap().remove("operations");
            tool
        })
        .collect()
}

/// Checks one client's results against the cases: `results` are MCP `CallToolResult`s.
pub fn assert_results(client: &str, cases: &[Case], results: &[Value]) {
    assert_eq!(results.len(), cases.len(), "{client}: one result per call");
    for (case, result) in cases.iter().zip(results) {
        let content = result["content"]
            .as_array()
            .unwrap_or_else(|| panic!("{client}: {result}"));
        assert_eq!(
            content.len(),
            1,
            "{client} {} {}: {result}",
            case.tool,
            case.arguments
        );
        assert_eq!(content[0]["type"], "text");
        let text = content[0]["text"].as_str().unwrap();
        assert_eq!(
            result["isError"].as_bool().unwrap_or(false),
            case.is_error,
            "{client} {} {}: {text}",
            case.tool,
            case.arguments
        );
        eprintln!(
            "{client}: {} {} -> {}{} bytes: {}",
            case.tool,
            case.arguments,
            if case.is_error { "error result, " } else { "" },
            text.len(),
            text.chars().take(90).collect::<String>()
        );
        assert!(
            text == case.text,
            "{client} {} {}: got {} bytes, expected {} bytes\n got: {}\nwant: {}",
            case.tool,
            case.arguments,
            text.len(),
            case.text.len(),
            &text[..text.len().min(300)],
            &case.text[..case.text.len().min(300)]
        );
    }
}
