//! A blocking HTTP/1.1 client for tests that talk to real servers other than the tool's (a
//! site's dev server, or the tool behind one): one request per connection, the body read to
//! its end (chunked bodies decoded), and a raw websocket handshake.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// One answer.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    /// Lower-case names; a repeated header's values joined with ", ".
    pub headers: BTreeMap<String, String>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|err| panic!("not JSON ({err}): {}", self.text()))
    }
}

/// `GET path` on `addr` (`127.0.0.1:PORT`).
pub fn get(addr: &str, path: &str, headers: &[(&str, &str)]) -> Reply {
    request(addr, "GET", path, headers, b"")
}

/// One request over a new connection (`Connection: close`), read to its end.
pub fn request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let mut stream = TcpStream::connect(addr).unwrap_or_else(|err| panic!("connect {addr}: {err}"));
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if !body.is_empty() || method == "POST" {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .unwrap_or_else(|err| panic!("{method} {path} on {addr}: {err}"));
    parse(&raw, method == "HEAD").unwrap_or_else(|| {
        panic!(
            "{method} {path} on {addr}: not an HTTP answer: {:?}",
            String::from_utf8_lossy(&raw)
        )
    })
}

fn parse(raw: &[u8], head_only: bool) -> Option<Reply> {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.lines();
    let status = lines.next()?.get(9..12)?.parse().ok()?;
    let mut headers: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in lines.filter_map(|line| line.split_once(':')) {
        headers
            .entry(name.trim().to_ascii_lowercase())
            .and_modify(|v| {
                v.push_str(", ");
                v.push_str(value.trim());
            })
            .or_insert_with(|| value.trim().to_string());
    }
    let rest = &raw[split + 4..];
    let body = if head_only {
        Vec::new()
    } else if headers
        .get("transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    {
        dechunk(rest)?
    } else {
        rest.to_vec()
    };
    Some(Reply {
        status,
        headers,
        body,
    })
}

fn dechunk(mut rest: &[u8]) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = rest.windows(2).position(|w| w == b"\r\n")?;
        let size_text = String::from_utf8_lossy(&rest[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Some(body);
        }
        body.extend_from_slice(rest.get(..size)?);
        rest = rest.get(size + 2..)?;
    }
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
