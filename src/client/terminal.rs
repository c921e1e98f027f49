//! The terminal's driver: runs a [`model::terminal::Session`](crate::model::terminal::Session)'s
//! actions (the probe over the [`Client`], the WebSocket with binary frames) and feeds what
//! happens back into it; [`use_terminal`] hands a view the session's phase as a signal and the
//! user's intents as callbacks. The socket is closed when the view's owner is cleaned up.
//!
//! Invariant: events of a socket that was replaced (a reconnect) or closed are ignored: each
//! socket's handlers carry the number of the session they belong to.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{BinaryType, CloseEvent, MessageEvent, WebSocket};

use crate::client::handle::{use_client, Client};
use crate::client::task::Tasks;
use crate::i18n::Localized;
use crate::model::terminal::{Action, Input, Phase, ProbeAnswer, Session, SessionPlan};

/// A browser WebSocket speaking binary messages, with its handlers.
struct Socket {
    ws: WebSocket,
    _on_open: Closure<dyn FnMut(web_sys::Event)>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_close: Closure<dyn FnMut(CloseEvent)>,
}

impl Socket {
    /// Opens `url` offering `protocols`; `on` hears the socket's events as session inputs.
    fn open(url: &str, protocols: &[&str], on: Rc<dyn Fn(Input)>) -> Result<Socket, String> {
        let offer = js_sys::Array::new();
        for protocol in protocols {
            offer.push(&(*protocol).into());
        }
        let ws = WebSocket::new_with_str_sequence(url, &offer).map_err(|e| describe(&e))?;
        ws.set_binary_type(BinaryType::Arraybuffer);
        let (opened, heard, closed) = (on.clone(), on.clone(), on);
        let socket = ws.clone();
        let on_open = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
            opened(Input::Opened { protocol: socket.protocol() });
        });
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let data = event.data();
            let bytes = match data.dyn_ref::<js_sys::ArrayBuffer>() {
                Some(buffer) => js_sys::Uint8Array::new(buffer).to_vec(),
                // A text message (the base64 protocols, not offered): its bytes, which the
                // protocol then refuses by their channel.
                None => data.as_string().unwrap_or_default().into_bytes(),
            };
            heard(Input::Message(bytes));
        });
        let on_close = Closure::<dyn FnMut(CloseEvent)>::new(move |event: CloseEvent| {
            closed(Input::Closed { code: event.code(), reason: event.reason() });
        });
        ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        Ok(Socket { ws, _on_open: on_open, _on_message: on_message, _on_close: on_close })
    }

    fn send(&self, bytes: &[u8]) {
        // A send on a socket that is closing throws; the close event says what happened.
        let _ = self.ws.send_with_u8_array(bytes);
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        self.ws.set_onopen(None);
        self.ws.set_onmessage(None);
        self.ws.set_onclose(None);
        let _ = self.ws.close_with_code(1000);
    }
}

fn describe(error: &wasm_bindgen::JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| format!("{error:?}"))
}

/// One session at a time, its socket, and where the output goes.
struct Driver {
    client: Client,
    tasks: Tasks,
    phase: RwSignal<Phase>,
    output: Rc<dyn Fn(Vec<u8>)>,
    session: Option<Session>,
    /// The number of the current session; events of older ones are dropped.
    number: u64,
    socket: Option<Socket>,
    /// The terminal's last size, given to every new session.
    size: Option<(u16, u16)>,
}

type Shared = Rc<RefCell<Driver>>;

/// Steps the current session (if `number` is still current) and runs its actions.
fn feed(driver: &Shared, number: u64, input: Input) {
    let (actions, phase) = {
        let mut d = driver.borrow_mut();
        if d.number != number {
            return;
        }
        let Some(session) = d.session.as_mut() else { return };
        let actions = session.step(input);
        (actions, session.phase().clone())
    };
    let signal = driver.borrow().phase;
    if signal.with_untracked(|p| p != &phase) {
        signal.set(phase);
    }
    for action in actions {
        perform(driver, number, action);
    }
}

