//! A small document model rendered both as an HTML page and as Markdown, so a page and its
//! Markdown twin are the same text by construction. Every piece of text is escaped for the
//! format it is written in.

use super::text::markdown;
use crate::html;

/// A run of inline content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inline {
    Text(String),
    Code(String),
    Strong(String),
    /// A link. `href` is an absolute URL, or `#fragment` for a place on the same page.
    Link {
        text: String,
        href: String,
    },
}

pub fn text(text: impl Into<String>) -> Inline {
    Inline::Text(text.into())
}

pub fn code(text: impl Into<String>) -> Inline {
    Inline::Code(text.into())
}

pub fn strong(text: impl Into<String>) -> Inline {
    Inline::Strong(text.into())
}

pub fn link(text: impl Into<String>, href: impl Into<String>) -> Inline {
    Inline::Link {
        text: text.into(),
        href: href.into(),
    }
}

/// A block of the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    /// A heading; `id` is the fragment that links to it (`#errors`).
    Heading {
        level: u8,
        id: Option<String>,
        text: String,
    },
    Paragraph(Vec<Inline>),
    List(Vec<Vec<Inline>>),
    Table {
        head: Vec<String>,
        rows: Vec<Vec<Vec<Inline>>>,
    },
    /// Preformatted text (a shell example).
    Code(String),
}

pub fn heading(level: u8, id: Option<&str>, text: impl Into<String>) -> Block {
    Block::Heading {
        level,
        id: id.map(str::to_string),
        text: text.into(),
    }
}

/// A page: its title (the H1), the URL of its HTML form (where `#fragment` links point from
/// the Markdown twin), and its blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    pub title: String,
    pub html_url: String,
    pub markdown_url: String,
    /// ES modules the HTML page loads (`<script type="module">`, in `<head>`): none but the
    /// browser tools (`docs::webmcp`), which the page works without.
    pub modules: Vec<String>,
    pub blocks: Vec<Block>,
}

/// The few rules that keep the HTML page readable without any script or external asset, on a
/// desktop and on a 390 px phone: long code and URLs wrap, a table becomes one card per row
/// (each cell labelled with its column, from `data-label`), and a code block wider than the
/// screen scrolls inside its own box, never the page.
const STYLE: &str = "*{box-sizing:border-box}body{font-family:system-ui,sans-serif;line-height:1.5;margin:0 auto;max-width:56rem;padding:1rem 1.5rem;color:#1b1b1b}code,pre{font-family:ui-monospace,monospace;font-size:.9em}code,a{overflow-wrap:break-word}pre{background:#f4f4f4;padding:.75rem;overflow-x:auto}pre code{overflow-wrap:normal}.table{overflow-x:auto;margin:.5rem 0 1rem}table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}h2{border-bottom:1px solid #ddd;margin-top:2.5rem}h1,h2,h3,h4{overflow-wrap:anywhere}@media (max-width:40rem){body{padding:.75rem}h1{font-size:1.5rem}code,a{overflow-wrap:anywhere}table,tbody,tr,td{display:block}thead{display:none}tr{border:1px solid #ccc;margin:0 0 .75rem;padding:.35rem .6rem}td{border:0;padding:.1rem 0}td::before{content:attr(data-label) \": \";font-weight:600}}";

impl Page {
    /// A complete HTML5 document, with a `rel="alternate"` link to the Markdown twin.
    pub fn to_html(&self) -> String {
        let mut out = String::new();
        out.push_str("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
        out.push_str(&format!("<title>{}</title>\n", html::escape(&self.title)));
        out.push_str(&format!(
            "<link rel=\"alternate\" type=\"text/markdown\" href=\"{}\">\n",
            html::escape(&self.markdown_url)
        ));
        for module in &self.modules {
            out.push_str(&html::module_script_tag(&html::escape(module)));
            out.push('\n');
        }
        out.push_str(&format!(
            "<style>{STYLE}</style>\n</head>\n<body>\n<main>\n"
        ));
        out.push_str(&format!("<h1>{}</h1>\n", html::escape(&self.title)));
        for block in &self.blocks {
            block_html(block, &mut out);
        }
        out.push_str("</main>\n</body>\n</html>\n");
        out
    }

    /// The same page as Markdown. Same-page links become absolute links to the HTML page's
    /// fragments, so every link of the Markdown twin is absolute.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("# {}\n", markdown(&self.title));
        for block in &self.blocks {
            out.push('\n');
            self.block_markdown(block, &mut out);
        }
        out
    }

    fn block_markdown(&self, block: &Block, out: &mut String) {
        match block {
            Block::Heading { level, text, .. } => {
                let hashes = "#".repeat(usize::from(*level));
                out.push_str(&format!("{hashes} {}\n", markdown(text)));
            }
            Block::Paragraph(inlines) => {
                out.push_str(&self.inlines_markdown(inlines));
                out.push('\n');
            }
            Block::List(items) => {
                for item in items {
                    out.push_str(&format!("- {}\n", self.inlines_markdown(item)));
                }
            }
            Block::Table { head, rows } => {
                let head: Vec<String> = head.iter().map(|h| markdown(h)).collect();
                out.push_str(&format!("| {} |\n", head.join(" | ")));
                out.push_str(&format!("|{}\n", "---|".repeat(head.len())));
                for row in rows {
                    let cells: Vec<String> =
                        row.iter().map(|cell| self.inlines_markdown(cell)).collect();
                    out.push_str(&format!("| {} |\n", cells.join(" | ")));
                }
            }
            Block::Code(code) => {
                let fence = fence_for(code);
                out.push_str(&format!("{fence}\n{}\n{fence}\n", code.trim_end()));
            }
        }
    }

