//! Requests for tests that talk to real servers other than the tool's (a site's dev server, or
//! the tool behind one): `verify`'s plain HTTP client, a raw websocket, and waiting.

use content_api::verify::client;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

pub use content_api::verify::Reply;

/// A reply's body as JSON; fails the test when it is not.
pub fn json(reply: &Reply) -> serde_json::Value {
    reply.json().unwrap_or_else(|err| panic!("{err}"))
}

/// `GET path` on `addr` (`127.0.0.1:PORT`).
pub fn get(addr: &str, path: &str, headers: &[(&str, &str)]) -> Reply {
    request(addr, "GET", path, headers, b"")
}

/// One request over a new connection (`Connection: close`), read whole: `verify`'s own client,
/// which sends the request line as written.
pub fn request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let socket = addr.parse().unwrap_or_else(|err| panic!("{addr}: {err}"));
    client::request_with_body(socket, method, path, headers, body)
        .unwrap_or_else(|err| panic!("{err}"))
}

/// A loopback port nothing listens on right now (for a server that must be told its port).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The path Vite's hot-reload client connects its websocket to, from the text of
/// `/@vite/client` (Vite 6 and later require the token it embeds).
pub fn vite_hmr_path(client: &str) -> String {
    client
        .split("wsToken = \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .map_or_else(|| "/".to_string(), |token| format!("/?token={token}"))
}

/// Polls `done` every 50 ms until it holds; fails naming `what` after `limit`.
pub fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "waited {limit:?} for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// An open websocket (after a `101` answer), reading the server's unmasked frames.
pub struct WebSocket {
    stream: TcpStream,
    /// Bytes read past the handshake's head.
    pending: Vec<u8>,
}

impl WebSocket {
    /// The handshake on `addr` for `path`, with `protocol` (`Sec-WebSocket-Protocol`) if any;
    /// fails unless the answer is `101`.
    pub fn connect(addr: &str, path: &str, protocol: Option<&str>) -> WebSocket {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut head = format!(
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
             Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
             Origin: http://{addr}\r\n"
        );
        if let Some(protocol) = protocol {
            head.push_str(&format!("Sec-WebSocket-Protocol: {protocol}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        let mut raw = Vec::new();
        let mut buffer = [0u8; 4096];
        let split = loop {
            let read = stream.read(&mut buffer).unwrap();
            assert!(
                read > 0,
                "the connection closed during the handshake: {raw:?}"
            );
            raw.extend_from_slice(&buffer[..read]);
            if let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
                break split;
            }
        };
        let head = String::from_utf8_lossy(&raw[..split]).into_owned();
        assert!(
            head.starts_with("HTTP/1.1 101"),
            "websocket handshake on {path} refused: {head}"
        );
        WebSocket {
            stream,
            pending: raw[split + 4..].to_vec(),
        }
    }

    /// Sends one text frame (masked, as a client must).
    pub fn send_text(&mut self, text: &str) {
        let mask = [0x12u8, 0x34, 0x56, 0x78];
        let payload = text.as_bytes();
        let mut frame = vec![0x81];
        match payload.len() {
            len @ 0..=125 => frame.push(0x80 | len as u8),
            len => {
                frame.push(0x80 | 126);
                frame.extend_from_slice(&(len as u16).to_be_bytes());
            }
        }
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.stream.write_all(&frame).unwrap();
    }

    /// The next text frame's payload (control frames skipped).
    pub fn next_text(&mut self) -> String {
        loop {
            let header = self.take(2);
            let opcode = header[0] & 0x0f;
            let length = match header[1] & 0x7f {
                126 => u16::from_be_bytes(self.take(2).try_into().unwrap()) as usize,
                127 => u64::from_be_bytes(self.take(8).try_into().unwrap()) as usize,
                len => len as usize,
            };
            let payload = self.take(length);
            if opcode == 1 {
                return String::from_utf8_lossy(&payload).into_owned();
            }
            assert!(opcode != 8, "the server closed the websocket");
        }
    }

    fn take(&mut self, count: usize) -> Vec<u8> {
        let mut buffer = [0u8; 4096];
        while self.pending.len() < count {
            let read = self.stream.read(&mut buffer).unwrap();
            assert!(read > 0, "the websocket closed");
            self.pending.extend_from_slice(&buffer[..read]);
        }
        self.pending.drain(..count).collect()
    }
}
