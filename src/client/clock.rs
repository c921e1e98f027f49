//! The wall clock as a signal, for the texts that say how long ago something was (an `Age`
//! column): it ticks just past each whole second ([`until_ages_turn`]: when every age turns
//! over, so that a page shows what the server says then) while its owner lives, through the
//! owner's [`Tasks`](crate::client::task::Tasks), so no tick reaches a view that is gone.

use leptos::prelude::*;

use crate::client::task::{sleep, Tasks};
use crate::model::cells::until_ages_turn;

/// Milliseconds since the epoch, now and then just past each whole second.
pub fn use_wall_clock() -> ReadSignal<i64> {
    let (now, set_now) = signal(js_sys::Date::now() as i64);
    Tasks::for_current_owner().spawn(async move {
        loop {
            let wait = until_ages_turn(js_sys::Date::now() as i64);
            sleep(std::time::Duration::from_millis(wait as u64)).await;
            set_now.set(js_sys::Date::now() as i64);
        }
    });
    now
}
