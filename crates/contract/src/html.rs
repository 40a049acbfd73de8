//! The two pieces of HTML the tool's pages share: escaping text for an element or an
//! attribute, and the tag that loads an ES module (how a page registers the browser tools, and
//! what the MCP server card's `include` names). The developer portal and `serve`'s landing page
//! both write their HTML with them.

/// Text for an HTML element or a double- or single-quoted attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The one line a page adds to load an ES module: how a page registers the browser tools
/// (`webmcp`). `src` must already be escaped for an HTML attribute.
pub fn module_script_tag(src: &str) -> String {
    format!("<script type=\"module\" src=\"{src}\"></script>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_escapes_markup_and_quotes() {
        assert_eq!(
            escape(r#"<a href="x">Tom & 'Jerry'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;"
        );
        assert_eq!(escape("año “x”"), "año “x”");
    }
}
