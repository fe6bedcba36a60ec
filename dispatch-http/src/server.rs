//! Accepting connections with bounds on what a client can hold: a cap on open connections,
//! a deadline for each request head, a deadline for each request body.
//!
//! `axum::serve` has neither timeouts nor a cap (400 connections with unfinished headers
//! stayed open indefinitely), so connections are served here with hyper directly:
//! - **header read timeout**: a request's head must arrive completely within it, counted from
//!   when the connection is ready for that request — from its opening, or from the previous
//!   response on a kept-alive connection, so it is also how long an idle kept-alive connection
//!   stays open (hyper's `header_read_timeout`);
//! - **body read timeout**: the whole request body must arrive within it, counted from the end
//!   of the head (`tower_http`'s `RequestBodyDeadlineLayer`); a late body fails the request;
//! - **write timeout**: a response the client takes no byte of for this long (its socket
//!   buffers full: a client that stopped reading) fails its connection, which closes and frees
//!   what it held (`write_deadline`); a client reading slowly but steadily is not cut off;
//! - **max connections**: beyond it, new connections wait in the listen backlog until one
//!   closes;
//! - **request heads**: at most [`MAX_HEADERS`] header fields in at most [`MAX_HEAD_BYTES`]
//!   bytes; a head hyper cannot parse (or beyond those bounds) is answered with the spec's
//!   envelope (`parse_errors`), not hyper's empty-bodied answer.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::sync::Semaphore;
use tower_http::timeout::RequestBodyDeadlineLayer;

mod parse_errors;
mod write_deadline;

use parse_errors::EnvelopeParseErrors;
pub use parse_errors::{MAX_HEADERS, MAX_HEAD_BYTES, MAX_TARGET_BYTES};
use write_deadline::WriteDeadline;

/// The bounds on connections (`dispatch serve` flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Time for a complete request head, and idle time of a kept-alive connection.
    pub header_read_timeout: Duration,
    /// Time for a complete request body after its head.
    pub body_read_timeout: Duration,
    /// Time a response may wait for the client to take any more of it.
    pub write_timeout: Duration,
    /// Most connections open at once.
    pub max_connections: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            write_timeout: Duration::from_secs(30),
            max_connections: 1024,
        }
    }
}

/// Serves `app` on `listener` within `limits` until `shutdown` completes, then waits for the
/// open connections to finish their requests.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = app.layer(RequestBodyDeadlineLayer::new(limits.body_read_timeout));
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = slots.clone().acquire_owned() => permit.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of file descriptors and the like: wait, do not spin or stop serving.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_read_timeout)
            .max_headers(MAX_HEADERS)
            .max_buf_size(MAX_HEAD_BYTES)
            .serve_connection(
                TokioIo::new(EnvelopeParseErrors::new(WriteDeadline::new(
                    stream,
                    limits.write_timeout,
                ))),
                service,
            );
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop(permit);
        });
    }
    // Stop accepting at once: new connections are refused instead of waiting in the backlog
    // while the open ones finish.
    drop(listener);
    settle(&graceful).await;
    graceful.shutdown().await;
    Ok(())
}

/// How long open connections are still served as usual after the shutdown signal.
const SHUTDOWN_SETTLE: Duration = Duration::from_millis(500);

/// Serves the open connections as usual for [`SHUTDOWN_SETTLE`] (less once all have closed).
/// A request its client already sent may not be read yet (a kept-alive connection's next
/// request crossing the signal, a connection accepted just before it): hyper's graceful
/// shutdown closes a connection it sees idle at once, and closing a socket with unread bytes
/// resets it, so that request would be lost unanswered. Within the settle period it is read,
/// becomes a request in flight, and is finished.
async fn settle(graceful: &GracefulShutdown) {
    let until = tokio::time::Instant::now() + SHUTDOWN_SETTLE;
    while graceful.count() > 0 && tokio::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
