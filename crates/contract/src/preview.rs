//! What the build side tells `content-api serve`'s preview, as plain values: the content's
//! problems and what will go live. Counterparts of the engine's diagnostics and schedule,
//! converted in one place (`src/cli/serve.rs`), so the server never parses content.

use serde::Serialize;

/// One problem in the content, as the preview shows it (on the landing page, over the pages,
/// and as JSON at `/__diagnostics` and in the change stream).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DiagnosticView {
    /// `"error"` or `"warning"`.
    pub severity: &'static str,
    /// Relative to the content folder.
    pub path: String,
    /// 1-based, when the problem has a position.
    pub line: Option<usize>,
    /// 1-based, when the problem has a position.
    pub column: Option<usize>,
    /// The one-line message, without the source excerpt.
    pub message: String,
    /// The full message as the terminal shows it (source line, underline, help), no colour.
    pub rendered: String,
}

/// What will go live: the drafts and scheduled posts and decks, as the landing page shows them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PendingList {
    /// Soonest first.
    pub entries: Vec<PendingEntry>,
    /// The site's time zone (scheduled content goes live at midnight there).
    pub timezone: String,
    /// This preview publishes drafts (`--drafts`).
    pub drafts_shown: bool,
    /// This preview publishes scheduled content (`--future`).
    pub future_shown: bool,
}

/// One draft or scheduled post or deck.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingEntry {
    /// `true`: a draft; `false`: scheduled.
    pub draft: bool,
    /// `post` or `deck`.
    pub kind: &'static str,
    /// `en` or `es`.
    pub lang: &'static str,
    /// Relative to the content folder.
    pub path: String,
    /// `YYYY-MM-DD`: the date it goes live on (a draft: its date, once it is no draft).
    pub date: String,
    /// The `title` field, to name the entry in the list.
    pub title: String,
}
