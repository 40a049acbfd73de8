//! The browser tools (`/.well-known/mcp/tools.js`) in a real browser: Debian's `chromium`,
//! headless, with `--enable-features=WebMCPTesting` (which gives pages `document.modelContext`
//! with `registerTool`, `getTools` and `executeTool`), on `content-api serve` of a copy of the
//! sample site.
//!
//! - a page of the site that adds the documented one line gets the card's six tools, with the
//!   card's names, titles, descriptions and input schemas (`getTools()`);
//! - every tool, called with `executeTool()`, answers the file the site serves (filtered for
//!   `search_posts`), and a bad input gets an error result naming it: the same results as
//!   `content-api mcp --site` on the same site;
//! - the developer portal and the preview's landing page register them too;
//! - without WebMCP (no flag) the module registers nothing and raises no error, and its
//!   `callTool` export answers the same.
//!
//! Without chromium, or with one that has no WebMCP, they follow `common::need`'s rule.

use crate::browser;
use crate::common;

use browser::cdp::{Browser, PATIENCE, Page, chromium};
use common::{Case, McpClient, Preview, assert_results, card_tools, cases};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const FLAG: &str = "--enable-features=WebMCPTesting";

/// A page of the site with nothing but the documented line.
const PAGE: &str = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Agents</title>\n<script type=\"module\" src=\"/.well-known/mcp/tools.js\"></script>\n</head>\n<body><p>A page of the site.</p></body>\n</html>\n";

/// The tools registered on the page, once all six are (sorted by name, as the browser lists
/// them).
fn registered_tools(page: &mut Page<'_>) -> Vec<Value> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let tools = page.eval(
            "document.modelContext.getTools().then(tools => tools.map(t => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations })))",
        );
        let tools = tools.as_array().unwrap().clone();
        if tools.len() >= 6 {
            return tools;
        }
        assert!(Instant::now() < deadline, "waited for six tools: {tools:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `executeTool()` of the registered tool `name`: the browser answers the tool's result as
/// JSON text.
fn execute(page: &mut Page<'_>, case: &Case) -> Value {
    let expression = format!(
        "(async () => {{ const tool = (await document.modelContext.getTools()).find(t => t.name === {}); return await document.modelContext.executeTool(tool, {}); }})()",
        json!(case.tool),
        case.arguments
    );
    let answer = page.eval(&expression);
    let text = answer
        .as_str()
        .unwrap_or_else(|| panic!("executeTool answered {answer}"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not a tool result ({e}): {text}"))
}

/// The page's console errors, less the network log of the one 404 the cases ask for (a series
/// that does not exist: the tool answers an error result, and the browser logs the response).
fn script_errors(page: &mut Page<'_>) -> Vec<String> {
    page.console_errors()
        .into_iter()
        .filter(|error| {
            !(error.contains("\"source\":\"network\"")
                && error.contains("/api/series/en/no-such-series.json"))
        })
        .collect()
}

/// Whether this chromium has WebMCP: a skip, or a failure when the browser is required.
fn has_webmcp(page: &mut Page<'_>) -> bool {
    if page.eval("typeof document.modelContext?.registerTool === 'function'") == json!(true) {
        return true;
    }
    common::need::CHROMIUM.missing(&format!(
        "this chromium has no document.modelContext with {FLAG}"
    ));
    false
}

#[test]
fn every_tool_runs_in_the_browser_with_the_cards_schema_and_the_sites_answers() {
    let Some(binary) = chromium() else { return };
    let preview = Preview::start();
    let origin = preview.origin().to_string();
    std::fs::write(preview.out().join("agents.html"), PAGE).unwrap();
    let mut browser = Browser::launch_with(&binary, &[FLAG]);
    let mut page = browser.new_page();
    page.goto(&format!("{origin}/agents.html"));
    if !has_webmcp(&mut page) {
        return;
    }

    // The card's tools: same names, titles, descriptions and input schemas.
    let mut expected = card_tools(&preview.out());
    expected.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    let mut tools = registered_tools(&mut page);
    tools.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    assert_eq!(tools.len(), expected.len(), "{tools:#?}");
    for (tool, card) in tools.iter().zip(&expected) {
        for key in ["name", "title", "description", "inputSchema"] {
            assert_eq!(tool[key], card[key], "{} {key}", card["name"]);
        }
        assert_eq!(
            tool["annotations"]["readOnlyHint"], true,
            "{}",
            card["name"]
        );
    }

    // Every tool, valid and bad inputs: the served files, and the stdio server's answers.
    let base = "https://lucia-montoya.example";
    let rebase = |text: String| text.replace(base, &origin);
    let cases = cases(&preview.out(), &rebase);
    let results: Vec<Value> = cases.iter().map(|case| execute(&mut page, case)).collect();
    assert_results("WebMCP in chromium", &cases, &results);
    let mut stdio = McpClient::start(&["--site", &origin]);
    for (case, browser_result) in cases.iter().zip(&results) {
        let stdio_result = stdio.call(case.tool, &case.arguments);
        assert_eq!(
            stdio_result["content"], browser_result["content"],
            "{} {}",
            case.tool, case.arguments
        );
        assert_eq!(
            stdio_result["isError"].as_bool().unwrap_or(false),
            browser_result["isError"].as_bool().unwrap_or(false)
        );
    }
    let errors = script_errors(&mut page);
    assert!(errors.is_empty(), "console errors: {errors:#?}");

    // The portal and the preview's landing page include the module.
    for path in ["/developers/", "/"] {
        let mut other = browser.new_page();
        other.goto(&format!("{origin}{path}"));
        let names: Vec<Value> = registered_tools(&mut other)
            .iter()
            .map(|tool| tool["name"].clone())
            .collect();
        assert_eq!(names.len(), 6, "{path}: {names:?}");
        let errors = script_errors(&mut other);
        assert!(errors.is_empty(), "{path}: console errors: {errors:#?}");
    }
}

#[test]
fn without_webmcp_the_module_registers_nothing_and_call_tool_still_answers() {
    let Some(binary) = chromium() else { return };
    let preview = Preview::start();
    let origin = preview.origin().to_string();
    std::fs::write(preview.out().join("agents.html"), PAGE).unwrap();
    let mut browser = Browser::launch(&binary);
    let mut page = browser.new_page();
    page.goto(&format!("{origin}/agents.html"));
    assert_eq!(
        page.eval("typeof document.modelContext + ' ' + typeof navigator.modelContext"),
        "undefined undefined",
        "no WebMCP without the flag"
    );
    let base = "https://lucia-montoya.example";
    let rebase = |text: String| text.replace(base, &origin);
    let cases = cases(&preview.out(), &rebase);
    let results: Vec<Value> = cases
        .iter()
        .map(|case| {
            page.eval(&format!(
                "import('/.well-known/mcp/tools.js').then(m => m.callTool({}, {}))",
                json!(case.tool),
                case.arguments
            ))
        })
        .collect();
    assert_results("callTool without WebMCP", &cases, &results);
    let errors = script_errors(&mut page);
    assert!(errors.is_empty(), "console errors: {errors:#?}");
}
