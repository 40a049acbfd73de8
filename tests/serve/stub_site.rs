//! A stand-in for a site's dev server, on 127.0.0.1, for what no real one does on demand: it
//! records every request head it gets, and answers as told (echoing the `Host` it was sent,
//! never answering, or switching protocols on any `Upgrade` and then recording the raw bytes
//! that follow). It stops when dropped.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the stand-in answers a request whose path starts with `/slow`: never. Every other
/// request gets `200` with `host=<the Host it was sent>`, or, with an `Upgrade` header, `101`
/// (whatever the protocol, as no real server should), after which what comes is recorded.
pub struct StubSite {
    pub port: u16,
    /// Every request head received, and after a `101` every later read, in order.
    pub seen: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

impl StubSite {
    pub fn start() -> StubSite {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (recorded, stopping) = (seen.clone(), stop.clone());
        std::thread::spawn(move || {
            // Held, unanswered, until the stand-in stops.
            let mut silent = Vec::new();
            while !stopping.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        stream.set_nonblocking(false).unwrap();
                        let recorded = recorded.clone();
                        if let Some(stream) = answer(stream, &recorded) {
                            silent.push(stream);
                        }
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        StubSite { port, seen, stop }
    }

    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The heads and bytes seen so far.
    pub fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for StubSite {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Reads one request head and answers it; returns the stream when it is to be left unanswered.
fn answer(mut stream: TcpStream, seen: &Arc<Mutex<Vec<String>>>) -> Option<TcpStream> {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let head = read_head(&mut stream)?;
    seen.lock().unwrap().push(head.clone());
    let target = head.split(' ').nth(1).unwrap_or("/");
    if target.starts_with("/slow") {
        return Some(stream);
    }
    let header = |name: &str| {
        head.lines()
            .filter_map(|line| line.split_once(':'))
            .find(|(key, _)| key.trim().eq_ignore_ascii_case(name))
            .map(|(_, value)| value.trim().to_string())
    };
    if let Some(protocol) = header("upgrade") {
        let seen = seen.clone();
        std::thread::spawn(move || {
            let switched = format!(
                "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: {protocol}\r\n\r\n"
            );
            if stream.write_all(switched.as_bytes()).is_err() {
                return;
            }
            let mut buffer = [0u8; 4096];
            while let Ok(read @ 1..) = stream.read(&mut buffer) {
                let text = String::from_utf8_lossy(&buffer[..read]).into_owned();
                seen.lock().unwrap().push(text);
            }
        });
        return None;
    }
    let body = format!("host={}", header("host").unwrap_or_default());
    let _ = stream.write_all(
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    );
    None
}

/// The request head (through its blank line), or `None` if the client went away first.
fn read_head(stream: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return None,
        }
    }
    Some(String::from_utf8_lossy(&head).into_owned())
}
