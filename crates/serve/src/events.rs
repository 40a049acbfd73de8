//! Live updates: `GET /__events` is a Server-Sent Events stream with one `rebuild` event per
//! publish, carrying the URLs it changed and removed and the lane of watch mode it finished
//! (`api`, then `documents` once the large documents follow; `all` for both at once):
//!
//! ```text
//! event: rebuild
//! data: {"changed":["/api/posts.json"],"removed":[],"lane":"api"}
//! ```
//!
//! The `documents` event comes after every rebuild, also when it changed nothing: from then
//! on the output folder equals a fresh build.
//!
//! With `content-api serve`, a change of the content's diagnostics is `event: diagnostics`
//! (`{"diagnostics":[...]}`, every current one; an empty list once everything is fixed).
//!
//! A change of the drafts and scheduled posts is `event: schedule` (`{}`: the landing page
//! fetches itself again).
//!
//! A subscriber too slow to keep up gets `event: lagged` (reload everything). The stream ends
//! when the server shuts down. Not part of the API contract: production has no such path.

use super::Rebuild;
use super::respond::{Body, empty};
use crate::DiagnosticView;
use bytes::Bytes;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE};
use hyper::{Response, StatusCode};
use std::convert::Infallible;
use std::time::Duration;
use tokio::sync::{broadcast, watch};

/// The URL path of the stream.
pub const EVENTS_PATH: &str = "/__events";

/// A comment line sent this often keeps idle connections (and proxies) open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The first bytes of every stream: the client's reconnection delay, and a comment that tells
/// a client (or a test) the subscription is live.
const OPENING: &[u8] = b"retry: 1000\n: connected\n\n";

/// The SSE frame of one rebuild.
pub fn frame(rebuild: &Rebuild) -> Bytes {
    let data = serde_json::to_string(rebuild).expect("a rebuild serializes");
    Bytes::from(format!("event: rebuild\ndata: {data}\n\n"))
}

/// The SSE frame of the content's current diagnostics.
pub fn diagnostics_frame(diagnostics: &[DiagnosticView]) -> Bytes {
    let data = serde_json::json!({ "diagnostics": diagnostics });
    Bytes::from(format!("event: diagnostics\ndata: {data}\n\n"))
}

/// The frame that tells a subscriber what will go live changed (the landing page refreshes).
pub fn schedule_frame() -> Bytes {
    Bytes::from_static(b"event: schedule\ndata: {}\n\n")
}

/// The frame that tells a subscriber it missed `missed` rebuilds (reload everything).
pub fn lagged(missed: u64) -> Bytes {
    Bytes::from(format!("event: lagged\ndata: {{\"missed\":{missed}}}\n\n"))
}

/// The response to `GET /__events` (`HEAD` gets the headers only).
pub fn response(
    frames: broadcast::Receiver<Bytes>,
    stop: watch::Receiver<bool>,
    head: bool,
) -> Response<Body> {
    let builder = Response::builder()
        .status(StatusCode::OK)
        .header(CONTENT_TYPE, "text/event-stream")
        // No open CORS: the stream names changed drafts' URLs; this origin's pages only.
        .header(CACHE_CONTROL, "no-cache");
    let body = if head { empty() } else { stream(frames, stop) };
    builder.body(body).expect("valid event-stream response")
}

struct Subscriber {
    frames: broadcast::Receiver<Bytes>,
    stop: watch::Receiver<bool>,
    opened: bool,
}

fn stream(frames: broadcast::Receiver<Bytes>, stop: watch::Receiver<bool>) -> Body {
    let subscriber = Subscriber {
        frames,
        stop,
        opened: false,
    };
    let chunks = futures_util::stream::unfold(subscriber, |mut s| async move {
        if !s.opened {
            s.opened = true;
            return Some((Bytes::from_static(OPENING), s));
        }
        if *s.stop.borrow() {
            return None;
        }
        let bytes = tokio::select! {
            received = s.frames.recv() => match received {
                Ok(bytes) => bytes,
                Err(broadcast::error::RecvError::Lagged(missed)) => lagged(missed),
                Err(broadcast::error::RecvError::Closed) => return None,
            },
            _ = s.stop.changed() => return None,
            _ = tokio::time::sleep(KEEP_ALIVE) => Bytes::from_static(b": keep-alive\n\n"),
        };
        Some((bytes, s))
    });
    let frames =
        futures_util::StreamExt::map(chunks, |bytes| Ok::<_, Infallible>(Frame::data(bytes)));
    StreamBody::new(frames).boxed_unsync()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rebuild_is_one_event_with_json_data() {
        let rebuild = Rebuild {
            changed: vec!["/api/posts.json".into()],
            removed: vec!["/api/timeline/en/x.json".into()],
            lane: "api",
        };
        assert_eq!(
            &frame(&rebuild)[..],
            b"event: rebuild\ndata: {\"changed\":[\"/api/posts.json\"],\"removed\":[\"/api/timeline/en/x.json\"],\"lane\":\"api\"}\n\n"
        );
    }

    #[tokio::test]
    async fn the_stream_opens_relays_frames_reports_lag_and_ends_on_stop() {
        let (tx, rx) = broadcast::channel(2);
        let (stop_tx, stop_rx) = watch::channel(false);
        let mut body = response(rx, stop_rx, false).into_body();
        let mut next = async || {
            let frame = body.frame().await?.unwrap();
            Some(frame.into_data().unwrap())
        };
        assert_eq!(&next().await.unwrap()[..], OPENING);
        tx.send(Bytes::from_static(b"one")).unwrap();
        assert_eq!(&next().await.unwrap()[..], b"one");
        for _ in 0..3 {
            tx.send(Bytes::from_static(b"x")).unwrap();
        }
        assert!(next().await.unwrap().starts_with(b"event: lagged"));
        stop_tx.send(true).unwrap();
        assert_eq!(next().await, None, "the stream ends once stopped");
    }
}
