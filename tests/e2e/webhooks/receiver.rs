//! A webhook receiver on loopback: a plain HTTP/1.1 server on threads that records every
//! request (arrival time, headers, JSON body) and answers as told: 200, a status of choice,
//! failures before success, or never.

#![allow(dead_code)] // the benchmark uses a part of it

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

/// How the receiver answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// 200 to everything.
    Ok,
    /// This status to everything.
    Status(u16),
    /// 500 to the first `n` attempts of each delivery, then 200.
    FailFirst(usize),
    /// Reads the request and never answers.
    Silent,
    /// This 3xx status with `location: /moved` to requests for `/hook`; 200 to any other path.
    Redirect(u16),
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct Hit {
    /// `METHOD PATH VERSION`.
    pub line: String,
    pub at: Instant,
    pub wall: SystemTime,
    pub headers: HashMap<String, String>,
    pub body: Value,
}

impl Hit {
    pub fn delivery(&self) -> i64 {
        self.headers["x-dispatch-delivery"]
            .parse()
            .expect("delivery id")
    }
}

struct Shared {
    hits: Mutex<Vec<Hit>>,
    behaviour: Mutex<Behaviour>,
    attempts: Mutex<HashMap<i64, usize>>,
    stop: AtomicBool,
}

/// A running receiver; stops (closing its port) when dropped.
pub struct Receiver {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
}

impl Receiver {
    /// On a free loopback port.
    pub fn start(behaviour: Behaviour) -> Receiver {
        Receiver::start_on("127.0.0.1:0", behaviour)
    }

    /// On `addr` (to come back on the port a receiver had before).
    pub fn start_on(addr: &str, behaviour: Behaviour) -> Receiver {
        let listener = TcpListener::bind(addr).expect("bind receiver");
        listener.set_nonblocking(true).unwrap();
        let shared = Arc::new(Shared {
            hits: Mutex::new(Vec::new()),
            behaviour: Mutex::new(behaviour),
            attempts: Mutex::new(HashMap::new()),
            stop: AtomicBool::new(false),
        });
        let addr = listener.local_addr().unwrap();
        let accept = shared.clone();
        std::thread::spawn(move || {
            while !accept.stop.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let shared = accept.clone();
                        std::thread::spawn(move || serve(stream, &shared));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(2)),
                }
            }
        });
        Receiver { addr, shared }
    }

    pub fn url(&self) -> String {
        format!("http://{}/hook", self.addr)
    }

    pub fn set(&self, behaviour: Behaviour) {
        *self.shared.behaviour.lock().unwrap() = behaviour;
    }

    pub fn hits(&self) -> Vec<Hit> {
        self.shared.hits.lock().unwrap().clone()
    }

    /// The hits after the first `from` (for readers that keep up with a long run without
    /// copying everything each time).
    pub fn hits_since(&self, from: usize) -> Vec<Hit> {
        let hits = self.shared.hits.lock().unwrap();
        hits.get(from..).map(<[Hit]>::to_vec).unwrap_or_default()
    }

    pub fn count(&self) -> usize {
        self.shared.hits.lock().unwrap().len()
    }

    /// Waits until at least `n` requests arrived; the hits.
    pub fn wait_for(&self, n: usize, within: Duration) -> Vec<Hit> {
        let deadline = Instant::now() + within;
        loop {
            let hits = self.hits();
            if hits.len() >= n || Instant::now() > deadline {
                return hits;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
    }
}

fn serve(stream: TcpStream, shared: &Shared) {
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let Some((line, headers, body)) = read_request(&mut reader, shared) else {
            return;
        };
        let to_hook = line.split(' ').nth(1) == Some("/hook");
        let hit = Hit {
            line,
            at: Instant::now(),
            wall: SystemTime::now(),
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
            headers,
        };
        let delivery = hit
            .headers
            .get("x-dispatch-delivery")
            .and_then(|d| d.parse().ok());
        shared.hits.lock().unwrap().push(hit);
        let behaviour = *shared.behaviour.lock().unwrap();
        let status = match behaviour {
            Behaviour::Ok => 200,
            Behaviour::Redirect(code) if to_hook => code,
            Behaviour::Redirect(_) => 200,
            Behaviour::Status(code) => code,
            Behaviour::FailFirst(n) => {
                let mut attempts = shared.attempts.lock().unwrap();
                let seen = attempts.entry(delivery.unwrap_or(0)).or_insert(0);
                *seen += 1;
                if *seen <= n {
                    500
                } else {
                    200
                }
            }
            Behaviour::Silent => {
                while !shared.stop.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(20));
                }
                return;
            }
        };
        let location = match behaviour {
            Behaviour::Redirect(_) => "location: /moved\r\n",
            _ => "",
        };
        let answer = format!("HTTP/1.1 {status} X\r\n{location}content-length: 2\r\n\r\nok");
        if writer.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}

/// Reads one request (its request line, headers and body); `None` at the end of the
/// connection or when the receiver stops.
fn read_request(
    reader: &mut BufReader<TcpStream>,
    shared: &Shared,
) -> Option<(String, HashMap<String, String>, Vec<u8>)> {
    let mut headers = HashMap::new();
    let mut request_line = None;
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) => return None,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                if shared.stop.load(Ordering::SeqCst) {
                    return None;
                }
                if line.is_empty() {
                    continue;
                }
                return None;
            }
            Err(_) => return None,
        }
        let line = line.trim_end();
        if request_line.is_none() {
            request_line = Some(line.to_owned());
            continue;
        }
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            // A repeated header is kept as HTTP combines it ("a, b"), so a test sees both.
            headers
                .entry(k.trim().to_ascii_lowercase())
                .and_modify(|seen: &mut String| {
                    seen.push_str(", ");
                    seen.push_str(v.trim());
                })
                .or_insert_with(|| v.trim().to_owned());
        }
    }
    let length: usize = headers
        .get("content-length")
        .and_then(|l| l.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    let mut read = 0;
    while read < length {
        match reader.read(&mut body[read..]) {
            Ok(0) => return None,
            Ok(n) => read += n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return None,
        }
    }
    Some((request_line.unwrap_or_default(), headers, body))
}
