//! A `dispatch serve` process for the tests that drive it over HTTP, and one raw HTTP/1.1
//! exchange with it (a client library would hide the head these tests read).

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `dispatch serve`, killed on drop.
pub struct Server {
    /// The process (a test may kill it itself).
    pub child: Child,
    addr: String,
    /// The access key a first start prints.
    pub key: Option<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An answer as received.
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The status line and header fields, lower-cased.
    pub head: String,
    /// The body.
    pub body: String,
}

impl Server {
    /// `dispatch serve` on a free loopback port with `args` and the variables `env`, once it
    /// says where it listens.
    pub fn start<A: AsRef<OsStr>>(args: &[A], env: &[(&str, &str)]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dispatch"))
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn dispatch serve");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut key = None;
        let addr = loop {
            let mut line = String::new();
            assert!(
                stdout.read_line(&mut line).expect("stdout") > 0,
                "serve exited"
            );
            let line = line.trim_end();
            if let Some(k) = line.strip_prefix("access key: ") {
                key = Some(k.to_owned());
            } else if let Some(url) = line.strip_prefix("listening on http://") {
                break url.trim_end_matches("/v2").to_owned();
            }
        };
        Server { child, addr, key }
    }

    /// One HTTP/1.1 exchange on a connection of its own: `body` as JSON when not empty.
    pub fn call(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
        let mut stream = TcpStream::connect(&self.addr).expect("connect");
        // A solve behind `POST /vroom` answers within seconds; this only ends a hung test.
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .expect("timeout");
        let mut request = format!(
            "{method} {path} HTTP/1.1\r\nhost: {}\r\nconnection: close\r\ncontent-length: {}\r\n",
            self.addr,
            body.len()
        );
        if !body.is_empty() {
            request.push_str("content-type: application/json\r\n");
        }
        for (k, v) in headers {
            request.push_str(&format!("{k}: {v}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        stream.write_all(request.as_bytes()).expect("send");
        let mut raw = String::new();
        stream.read_to_string(&mut raw).expect("receive");
        let (head, body) = raw.split_once("\r\n\r\n").expect("a header block");
        Reply {
            status: head[9..12].parse().expect("a status code"),
            head: head.to_ascii_lowercase(),
            body: body.to_owned(),
        }
    }
}
