//! A minimal SMTP server on loopback that accepts every message and keeps the conversation's
//! envelope and data, so the SMTP sender is tested through a real SMTP exchange.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};

/// One message as received.
#[derive(Debug, Clone, Default)]
pub struct Mail {
    pub from: String,
    pub to: Vec<String>,
    pub data: String,
}

pub struct SmtpServer {
    pub addr: SocketAddr,
    mails: Arc<Mutex<Vec<Mail>>>,
}

impl SmtpServer {
    pub fn start() -> SmtpServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let mails = Arc::new(Mutex::new(Vec::new()));
        let store = mails.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let store = store.clone();
                std::thread::spawn(move || {
                    let mut out = stream.try_clone().unwrap();
                    let mut reader = BufReader::new(stream);
                    let mut mail = Mail::default();
                    let _ = out.write_all(b"220 test ESMTP ready\r\n");
                    let mut line = String::new();
                    loop {
                        line.clear();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let upper = line.to_ascii_uppercase();
                        let reply: &[u8] = if upper.starts_with("EHLO") || upper.starts_with("HELO")
                        {
                            b"250-test\r\n250 8BITMIME\r\n"
                        } else if upper.starts_with("MAIL FROM:") {
                            mail.from = line[10..].trim().to_owned();
                            b"250 ok\r\n"
                        } else if upper.starts_with("RCPT TO:") {
                            mail.to.push(line[8..].trim().to_owned());
                            b"250 ok\r\n"
                        } else if upper.starts_with("DATA") {
                            let _ = out.write_all(b"354 go ahead\r\n");
                            let mut data = String::new();
                            loop {
                                let mut l = String::new();
                                if reader.read_line(&mut l).unwrap_or(0) == 0 {
                                    return;
                                }
                                if l == ".\r\n" {
                                    break;
                                }
                                data.push_str(&l);
                            }
                            mail.data = data;
                            store.lock().unwrap().push(std::mem::take(&mut mail));
                            b"250 queued\r\n"
                        } else if upper.starts_with("QUIT") {
                            let _ = out.write_all(b"221 bye\r\n");
                            return;
                        } else {
                            b"250 ok\r\n"
                        };
                        if out.write_all(reply).is_err() {
                            return;
                        }
                    }
                });
            }
        });
        SmtpServer { addr, mails }
    }

    pub fn mails(&self) -> Vec<Mail> {
        self.mails.lock().unwrap().clone()
    }
}
