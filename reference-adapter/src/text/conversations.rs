//! The conversations a text client keeps: per label the agy conversation it continues,
//! the usage agy reported so far (a result's usage counts the whole conversation,
//! docs/agy-reference.md §3.4) and the last answer. Asks on one label run one after the
//! other, as agy itself serialises turns of one conversation (§3.6, the presence lock).

use agy_protocol::Usage;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One labelled conversation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Thread {
    /// Asks answered so far.
    pub asks: u64,
    /// The conversation id agy returned, when it showed one.
    pub conversation_id: Option<String>,
    /// An id the client minted itself (only under the
    /// `text-new-conversation-each-ask` fault).
    pub minted: Option<String>,
    /// The usage agy reported for the conversation so far.
    pub usage: Usage,
    /// The last answer.
    pub last_answer: Option<String>,
}

/// Every labelled conversation of the driver.
#[derive(Debug, Clone, Default)]
pub struct Conversations(Arc<Mutex<HashMap<String, Arc<tokio::sync::Mutex<Thread>>>>>);

impl Conversations {
    /// The thread of `label`, created empty on first use.
    pub fn thread(&self, label: &str) -> Arc<tokio::sync::Mutex<Thread>> {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        Arc::clone(map.entry(label.to_string()).or_default())
    }
}

/// A conversation id minted by the client (UUID-shaped, unique per call).
pub fn mint_id(label: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let salt = label
        .bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    format!(
        "{:08x}-0000-4000-8000-{:012x}",
        (nanos >> 32) as u32,
        (nanos as u64 ^ salt) & 0xffff_ffff_ffff
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_label_is_one_thread() {
        let c = Conversations::default();
        c.thread("a").lock().await.asks = 2;
        assert_eq!(c.thread("a").lock().await.asks, 2);
        assert_eq!(c.thread("b").lock().await.asks, 0);
        assert_eq!(mint_id("x").len(), 36);
    }
}
