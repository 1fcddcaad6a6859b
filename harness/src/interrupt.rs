//! SIGINT / SIGTERM to the harness: flip the run's cancel flag, so each running
//! scenario kills its process groups and the partial report is still written.

use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::watch;

/// Starts listening; the receiver turns `true` on the first SIGINT or SIGTERM.
pub fn cancel_on_signals() -> std::io::Result<watch::Receiver<bool>> {
    let (tx, rx) = watch::channel(false);
    let mut int = signal(SignalKind::interrupt())?;
    let mut term = signal(SignalKind::terminate())?;
    tokio::spawn(async move {
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
        let _ = tx.send(true);
        // Keep the sender alive so receivers never see a closed channel as "go on".
        std::future::pending::<()>().await;
    });
    Ok(rx)
}
