//! How many connections are served at once, and who gives way when every slot is taken.
//!
//! Each connection costs its buffers and a chunk in flight, so the server's memory is bounded
//! by [`MAX_CONNECTIONS`] whatever the clients do. When every slot is taken and another client
//! comes, the oldest connections are asked to close: one waiting for a request closes at once,
//! one answering closes after its answer, or after [`GIVE_WAY_WAIT`] if its answer is not done
//! by then. Clients that connect and say nothing (or a browser's idle keep-alive connections),
//! read nothing, or trickle their request so cannot lock new ones out, as nginx drains its idle
//! connections when it runs out of them.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

/// The most connections served at once.
pub const MAX_CONNECTIONS: usize = 512;

/// How long a connection asked to close may take to finish its answer: a client that reads
/// nothing, sends its request a byte at a time, or waits on a dev server that does not answer
/// is closed then, so a new client waits about this long at most.
pub const GIVE_WAY_WAIT: Duration = Duration::from_secs(1);

/// How many of the oldest connections are asked to close when a client finds no slot: enough
/// that a wave of new clients does not wait for one slot at a time.
const GIVE_WAY: usize = MAX_CONNECTIONS / 8;

/// The slots of the server's connections.
pub struct Slots {
    free: Arc<Semaphore>,
    /// The open connections, oldest first (those gone leave a dead reference, swept as met).
    open: Mutex<VecDeque<Weak<Notify>>>,
}

/// One connection's slot: freed when dropped.
pub struct Slot {
    _permit: OwnedSemaphorePermit,
    /// Notified when the connection should close (see the module's header).
    pub leave: Arc<Notify>,
}

impl Slots {
    pub fn new() -> Slots {
        Slots {
            free: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
            open: Mutex::new(VecDeque::new()),
        }
    }

    /// A slot for a connection just accepted: a free one, or the first one the oldest
    /// connections free when asked to close.
    pub async fn take(&self) -> Slot {
        let permit = match self.free.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                self.ask_oldest_to_close();
                let free = self.free.clone().acquire_owned();
                free.await.expect("the semaphore is never closed")
            }
        };
        let leave = Arc::new(Notify::new());
        self.open().push_back(Arc::downgrade(&leave));
        Slot {
            _permit: permit,
            leave,
        }
    }

    /// Waits until every connection has closed.
    pub async fn all_closed(&self) {
        let all = u32::try_from(MAX_CONNECTIONS).expect("a small number");
        let _ = self.free.acquire_many(all).await;
    }

    fn ask_oldest_to_close(&self) {
        let mut open = self.open();
        let mut asked = 0;
        while asked < GIVE_WAY
            && let Some(oldest) = open.pop_front()
        {
            if let Some(leave) = oldest.upgrade() {
                leave.notify_one();
                asked += 1;
            }
        }
    }

    fn open(&self) -> std::sync::MutexGuard<'_, VecDeque<Weak<Notify>>> {
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_client_finding_no_slot_asks_the_oldest_to_close() {
        let slots = Slots::new();
        let mut taken = Vec::new();
        for _ in 0..MAX_CONNECTIONS {
            taken.push(slots.take().await);
        }
        // The oldest connections close when asked (as an idle connection does at once).
        let closers: Vec<_> = taken
            .drain(..GIVE_WAY)
            .map(|slot| {
                tokio::spawn(async move {
                    slot.leave.notified().await;
                    drop(slot);
                })
            })
            .collect();
        let next = slots.take().await;
        for closer in closers {
            closer.await.unwrap();
        }
        drop(next);
        // The youngest were not asked: none of them is notified.
        for slot in &taken {
            let asked =
                tokio::time::timeout(std::time::Duration::from_millis(1), slot.leave.notified());
            assert!(asked.await.is_err());
        }
    }
}
