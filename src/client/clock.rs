//! The wall clock as a signal, for the texts that say how long ago something was (an `Age`
//! column): it ticks once a second while its owner lives, through the owner's
//! [`Tasks`](crate::client::task::Tasks), so no tick reaches a view that is gone.

use leptos::prelude::*;

use crate::client::task::{sleep, Tasks};

/// Milliseconds since the epoch, now and then once a second.
pub fn use_wall_clock() -> ReadSignal<i64> {
    let (now, set_now) = signal(js_sys::Date::now() as i64);
    Tasks::for_current_owner().spawn(async move {
        loop {
            sleep(std::time::Duration::from_secs(1)).await;
            set_now.set(js_sys::Date::now() as i64);
        }
    });
    now
}
