//! The connection budget for long-lived streams (watches). A browser opens at most about six
//! HTTP/1.1 connections per origin (`kubectl proxy` and `trunk serve` speak HTTP/1.1), and a
//! watch holds its connection for as long as it runs: with six watches open every other request
//! of the page would queue behind them. So the whole app holds at most [`WATCH_STREAMS`] streams
//! open at once, first come first served; a stream that asks beyond that waits in a queue until
//! one ends, and the other connections stay free for ordinary requests.
//!
//! Pure bookkeeping (tickets, no I/O): `client::stream` keeps one budget for the page and wakes
//! the stream a [`StreamBudget::release`] opens.

use std::collections::VecDeque;

/// Streams the app holds open at once: half of the browser's six connections per origin.
pub const WATCH_STREAMS: usize = 3;

/// One stream's place in the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ticket(u64);

/// The answer to [`StreamBudget::ask`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant {
    /// Open the stream now.
    Open,
    /// Wait: `ahead` streams wait before this one.
    Queued { ahead: usize },
}

/// At most `limit` open streams; the others wait in order.
#[derive(Debug, Clone)]
pub struct StreamBudget {
    limit: usize,
    open: Vec<Ticket>,
    queue: VecDeque<Ticket>,
    next: u64,
    peak: usize,
}

impl Default for StreamBudget {
    fn default() -> Self {
        StreamBudget::new(WATCH_STREAMS)
    }
}

impl StreamBudget {
    /// A budget of `limit` open streams (at least one, or nothing could ever stream).
    pub fn new(limit: usize) -> StreamBudget {
        StreamBudget { limit: limit.max(1), open: Vec::new(), queue: VecDeque::new(), next: 0, peak: 0 }
    }

    /// A ticket for a new stream: open at once when the budget allows, else queued.
    pub fn ask(&mut self) -> (Ticket, Grant) {
        self.next += 1;
        let ticket = Ticket(self.next);
        if self.open.len() < self.limit && self.queue.is_empty() {
            self.open.push(ticket);
            self.peak = self.peak.max(self.open.len());
            return (ticket, Grant::Open);
        }
        self.queue.push_back(ticket);
        (ticket, Grant::Queued { ahead: self.queue.len() - 1 })
    }

    /// Ends `ticket`, open or still queued (an unknown or already ended ticket changes nothing),
    /// and returns the tickets that may open now, in order.
    pub fn release(&mut self, ticket: Ticket) -> Vec<Ticket> {
        if let Some(i) = self.open.iter().position(|t| *t == ticket) {
            self.open.swap_remove(i);
        } else if let Some(i) = self.queue.iter().position(|t| *t == ticket) {
            self.queue.remove(i);
            return Vec::new();
        } else {
            return Vec::new();
        }
        let mut opened = Vec::new();
        while self.open.len() < self.limit {
            let Some(next) = self.queue.pop_front() else { break };
            self.open.push(next);
            opened.push(next);
        }
        self.peak = self.peak.max(self.open.len());
        opened
    }

    /// Whether `ticket` holds an open slot.
    pub fn is_open(&self, ticket: Ticket) -> bool {
        self.open.contains(&ticket)
    }

    /// Streams open now.
    pub fn open_count(&self) -> usize {
        self.open.len()
    }

    /// Streams waiting for a slot.
    pub fn queued_count(&self) -> usize {
        self.queue.len()
    }

    /// The most streams ever open at once.
    pub fn peak(&self) -> usize {
        self.peak
    }

    pub fn limit(&self) -> usize {
        self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_beyond_the_limit_wait_in_order_and_open_as_others_end() {
        let mut budget = StreamBudget::new(2);
        let (a, ga) = budget.ask();
        let (b, gb) = budget.ask();
        let (c, gc) = budget.ask();
        let (d, gd) = budget.ask();
        assert_eq!(
            [ga, gb, gc, gd],
            [Grant::Open, Grant::Open, Grant::Queued { ahead: 0 }, Grant::Queued { ahead: 1 }]
        );
        assert_eq!((budget.open_count(), budget.queued_count()), (2, 2));
        assert!(budget.is_open(a) && budget.is_open(b) && !budget.is_open(c));
        assert_eq!(budget.release(b), [c]);
        assert!(budget.is_open(c));
        assert_eq!(budget.release(a), [d]);
        assert_eq!(budget.release(c), []);
        assert_eq!(budget.release(d), []);
        assert_eq!((budget.open_count(), budget.queued_count(), budget.peak()), (0, 0, 2));
    }

    #[test]
    fn a_stream_given_up_while_queued_leaves_the_queue_without_opening_anything() {
        let mut budget = StreamBudget::new(1);
        let (a, _) = budget.ask();
        let (b, _) = budget.ask();
        let (c, _) = budget.ask();
        assert_eq!(budget.release(b), []);
        assert_eq!(budget.open_count(), 1);
        assert_eq!(budget.release(a), [c], "b left: c is next");
        assert_eq!(budget.release(a), [], "releasing twice changes nothing");
        assert_eq!(budget.release(Ticket(99)), []);
        assert_eq!(budget.open_count(), 1);
    }

    #[test]
    fn a_newcomer_does_not_overtake_the_queue() {
        let mut budget = StreamBudget::new(1);
        let (a, _) = budget.ask();
        let (b, _) = budget.ask();
        assert_eq!(budget.release(a), [b]);
        let (_, grant) = budget.ask();
        assert_eq!(grant, Grant::Queued { ahead: 0 });
    }

    #[test]
    fn the_open_count_never_exceeds_the_limit_whatever_the_order() {
        let mut budget = StreamBudget::default();
        assert_eq!(budget.limit(), WATCH_STREAMS);
        // Leaves connections of the browser's six for ordinary requests.
        const { assert!(WATCH_STREAMS < 6) };
        let mut live = Vec::new();
        // A fixed pseudo-random interleaving of asks and releases.
        let mut seed = 7u64;
        for _ in 0..2_000 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            if seed >> 62 == 0 && !live.is_empty() {
                let index = (seed >> 20) as usize % live.len();
                let ticket = live.swap_remove(index);
                budget.release(ticket);
            } else {
                live.push(budget.ask().0);
            }
            assert!(budget.open_count() <= WATCH_STREAMS);
            assert_eq!(budget.open_count() + budget.queued_count(), live.len());
            assert_eq!(budget.open_count(), live.len().min(WATCH_STREAMS), "a free slot never stays idle");
        }
        assert_eq!(budget.peak(), WATCH_STREAMS);
        assert_eq!(StreamBudget::new(0).limit(), 1);
    }
}
