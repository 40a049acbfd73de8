//! The media type of a served file: the build's one table (`render::media`), so the preview,
//! every host's configuration and the catalogs that announce the types all agree.

pub use crate::render::media_type;
