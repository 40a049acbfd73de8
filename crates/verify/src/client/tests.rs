//! The HTTP client's tests against loopback servers that misbehave: endless bodies, stalls,
//! redirects.

use super::*;
use std::net::TcpListener;

/// A loopback server that answers one connection with `answer`, after reading the request.
fn server(answer: impl FnOnce(&mut TcpStream) + Send + 'static) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let Ok((mut stream, _)) = listener.accept() else {
            return;
        };
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        let _ = stream.read(&mut [0u8; 4096]);
        answer(&mut stream);
    });
    addr
}

/// Holds the connection until the client closes it (or [`PATIENCE`] passes).
fn hold(stream: &mut TcpStream) {
    let _ = stream.read(&mut [0u8; 1]);
}

const SMALL: Bounds = Bounds {
    deadline: Duration::from_millis(500),
    max_bytes: 1 << 20,
};

fn get(addr: SocketAddr) -> Result<Reply, String> {
    exchange(addr, "GET", "/api/posts.json", &[], b"", SMALL)
}

/// Sends `head`, then up to four times [`SMALL`]'s bound of spaces (the loop ends).
fn endless(head: &'static [u8]) -> SocketAddr {
    server(move |stream| {
        let _ = stream.write_all(head);
        for _ in 0..64 {
            if stream.write_all(&[b' '; 64 << 10]).is_err() {
                return;
            }
        }
    })
}

#[test]
fn an_endless_body_is_an_error_at_the_size_bound() {
    for head in [
        &b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n"[..],
        b"HTTP/1.1 200 OK\r\ncontent-length: 999999999999\r\n\r\n",
    ] {
        let addr = endless(head);
        let err = get(addr).unwrap_err();
        assert_eq!(
            err,
            format!(
                "GET /api/posts.json: the response from http://{addr}/api/posts.json is \
                 larger than 1 MiB; no file of the API or its documents is that large, so \
                 it was not read"
            )
        );
    }
}

#[test]
fn a_stalled_or_dripping_server_is_a_time_out_for_the_whole_exchange() {
    let stalled = server(hold);
    // A byte each 100 ms: every read is quick, the whole is not.
    let dripping = server(|stream| {
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n");
        for _ in 0..100 {
            std::thread::sleep(Duration::from_millis(100));
            if stream.write_all(b" ").is_err() {
                return;
            }
        }
    });
    for addr in [stalled, dripping] {
        let err = get(addr).unwrap_err();
        assert_eq!(
            err,
            format!(
                "GET /api/posts.json: timed out after 0.5 s waiting for \
                 http://{addr}/api/posts.json"
            )
        );
    }
}

#[test]
fn a_redirect_is_an_answer_never_followed() {
    let elsewhere = TcpListener::bind("127.0.0.1:0").unwrap();
    let location = format!("http://{}/api/posts.json", elsewhere.local_addr().unwrap());
    let addr = server(move |stream| {
        let reply =
            format!("HTTP/1.1 302 Found\r\nlocation: {location}\r\ncontent-length: 0\r\n\r\n");
        let _ = stream.write_all(reply.as_bytes());
    });
    let reply = get(addr).unwrap();
    assert_eq!(reply.status, 302);
    elsewhere.set_nonblocking(true).unwrap();
    assert!(elsewhere.accept().is_err(), "nothing connected elsewhere");
}

#[test]
fn a_whole_response_within_the_bounds_is_read() {
    let addr = server(|stream| {
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\n[1]");
        hold(stream);
    });
    assert_eq!(get(addr).unwrap().body, b"[1]");
}
