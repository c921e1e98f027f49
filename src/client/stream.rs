//! The page's budget of open streams: a watch takes a slot of the page's
//! [`StreamBudget`](crate::model::streams::StreamBudget) before it is opened (waiting while the
//! app already holds its few streams), so open streams never take all of the browser's
//! connections to the origin and ordinary requests are not starved. The slot is given back when
//! the stream is dropped.

use std::cell::RefCell;
use std::collections::HashMap;

use futures::channel::oneshot;

use crate::model::streams::{Grant, StreamBudget, Ticket};

thread_local! {
    /// The page's stream budget, and how to wake each queued stream when its slot opens.
    static BUDGET: RefCell<(StreamBudget, HashMap<Ticket, oneshot::Sender<()>>)> =
        RefCell::new((StreamBudget::default(), HashMap::new()));
}

/// A slot of the stream budget, held from the request until the stream is dropped.
pub struct Permit(Ticket);

impl Drop for Permit {
    fn drop(&mut self) {
        let wake = BUDGET.with(|b| {
            let (budget, waiting) = &mut *b.borrow_mut();
            waiting.remove(&self.0);
            budget.release(self.0).into_iter().filter_map(|t| waiting.remove(&t)).collect::<Vec<_>>()
        });
        for sender in wake {
            let _ = sender.send(());
        }
    }
}

impl Permit {
    /// Waits for a slot (at once when the budget has one).
    pub async fn acquire() -> Permit {
        let (permit, wait) = BUDGET.with(|b| {
            let (budget, waiting) = &mut *b.borrow_mut();
            let (ticket, grant) = budget.ask();
            match grant {
                Grant::Open => (Permit(ticket), None),
                Grant::Queued { .. } => {
                    let (sender, receiver) = oneshot::channel();
                    waiting.insert(ticket, sender);
                    (Permit(ticket), Some(receiver))
                }
            }
        });
        if let Some(receiver) = wait {
            // Dropping the permit (the view went away while queued) leaves the queue.
            let _ = receiver.await;
        }
        permit
    }
}

/// Streams open now and streams waiting for a slot, for the status line.
pub fn budget_use() -> (usize, usize, usize) {
    BUDGET.with(|b| {
        let budget = &b.borrow().0;
        (budget.open_count(), budget.queued_count(), budget.limit())
    })
}
