//! `serve --metrics-listen`: `/metrics` on a listener of its own ([`crate::metrics_app`]), e.g.
//! on an address only the monitoring network reaches, with the API's connection bounds.

use std::net::SocketAddr;

use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::server::ConnectionLimits;
use crate::AppState;

/// The bound metrics listener, before it serves.
pub struct MetricsListener {
    listener: TcpListener,
    addr: SocketAddr,
}

impl MetricsListener {
    /// Binds `at` (HOST:PORT; port 0 picks a free port); the error is for the operator.
    pub async fn bind(at: &str) -> Result<MetricsListener, String> {
        let listener = TcpListener::bind(at)
            .await
            .map_err(|e| format!("cannot listen on {at} for metrics: {e}"))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("cannot read the metrics address: {e}"))?;
        Ok(MetricsListener { listener, addr })
    }

    /// The bound address (the real port).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves `/metrics` until `stopping` turns true; the task ends once its connections have.
    pub fn spawn(
        self,
        state: AppState,
        limits: ConnectionLimits,
        mut stopping: watch::Receiver<bool>,
    ) -> JoinHandle<()> {
        let addr = self.addr;
        let stop = async move {
            let _ = stopping.wait_for(|stopping| *stopping).await;
        };
        let served = crate::server::serve(self.listener, crate::metrics_app(state), limits, stop);
        tokio::spawn(async move {
            if let Err(e) = served.await {
                tracing::warn!(error = %e, %addr, "the metrics listener failed");
            }
        })
    }
}
