//! Work that a view starts and that may end after the view: a request's answer, a stream's
//! chunks, a timer, the next animation frame. [`Tasks`] ties such work to a reactive owner: when
//! the owner is cleaned up, its unfinished tasks are dropped where they wait, so an answer that
//! arrives for a view already gone is never looked at, and no signal of the view is read after it
//! was disposed (a read of a disposed signal panics, and a panic kills the wasm instance).
//!
//! Invariants: a task of a [`Tasks`] runs only between two of its own await points while the
//! owner lives (the cleanup runs between tasks, never inside one: effects run later, not inside a
//! signal's write); a task spawned after the cleanup never starts. A dropped task's request is
//! aborted by the [`Client`](crate::client::handle::Client) handle of the same owner, and a
//! dropped stream gives its slot of the stream budget back.
//!
//! [`Client::tasks`](crate::client::handle::Client::tasks) is the usual way: a view that sends a
//! request through its handle runs the work around it as a task of the same owner.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::rc::Rc;

use futures::future::{AbortHandle, Abortable};
use leptos::prelude::on_cleanup;
use send_wrapper::SendWrapper;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

pub use crate::client::fetch::sleep;

/// The tasks of one owner, dropped unfinished when it is cleaned up. Cheap to clone (a handle).
#[derive(Clone)]
pub struct Tasks {
    inner: SendWrapper<Rc<Inner>>,
}

#[derive(Default)]
struct Inner {
    ended: Cell<bool>,
    next: Cell<u64>,
    running: RefCell<HashMap<u64, AbortHandle>>,
}

impl Tasks {
    /// Tasks that end when the current reactive owner is cleaned up (a component unmounted, an
    /// effect run again). Without an owner they end only with [`Tasks::end`].
    pub fn for_current_owner() -> Tasks {
        let tasks = Tasks::unowned();
        let ending = tasks.clone();
        on_cleanup(move || ending.end());
        tasks
    }

    /// Tasks that end only with [`Tasks::end`] (the caller ties them to its own lifetime).
    pub fn unowned() -> Tasks {
        Tasks { inner: SendWrapper::new(Rc::new(Inner::default())) }
    }

    /// Runs `work` every `every` (the first time after one wait) until these tasks end.
    pub fn every(&self, every: std::time::Duration, work: impl Fn() + 'static) {
        self.spawn(async move {
            loop {
                crate::client::fetch::sleep(every).await;
                work();
            }
        });
    }

    /// Runs `work` until it finishes or these tasks end, whichever comes first; after the end it
    /// does not start at all.
    pub fn spawn(&self, work: impl Future<Output = ()> + 'static) {
        if self.inner.ended.get() {
            return;
        }
        let (handle, registration) = AbortHandle::new_pair();
        let id = self.inner.next.get();
        self.inner.next.set(id + 1);
        self.inner.running.borrow_mut().insert(id, handle);
        let inner = Rc::downgrade(&self.inner);
        leptos::task::spawn_local(async move {
            let _ = Abortable::new(work, registration).await;
            if let Some(inner) = inner.upgrade() {
                inner.running.borrow_mut().remove(&id);
            }
        });
    }

    /// `work` as a future that these tasks drop when they end: it resolves to `None` then (at
    /// once when they have ended already), else to `work`'s output. For work whose output a
    /// Leptos `Action` keeps (the action spawns the future; these tasks bound it to the owner).
    pub fn run<T: 'static>(
        &self,
        work: impl Future<Output = T> + 'static,
    ) -> impl Future<Output = Option<T>> + 'static {
        let (handle, registration) = AbortHandle::new_pair();
        let id = self.inner.next.get();
        self.inner.next.set(id + 1);
        if self.inner.ended.get() {
            handle.abort();
        } else {
            self.inner.running.borrow_mut().insert(id, handle);
        }
        let inner = Rc::downgrade(&self.inner);
        async move {
            let output = Abortable::new(work, registration).await.ok();
            if let Some(inner) = inner.upgrade() {
                inner.running.borrow_mut().remove(&id);
            }
            output
        }
    }

    /// Whether these tasks have ended (the owner is gone): what arrives now belongs to no view.
    pub fn ended(&self) -> bool {
        self.inner.ended.get()
    }

    /// Drops every unfinished task and refuses new ones (the owner's cleanup calls it).
    pub fn end(&self) {
        self.inner.ended.set(true);
        let running: Vec<AbortHandle> = self.inner.running.borrow_mut().drain().map(|(_, handle)| handle).collect();
        for handle in running {
            handle.abort();
        }
    }
}

/// Runs `work` as a task of the current reactive owner: dropped when the owner is cleaned up.
/// (Work that only a callback or a timer starts later, outside the owner, takes a [`Tasks`] made
/// beforehand, or the [`Client`](crate::client::handle::Client) handle's
/// [`tasks`](crate::client::handle::Client::tasks).)
pub fn spawn(work: impl Future<Output = ()> + 'static) {
    Tasks::for_current_owner().spawn(work);
}

/// Resolves at the next animation frame (at once when the page has no window).
pub async fn next_frame() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let asked = web_sys::window().and_then(|window| window.request_animation_frame(&resolve).ok());
        if asked.is_none() {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        }
    });
    let _ = JsFuture::from(promise).await;
}