    fn inlines_markdown(&self, inlines: &[Inline]) -> String {
        inlines
            .iter()
            .map(|inline| match inline {
                Inline::Text(t) => markdown(t),
                Inline::Code(c) => code_span(c),
                Inline::Strong(t) => format!("**{}**", markdown(t)),
                Inline::Link { text, href } => {
                    let href = if href.starts_with('#') {
                        format!("{}{href}", self.html_url)
                    } else {
                        href.clone()
                    };
                    format!("[{}]({})", markdown(text), link_destination(&href))
                }
            })
            .collect()
    }
}

fn block_html(block: &Block, out: &mut String) {
    match block {
        Block::Heading { level, id, text } => {
            let id = id
                .as_ref()
                .map(|id| format!(" id=\"{}\"", html::escape(id)))
                .unwrap_or_default();
            out.push_str(&format!(
                "<h{level}{id}>{}</h{level}>\n",
                html::escape(text)
            ));
        }
        Block::Paragraph(inlines) => {
            out.push_str(&format!("<p>{}</p>\n", inlines_html(inlines)));
        }
        Block::List(items) => {
            out.push_str("<ul>\n");
            for item in items {
                out.push_str(&format!("<li>{}</li>\n", inlines_html(item)));
            }
            out.push_str("</ul>\n");
        }
        Block::Table { head, rows } => {
            out.push_str("<div class=\"table\"><table>\n<thead><tr>");
            for cell in head {
                out.push_str(&format!("<th>{}</th>", html::escape(cell)));
            }
            out.push_str("</tr></thead>\n<tbody>\n");
            for row in rows {
                out.push_str("<tr>");
                for (cell, label) in row.iter().zip(head) {
                    out.push_str(&format!(
                        "<td data-label=\"{}\">{}</td>",
                        html::escape(label),
                        inlines_html(cell)
                    ));
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</tbody>\n</table></div>\n");
        }
        Block::Code(code) => {
            out.push_str(&format!(
                "<pre><code>{}</code></pre>\n",
                html::escape(code.trim_end())
            ));
        }
    }
}

fn inlines_html(inlines: &[Inline]) -> String {
    inlines
        .iter()
        .map(|inline| match inline {
            Inline::Text(t) => html::escape(t),
            Inline::Code(c) => format!("<code>{}</code>", html::escape(c)),
            Inline::Strong(t) => format!("<strong>{}</strong>", html::escape(t)),
            Inline::Link { text, href } => {
                format!(
                    "<a href=\"{}\">{}</a>",
                    html::escape(href),
                    html::escape(text)
                )
            }
        })
        .collect()
}

/// A link destination as CommonMark reads it: in angle brackets when it has a space or a
/// parenthesis.
pub fn link_destination(href: &str) -> String {
    if href.contains([' ', '(', ')', '<', '>']) {
        format!("<{}>", href.replace('<', "%3C").replace('>', "%3E"))
    } else {
        href.to_string()
    }
}

/// A CommonMark code span that holds `code` whatever backticks it contains.
fn code_span(code: &str) -> String {
    let code = code.replace('\n', " ");
    let longest = longest_backtick_run(&code);
    let ticks = "`".repeat(longest + 1);
    let pad = if code.starts_with('`') || code.ends_with('`') {
        " "
    } else {
        ""
    };
    // A pipe would end a table cell even inside a code span.
    let code = code.replace('|', "\\|");
    format!("{ticks}{pad}{code}{pad}{ticks}")
}

/// A code fence longer than any backtick run in `code`.
fn fence_for(code: &str) -> String {
    "`".repeat((longest_backtick_run(code) + 1).max(3))
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page() -> Page {
        Page {
            title: "A <b> & \"c\"".into(),
            html_url: "https://x.example/developers".into(),
            markdown_url: "https://x.example/developers.md".into(),
            modules: Vec::new(),
            blocks: vec![
                heading(2, Some("errors"), "Errors & <codes>"),
                Block::Paragraph(vec![
                    text("See "),
                    link("the list", "#errors"),
                    text(" or "),
                    code("a`b|c"),
                ]),
                Block::Table {
                    head: vec!["Field".into()],
                    rows: vec![vec![vec![strong("x_y")]]],
                },
                Block::Code("curl -s 'https://x.example/a?b=<c>'".into()),
            ],
        }
    }

    #[test]
    fn html_escapes_every_text_and_keeps_ids() {
        let html = page().to_html();
        assert!(html.contains("<title>A &lt;b&gt; &amp; &quot;c&quot;</title>"));
        assert!(html.contains("<h2 id=\"errors\">Errors &amp; &lt;codes&gt;</h2>"));
        assert!(html.contains("<a href=\"#errors\">the list</a>"));
        assert!(html.contains("<code>a`b|c</code>"));
        assert!(
            html.contains(
                "<pre><code>curl -s &#39;https://x.example/a?b=&lt;c&gt;&#39;</code></pre>"
            )
        );
        assert!(!html.contains("<script"));
    }

    #[test]
    fn markdown_links_are_absolute_and_text_is_escaped() {
        let md = page().to_markdown();
        assert!(md.starts_with("# A \\<b\\> & \"c\"\n"));
        assert!(md.contains("[the list](https://x.example/developers#errors)"));
        assert!(md.contains("``a`b\\|c``"));
        assert!(md.contains("| **x\\_y** |"));
        assert!(md.contains("```\ncurl -s 'https://x.example/a?b=<c>'\n```\n"));
    }
}
