//! A plain HTTP/1.1 keep-alive client on std sockets: one connection per client thread, no
//! runtime of its own, so the load generator costs the machine little beside the service.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};

/// One keep-alive connection.
pub struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    host: String,
}

/// One response.
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The `rel="next"` link-value, if any.
    pub link: Option<String>,
    /// The body.
    pub body: Vec<u8>,
}

impl Conn {
    /// Connects to `addr`.
    pub fn open(addr: SocketAddr) -> Conn {
        let stream = TcpStream::connect(addr).expect("connect to the service");
        stream.set_nodelay(true).expect("TCP_NODELAY");
        Conn {
            reader: BufReader::new(stream.try_clone().expect("clone the socket")),
            writer: stream,
            host: addr.to_string(),
        }
    }

    /// Sends one request and reads its whole response.
    pub fn request(&mut self, method: &str, target: &str, key: &str, body: &[u8]) -> Reply {
        let head = format!(
            "{method} {target} HTTP/1.1\r\nHost: {}\r\nx-access-key: {key}\r\n\
             content-type: application/json\r\ncontent-length: {}\r\n\r\n",
            self.host,
            body.len()
        );
        self.writer
            .write_all(head.as_bytes())
            .expect("send the request head");
        self.writer.write_all(body).expect("send the request body");
        let mut line = String::new();
        self.reader
            .read_line(&mut line)
            .expect("read the status line");
        let status: u16 = line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("a status code");
        let (mut length, mut chunked, mut link) = (0usize, false, None);
        loop {
            line.clear();
            self.reader.read_line(&mut line).expect("read a header");
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').expect("a header line");
            let value = value.trim();
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse().expect("a content length"),
                "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
                // The next link may share the header (or come in another one) with other
                // link-values such as the feature layer's rel="deprecation".
                "link" => {
                    if let Some(next) = value.split(',').find(|v| v.contains("rel=\"next\"")) {
                        link = Some(next.trim().to_owned());
                    }
                }
                _ => {}
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                line.clear();
                self.reader.read_line(&mut line).expect("read a chunk size");
                let size = usize::from_str_radix(line.trim(), 16).expect("a chunk size");
                let mut chunk = vec![0; size + 2];
                self.reader.read_exact(&mut chunk).expect("read a chunk");
                body.extend_from_slice(&chunk[..size]);
                if size == 0 {
                    break;
                }
            }
        } else {
            body.resize(length, 0);
            self.reader.read_exact(&mut body).expect("read the body");
        }
        Reply { status, link, body }
    }
}

/// The target (path and query) of a `<URL>; rel="next"` link-value.
pub fn next_target(link: &str) -> Option<String> {
    let url = link.split('<').nth(1)?.split('>').next()?;
    let start = url.find("/v2/")?;
    Some(url[start..].to_owned())
}