fn perform(driver: &Shared, number: u64, action: Action) {
    match action {
        Action::Probe(request) => {
            let (client, tasks) = {
                let d = driver.borrow();
                (d.client.clone(), d.tasks.clone())
            };
            let driver = driver.clone();
            tasks.spawn(async move {
                let answer = client.send_undecoded(request).await.map_err(|e| e.text()).map(|fetched| {
                    let response = &fetched.response;
                    ProbeAnswer {
                        status: response.status,
                        content_type: response
                            .headers
                            .iter()
                            .find(|(n, _)| n == "content-type")
                            .map(|(_, v)| v.clone()),
                        body: response.body.to_vec(),
                    }
                });
                feed(&driver, number, Input::Probed(answer));
            });
        }
        Action::Open { url, protocols } => {
            let weak = Rc::downgrade(driver);
            let on: Rc<dyn Fn(Input)> = Rc::new(move |input| {
                if let Some(driver) = weak.upgrade() {
                    feed(&driver, number, input);
                }
            });
            match Socket::open(&url, &protocols, on) {
                Ok(socket) => driver.borrow_mut().socket = Some(socket),
                Err(reason) => feed(driver, number, Input::Closed { code: 0, reason }),
            }
        }
        Action::Send(bytes) => {
            if let Some(socket) = &driver.borrow().socket {
                socket.send(&bytes);
            }
        }
        Action::Show(bytes) => {
            let output = driver.borrow().output.clone();
            output(bytes);
        }
        Action::Close => {
            let socket = driver.borrow_mut().socket.take();
            drop(socket);
        }
    }
}

/// What [`use_terminal`] hands the view.
#[derive(Clone, Copy)]
pub struct UseTerminal {
    /// Where the session stands (its error typed, in [`Phase::Failed`]).
    pub phase: Signal<Phase>,
    /// Connect with the current plan (again, after an end or a failure).
    pub start: Callback<()>,
    /// Close the session.
    pub stop: Callback<()>,
    /// What the keyboard typed (UTF-8), for stdin.
    pub typed: Callback<Vec<u8>>,
    /// The terminal's new size `(cols, rows)`.
    pub resized: Callback<(u16, u16)>,
}

/// A terminal session for `plan` (read when the user connects; `None` while the form is not
/// valid), writing the container's output with `output`.
pub fn use_terminal(plan: Signal<Option<SessionPlan>>, output: Rc<dyn Fn(Vec<u8>)>) -> UseTerminal {
    let client = use_client();
    let phase = RwSignal::new(Phase::Idle);
    let driver: Shared = Rc::new(RefCell::new(Driver {
        client: client.clone(),
        tasks: client.tasks(),
        phase,
        output,
        session: None,
        number: 0,
        socket: None,
        size: None,
    }));
    let leaving = SendWrapper::new(driver.clone());
    on_cleanup(move || {
        let mut d = leaving.borrow_mut();
        d.number += 1;
        d.socket = None;
    });
    let base = client.base_display();
    let shared = SendWrapper::new(driver);
    let start = {
        let shared = shared.clone();
        Callback::new(move |()| {
            let Some(plan) = plan.get_untracked() else { return };
            let number = {
                let mut d = shared.borrow_mut();
                d.number += 1;
                d.socket = None;
                let mut session = Session::new(plan, &base);
                if let Some((cols, rows)) = d.size {
                    session.step(Input::Resized { cols, rows });
                }
                d.session = Some(session);
                d.number
            };
            feed(&shared, number, Input::Start);
        })
    };
    let current = |shared: &Shared| shared.borrow().number;
    let stop = {
        let shared = shared.clone();
        Callback::new(move |()| feed(&shared, current(&shared), Input::Stop))
    };
    let typed = {
        let shared = shared.clone();
        Callback::new(move |data: Vec<u8>| feed(&shared, current(&shared), Input::Typed(data)))
    };
    let resized = Callback::new(move |(cols, rows): (u16, u16)| {
        shared.borrow_mut().size = Some((cols, rows));
        feed(&shared, current(&shared), Input::Resized { cols, rows });
    });
    UseTerminal { phase: phase.into(), start, stop, typed, resized }
}
