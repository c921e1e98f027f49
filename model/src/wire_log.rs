//! The wire inspector's bounds (#41): how many exchanges it keeps, how much of each body, and how
//! much of bodies in all. A log of 200 exchanges that kept 64 KiB of each would hold 12.8 MB of
//! copies, which the soak benchmark saw as 15% of a 10,000-pod live view's heap; the newest
//! bodies are the ones looked at, so the oldest copies go first once they pass
//! [`KEPT_BODY_BYTES`] in all (the exchange stays listed with its size).

/// How many exchanges the inspector keeps (older ones are dropped first).
pub const KEEP: usize = 200;
/// How much of a body the inspector shows, and keeps: a pods page's metrics rounds list 10,000
/// pods every window, 35 MB each (kept whole, the soak benchmark saw the heap grow by 4.8 MB a
/// second).
pub const SHOWN_BODY_BYTES: usize = 64 * 1024;
/// How much of bodies the inspector keeps in all: the 32 newest of the largest.
pub const KEPT_BODY_BYTES: usize = 2 * 1024 * 1024;

/// The positions of the copies to give up, oldest first, so that what `kept` holds (each
/// exchange's kept bytes, oldest first) is at most `budget`; the newest is never given up, nor a
/// copy already empty.
pub fn bodies_to_drop(kept: &[usize], budget: usize) -> Vec<usize> {
    let mut total: usize = kept.iter().sum();
    let mut out = Vec::new();
    let older = kept.len().saturating_sub(1);
    for (at, &bytes) in kept[..older].iter().enumerate() {
        if total <= budget {
            break;
        }
        if bytes > 0 {
            total -= bytes;
            out.push(at);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_copies_go_first_and_never_the_newest() {
        assert_eq!(bodies_to_drop(&[10, 0, 30, 40], 100), Vec::<usize>::new(), "within the budget");
        assert_eq!(bodies_to_drop(&[10, 0, 30, 40], 75), [0], "only what passes the budget");
        assert_eq!(bodies_to_drop(&[10, 0, 30, 40], 10), [0, 2], "an empty copy is skipped, the newest kept");
        assert_eq!(bodies_to_drop(&[500], 10), Vec::<usize>::new(), "the newest stays even alone over");
        assert!(bodies_to_drop(&[], 10).is_empty());
        // The soak's case: 200 exchanges of 64 KiB copies keep at most 32 of them.
        let kept = vec![SHOWN_BODY_BYTES; KEEP];
        let dropped = bodies_to_drop(&kept, KEPT_BODY_BYTES);
        assert_eq!(KEEP - dropped.len(), 32);
        assert_eq!(dropped.first(), Some(&0));
        assert_eq!(dropped.last(), Some(&(KEEP - 33)));
    }
}
