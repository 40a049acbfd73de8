//! The flags of `new post|series|deck|tag`: one subcommand per kind, each with the flags that
//! kind uses (`new post --help` lists `--tags`, `new series --help` does not).

use super::super::flags::{ConfigFlag, ContentFlag, Flags, Given, TodayFlag};
use chrono::NaiveDate;
use clap::{Args, Subcommand, ValueEnum};

/// What `new` creates.
#[derive(Debug, Subcommand)]
pub enum NewCommand {
    /// Create a blog post, `blog/<lang>/<date>_<slug>.md`, dated today in the site's time zone,
    /// and print its path: `content-api new post "My First Post" --tags rust,web`. The slug comes
    /// from the title (or --slug), as the build reads it from the file name. Tags that have no
    /// file in `tags/` yet are created (and named on stderr).
    Post(NewPost),
    /// Create a series definition, `series/<slug>.md`, and print its path (posts join it with
    /// `--series <slug>`).
    Series(NewSeries),
    /// Create a slide deck, `slides/<lang>/<date>_<slug>.md`, dated today in the site's time
    /// zone, and print its path.
    Deck(NewDeck),
    /// Create a tag of the taxonomy, `tags/<name>.md`, and print its path (posts name it in
    /// their `tags`).
    Tag(NewTag),
}

impl NewCommand {
    /// The kind's word (`post`).
    pub fn word(&self) -> &'static str {
        match self {
            NewCommand::Post(_) => "post",
            NewCommand::Series(_) => "series",
            NewCommand::Deck(_) => "deck",
            NewCommand::Tag(_) => "tag",
        }
    }
}

impl Flags for NewCommand {
    fn give(&self, to: &mut Given) {
        let (config, content, today) = match self {
            NewCommand::Post(post) => (&post.config, &post.content, Some(&post.today)),
            NewCommand::Deck(deck) => (&deck.config, &deck.content, Some(&deck.today)),
            NewCommand::Series(series) => (&series.config, &series.content, None),
            NewCommand::Tag(tag) => (&tag.config, &tag.content, None),
        };
        config.give(to);
        content.give(to);
        if let Some(today) = today {
            today.give(to);
        }
    }
}

/// `--lang`.
#[derive(Debug, Clone, Args)]
pub struct LangFlag {
    /// Language of the post or deck: one of the site's `languages` (default: its default
    /// language). A translation uses the same --slug as the original, so every language
    /// version shares one file name.
    #[arg(long, value_name = "LANG")]
    pub lang: Option<String>,
}

/// `--slug` and `--description`.
#[derive(Debug, Clone, Args)]
pub struct NamingFlags {
    /// The slug (the file name and the URL). Default: derived from the title, lowercase ASCII
    /// letters, digits and hyphens (`Café con Leche!` → `cafe-con-leche`).
    #[arg(long)]
    pub slug: Option<String>,

    /// The description (default: the title; edit it before publishing).
    #[arg(long)]
    pub description: Option<String>,
}

/// `--date` and `--draft`.
#[derive(Debug, Clone, Args)]
pub struct DatingFlags {
    /// Publication date. Default: today in the site's time zone (or --today). A later date
    /// schedules it: it goes live on that date (`content-api list scheduled` shows it).
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub date: Option<NaiveDate>,

    /// Mark it as a draft: published only by a preview (`--drafts`) until the line
    /// `draft: true` is removed.
    #[arg(long)]
    pub draft: bool,
}

/// Flags of `new post`.
#[derive(Debug, Clone, Args)]
pub struct NewPost {
    /// The title, in quotes: `content-api new post "My First Post"`.
    pub title: String,
    #[command(flatten)]
    pub lang: LangFlag,
    #[command(flatten)]
    pub naming: NamingFlags,
    #[command(flatten)]
    pub dating: DatingFlags,

    /// Tags of the post, comma-separated. A tag without a file in `tags/` gets one (a primary
    /// tag, as `content-api new tag NAME` makes it), named on stderr.
    #[arg(long, value_delimiter = ',', value_name = "TAG,...")]
    pub tags: Vec<String>,

    /// The series the post belongs to; it must exist under `series/` (`content-api new series`).
    #[arg(long, value_name = "NAME")]
    pub series: Option<String>,

    #[command(flatten)]
    pub config: ConfigFlag,
    #[command(flatten)]
    pub content: ContentFlag,
    #[command(flatten)]
    pub today: TodayFlag,
}

/// Flags of `new deck`.
#[derive(Debug, Clone, Args)]
pub struct NewDeck {
    /// The title, in quotes: `content-api new deck "My Talk"`.
    pub title: String,
    #[command(flatten)]
    pub lang: LangFlag,
    #[command(flatten)]
    pub naming: NamingFlags,
    #[command(flatten)]
    pub dating: DatingFlags,
    #[command(flatten)]
    pub config: ConfigFlag,
    #[command(flatten)]
    pub content: ContentFlag,
    #[command(flatten)]
    pub today: TodayFlag,
}

/// Flags of `new series`.
#[derive(Debug, Clone, Args)]
pub struct NewSeries {
    /// The title, in quotes: `content-api new series "Learning Rust"`.
    pub title: String,
    #[command(flatten)]
    pub naming: NamingFlags,
    #[command(flatten)]
    pub config: ConfigFlag,
    #[command(flatten)]
    pub content: ContentFlag,
}

/// A tag's tier in the taxonomy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TierArg {
    /// A main topic of the site.
    Primary,
    /// A topic under a primary one.
    Secondary,
    /// A narrow topic.
    Subtopic,
}

impl TierArg {
    /// As the front matter writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            TierArg::Primary => "primary",
            TierArg::Secondary => "secondary",
            TierArg::Subtopic => "subtopic",
        }
    }
}

/// Flags of `new tag`.
#[derive(Debug, Clone, Args)]
pub struct NewTag {
    /// The tag's name: its file name and URL segment, lowercase letters, digits and hyphens
    /// (`content-api new tag coffee`).
    pub name: String,

    /// Where the tag sits in the taxonomy.
    #[arg(long, value_enum, default_value_t = TierArg::Primary)]
    pub tier: TierArg,

    /// What the tag is about, in one sentence.
    #[arg(long)]
    pub description: Option<String>,

    /// The tag this one belongs under; it must exist under `tags/`.
    #[arg(long, value_name = "TAG")]
    pub parent: Option<String>,

    #[command(flatten)]
    pub config: ConfigFlag,
    #[command(flatten)]
    pub content: ContentFlag,
}
