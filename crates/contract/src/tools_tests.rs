//! Unit tests of the tool table: every tool reads real operations with its inputs, and each
//! kind of bad input gets its own error text naming the input.

use super::*;
use crate::model::{Lang, Languages};
use crate::operations::operations;

fn tool(name: &str) -> &'static Tool {
    Tool::by_name(name).unwrap()
}

fn error(name: &str, arguments: Value) -> String {
    tool(name)
        .request(Some(&arguments), &Languages::seed())
        .unwrap_err()
}

#[test]
fn every_tool_maps_onto_operations_and_takes_their_parameters() {
    for tool in &TOOLS {
        let seed = Languages::seed();
        assert!(!tool.operations(&seed).is_empty());
        for op in tool.operations(&seed) {
            assert!(operations(&seed).iter().any(|o| o.id == op.id), "{}", op.id);
            for param in op.params {
                assert!(
                    tool.inputs
                        .iter()
                        .any(|(input, _)| input.name() == param.name()),
                    "{} lacks {}",
                    tool.name,
                    param.name()
                );
            }
        }
        let schema = tool.input_schema(&Languages::seed());
        for (_, property) in schema["properties"].as_object().unwrap() {
            if let Some(pattern) = property.get("pattern") {
                assert_eq!(pattern, SLUG_PATTERN);
            }
        }
        // A name parameter, or the search's `tag`: where the site's names are listed.
        let named_param = match tool.reads {
            Reads::Operation(id) => Operation::by_id(id).params.len() > 1,
            Reads::PostList { .. } => true,
        };
        assert_eq!(
            named_param,
            !tool.not_found_hint.is_empty(),
            "{}",
            tool.name
        );
    }
    let ko = Lang::parse("ko").unwrap();
    let site = Languages::new(vec![ko]).unwrap();
    let ids: Vec<&str> = tool("search_posts")
        .operations(&site)
        .iter()
        .map(|op| op.id)
        .collect();
    assert_eq!(ids, ["listPostsInKorean", "listPosts"]);
    let schema = tool("search_posts").input_schema(&site);
    assert_eq!(schema["properties"]["lang"]["enum"], json!(["ko"]));
    let request = tool("search_posts")
        .request(Some(&json!({ "lang": "ko" })), &site)
        .unwrap();
    assert_eq!(request.path, "api/posts-ko.json");
    assert!(
        tool("search_posts")
            .description(&site)
            .contains("of its one language without `lang`")
    );
}

#[test]
fn valid_inputs_name_the_operations_file() {
    let request = tool("get_series")
        .request(
            Some(&json!({ "lang": "es", "slug": "intro" })),
            &Languages::seed(),
        )
        .unwrap();
    assert_eq!(request.path, "api/series/es/intro.json");
    assert_eq!(
        request.not_found,
        "Input `slug`: \"intro\" not found (GET /api/series/es/intro.json answered 404). list_series gives the series of a language."
    );
    assert_eq!(
        tool("get_api_index")
            .request(None, &Languages::seed())
            .unwrap()
            .path,
        "api/index.json"
    );
    assert_eq!(
        tool("list_talks")
            .request(Some(&json!({ "lang": "en" })), &Languages::seed())
            .unwrap()
            .path,
        "api/slides-timeline/en.json"
    );
    let search = tool("search_posts")
        .request(
            Some(&json!({ "query": " Rust\tCAFÉ ", "tag": "rust" })),
            &Languages::seed(),
        )
        .unwrap();
    assert_eq!(search.path, "api/posts.json");
    assert_eq!(
        search.search,
        Some(Search {
            words: vec!["rust".into(), "café".into()],
            tag: Some("rust".into())
        })
    );
    let spanish = tool("search_posts").request(Some(&json!({ "lang": "es" })), &Languages::seed());
    assert_eq!(spanish.unwrap().path, "api/posts-es.json");
}

#[test]
fn a_bad_input_is_an_error_naming_it() {
    assert_eq!(
        error("list_series", json!({})),
        "Missing input `lang`: Content language. Any other value yields 404."
    );
    assert_eq!(
        error("list_series", json!({ "lang": "fr" })),
        "Input `lang` must be one of en, es, not \"fr\"."
    );
    assert_eq!(
        error("get_series", json!({ "lang": "en", "slug": "../x" })),
        "Input `slug` must match ^[a-z0-9-]+$, not \"../x\"."
    );
    assert_eq!(
        error("get_tag_timeline", json!({ "lang": "en", "tag": 3 })),
        "Input `tag` must be a string, not a number."
    );
    assert_eq!(
        error("search_posts", json!({ "query": "" })),
        "Input `query` must not be empty."
    );
    assert_eq!(
        error("search_posts", json!({ "zeta": 1, "alpha": 2 })),
        "Unknown input \"alpha\": search_posts takes `query`, `lang`, `tag`."
    );
    assert_eq!(
        error("get_api_index", json!({ "lang": "en" })),
        "Unknown input \"lang\": get_api_index takes no input."
    );
    assert_eq!(
        tool("get_api_index")
            .request(Some(&json!([1])), &Languages::seed())
            .unwrap_err(),
        "The input must be an object, not an array."
    );
}

#[test]
fn search_keeps_matching_entries_byte_for_byte() {
    let list = r#"[{"title":"Rust in Production","description":"Notes","tags":["rust"]},{"title":"Café","description":"Un CAFÉ con leche","tags":["coffee"]},{"title":"Other","description":"x","tags":[]}]"#;
    let search = |words: &[&str], tag: Option<&str>| {
        Search {
            words: words.iter().map(|w| w.to_string()).collect(),
            tag: tag.map(str::to_string),
        }
        .filter(list)
        .unwrap()
    };
    assert_eq!(
        search(&["rust"], None),
        r#"[{"title":"Rust in Production","description":"Notes","tags":["rust"]}]"#
    );
    assert_eq!(search(&["café", "leche"], None).matches("Café").count(), 1);
    assert_eq!(search(&[], Some("coffee")).matches("\"title\"").count(), 1);
    assert_eq!(search(&[], None).matches("\"title\"").count(), 3);
    assert_eq!(search(&["nothing"], None), "[]");
    assert_eq!(search(&["rust"], Some("coffee")), "[]");
}

/// docs/agents.md: a tag the site does not have is an error naming the input, as
/// `get_tag_timeline` gives; a tag some post carries, matching no words, is `[]`.
#[test]
fn search_with_a_tag_no_post_carries_is_an_error_naming_it() {
    let list = r#"[{"title":"Rust","description":"x","tags":["rust"],"topics":["systems"]}]"#;
    let search = |tag: &str| {
        Search {
            words: vec!["nothing".into()],
            tag: Some(tag.into()),
        }
        .filter(list)
    };
    assert_eq!(search("rust").unwrap(), "[]");
    assert_eq!(search("systems").unwrap(), "[]");
    assert_eq!(
        search("no-such-tag").unwrap_err(),
        "Input `tag`: \"no-such-tag\" not found (no post of the list carries it). \
         get_api_index lists every tag timeline of each language."
    );
    // Without a tag, an empty list is an empty result.
    let empty = Search {
        words: Vec::new(),
        tag: None,
    };
    assert_eq!(empty.filter("[]").unwrap(), "[]");
}
