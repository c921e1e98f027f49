//! What the user may do, as the views ask it: the [`Access`] context keeps the SelfSubjectRulesReview
//! of each namespace in view (one request per namespace, cached, dropped on a 403 and on demand)
//! and the SelfSubjectAccessReview of each precise question asked where the rules are incomplete
//! or refused (and, on demand, the Access view's cluster-scoped cells), and decides a [`Question`]
//! from them. A 403 drops what is known only when it contradicts it (the answers said allowed).
//!
//! Invariants: deciding never blocks anything and never writes a signal while a view reads it
//! (answers arrive from tasks); an action is disabled only on a [`Decision::Denied`] the server
//! gave, so when the review APIs are refused or absent every action stays enabled and a 403 is
//! explained instead; reviews are POSTs that store nothing (the write gate lets them through,
//! `Request::changes_state`), and nothing else is sent.

use std::collections::{HashMap, HashSet, VecDeque};

use leptos::prelude::*;

use crate::api::access::{is_review, RulesReview};
use crate::client::access::{can_i, rules_of};
use crate::client::handle::Client;
use crate::i18n::Msg;
use crate::model::access::{decide, decide_cluster_scope, Decision, Forbidden, Question};
use crate::ui::i18n::{filled_text, live_text, localized};

/// Precise questions in flight at once: enough to fill a sidebar quickly, few enough to leave
/// the browser's six connections per host to the views' own requests.
const PARALLEL_REVIEWS: usize = 3;

/// The namespace whose rules decide cluster-scope questions (it exists in every cluster).
const REFERENCE_NAMESPACE: &str = "default";

/// What the server said about a namespace's rules.
#[derive(Debug, Clone, PartialEq)]
pub enum Rules {
    Known(RulesReview),
    /// The rules review was refused or failed: why, in words.
    Unavailable(String),
}

/// The user's permissions as far as the server has told them, provided as context by the app.
#[derive(Clone, Copy)]
pub struct Access {
    client: StoredValue<Client>,
    /// Rules by namespace.
    rules: RwSignal<HashMap<String, Rules>>,
    /// Answers to precise questions (SelfSubjectAccessReview); `Unknown` when it failed.
    answers: RwSignal<HashMap<Question, (Decision, Option<String>)>>,
    /// Namespaces and questions asked and not yet answered (not reactive: views read the answers).
    asking_rules: StoredValue<HashSet<String>>,
    asking: StoredValue<HashSet<Question>>,
    queue: StoredValue<VecDeque<Question>>,
    running: StoredValue<usize>,
    /// Bumped when everything known is dropped, so that answers to older asks are ignored.
    generation: StoredValue<u64>,
}

impl Access {
    /// Provides the context; a 403 to any request but a review that the answers known said was
    /// allowed drops what is known (the rules changed), so that the views ask again.
    pub fn install(client: &Client) -> Access {
        let access = Access {
            // The app's handle for this owner: an unmounted explorer's reviews end with it.
            client: StoredValue::new(client.for_current_owner()),
            rules: RwSignal::new(HashMap::new()),
            answers: RwSignal::new(HashMap::new()),
            asking_rules: StoredValue::new(HashSet::new()),
            asking: StoredValue::new(HashSet::new()),
            queue: StoredValue::new(VecDeque::new()),
            running: StoredValue::new(0),
            generation: StoredValue::new(0),
        };
        client.subscribe(Callback::new(move |exchange: crate::client::handle::Exchange| {
            let Ok(fetched) = &exchange.outcome else { return };
            if fetched.response.status != 403 || is_review(exchange.request.path()) {
                return;
            }
            // A 403 the answers known foresaw (a "no", or no answer either way) says nothing new:
            // only one they said was allowed shows them stale. (A search across types meets
            // dozens of the first kind in a second; each would have asked every review again.)
            let refused = fetched.status_body().and_then(Result::ok).as_ref().and_then(Forbidden::from_status);
            match refused.and_then(|forbidden| forbidden.question()) {
                Some(question) if access.known(&question) != Decision::Allowed => {}
                _ => access.refresh(),
            }
        }));
        provide_context(access);
        access
    }

    /// Drops every rule and answer known: the views that read them ask again.
    pub fn refresh(self) {
        self.generation.update_value(|g| *g += 1);
        self.asking_rules.update_value(HashSet::clear);
        self.asking.update_value(HashSet::clear);
        self.queue.update_value(VecDeque::clear);
        self.rules.set(HashMap::new());
        self.answers.set(HashMap::new());
    }

    /// The rules of `namespace`, asked for if they are not known yet (`None` until they come).
    pub fn rules(self, namespace: &str) -> Option<Rules> {
        let known = self.rules.with(|rules| rules.get(namespace).cloned());
        if known.is_none() {
            self.ask_rules(namespace);
        }
        known
    }

    /// What the server's answers say about `question`, from the rules review of its namespace; a
    /// precise review is asked only where those rules are incomplete or refused. A cluster-scope
    /// question is decided from the rules of [`REFERENCE_NAMESPACE`]: a "no" there is a "no"
    /// everywhere, anything else is unknown (the action stays enabled, and a 403 is explained),
    /// so that a sidebar in all namespaces costs one request, not one per type. Pending until the
    /// rules come.
    pub fn decide(self, question: &Question) -> Decision {
        match &question.namespace {
            Some(namespace) => match self.rules(namespace) {
                None => Decision::Pending,
                Some(Rules::Known(review)) => match decide(&review, question) {
                    Decision::Unknown => self.precise(question),
                    decided => decided,
                },
                Some(Rules::Unavailable(_)) => self.precise(question),
            },
            None => match self.rules(REFERENCE_NAMESPACE) {
                None => Decision::Pending,
                Some(Rules::Known(review)) => decide_cluster_scope(&review, question),
                Some(Rules::Unavailable(_)) => Decision::Unknown,
            },
        }
    }

    /// Whether the rules that decide questions in `namespace` (`None`: the cluster scope, decided
    /// from the rules of [`REFERENCE_NAMESPACE`]) have come, or failed; asked for if not.
    pub fn rules_known(self, namespace: Option<&str>) -> bool {
        self.rules(namespace.unwrap_or(REFERENCE_NAMESPACE)).is_some()
    }

    /// What the answers already here say about `question`, asking nothing and tracking nothing:
    /// a precise answer if there is one, else the rules (pending while they have not come).
    fn known(self, question: &Question) -> Decision {
        let precise = self.answers.with_untracked(|answers| answers.get(question).map(|(d, _)| *d));
        if let Some(decision @ (Decision::Allowed | Decision::Denied)) = precise {
            return decision;
        }
        let namespace = question.namespace.as_deref().unwrap_or(REFERENCE_NAMESPACE);
        match self.rules.with_untracked(|rules| rules.get(namespace).cloned()) {
            Some(Rules::Known(review)) if question.namespace.is_some() => decide(&review, question),
            Some(Rules::Known(review)) => decide_cluster_scope(&review, question),
            Some(Rules::Unavailable(_)) => Decision::Unknown,
            None => Decision::Pending,
        }
    }

    /// The precise answer to `question` (a SelfSubjectAccessReview), asked if it is not known.
    pub fn precise(self, question: &Question) -> Decision {
        match self.answers.with(|answers| answers.get(question).map(|(d, _)| *d)) {
            Some(decision) => decision,
            None => {
                self.ask(question.clone());
                Decision::Pending
            }
        }
    }

    /// Whether the server has answered `question` precisely (or failed to).
    pub fn is_answered(self, question: &Question) -> bool {
        self.answers.with(|answers| answers.contains_key(question))
    }

    /// Asks for precise answers to `questions` (the Access view's cluster-scoped rows).
    pub fn ask_all(self, questions: impl IntoIterator<Item = Question>) {
        for question in questions {
            if self.answers.with_untracked(|answers| !answers.contains_key(&question)) {
                self.ask(question);
            }
        }
    }

    fn ask_rules(self, namespace: &str) {
        let mut new = false;
        self.asking_rules.update_value(|asking| new = asking.insert(namespace.to_owned()));
        if !new {
            return;
        }
        let generation = self.generation.get_value();
        let client = self.client.get_value();
        let namespace = namespace.to_owned();
        client.tasks().spawn(async move {
            let rules = match rules_of(&client, &namespace).await {
                Ok(review) => Rules::Known(review),
                Err(error) => Rules::Unavailable(localized(&error)),
            };
            if self.generation.try_get_value() == Some(generation) {
                self.rules.try_update(|known| known.insert(namespace, rules));
            }
        });
    }

    fn ask(self, question: Question) {
        let mut new = false;
        self.asking.update_value(|asking| new = asking.insert(question.clone()));
        if new {
            self.queue.update_value(|queue| queue.push_back(question));
            self.pump();
        }
    }

    /// Starts queued reviews while fewer than [`PARALLEL_REVIEWS`] run.
    fn pump(self) {
        while self.running.get_value() < PARALLEL_REVIEWS {
            let mut next = None;
            self.queue.update_value(|queue| next = queue.pop_front());
            let Some(question) = next else { return };
            self.running.update_value(|n| *n += 1);
            let generation = self.generation.get_value();
            let client = self.client.get_value();
            client.tasks().spawn(async move {
                let answer = match can_i(&client, &question).await {
                    Ok((true, reason)) => (Decision::Allowed, reason),
                    Ok((false, reason)) => (Decision::Denied, reason),
                    Err(error) => (Decision::Unknown, Some(localized(&error))),
                };
                if self.running.try_update_value(|n| *n = n.saturating_sub(1)).is_none() {
                    return;
                }
                if self.generation.get_value() == generation {
                    self.answers.try_update(|answers| answers.insert(question, answer));
                }
                self.pump();
            });
        }
    }
}

/// The access context, if the app has one (not when the API base is invalid).
pub fn use_access() -> Option<Access> {
    use_context::<Access>()
}

/// Why an action is not offered: in words, and the command that checks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub words: String,
    pub command: String,
}

/// A signal that is `Some` when the server says the user may do none of `questions` (an action
/// that needs any one of them, e.g. Edit: update or patch).
pub fn refusal(
    questions: impl Fn() -> Vec<Question> + Send + Sync + 'static,
    namespaced: bool,
) -> Signal<Option<Refusal>> {
    let access = use_access();
    Signal::derive(move || {
        let access = access?;
        let questions = questions();
        let first = questions.first()?.clone();
        let denied = questions.iter().all(|q| access.decide(q) == Decision::Denied);
        denied.then(|| {
            let verbs: Vec<&str> = questions.iter().map(|q| q.verb.as_str()).collect();
            let mut asked = first.clone();
            asked.verb = verbs.join(" or ");
            Refusal {
                words: filled_text(Msg::YouMayNotAction, &[("action", &localized(&asked.words(namespaced)))]),
                command: first.kubectl(namespaced),
            }
        })
    })
}

/// The refused actions of a bar, under it: each action's name, the reason in words and the
/// `kubectl auth can-i` command that checks it. Nothing while every action is allowed.
#[component]
pub fn RefusalList(
    /// Each action: its name (in the current language) and why it is refused, if it is.
    entries: Vec<(Signal<String>, Signal<Option<Refusal>>)>,
) -> impl IntoView {
    move || {
        let refused: Vec<(String, Refusal)> =
            entries.iter().filter_map(|(label, refusal)| refusal.get().map(|r| (label.get(), r))).collect();
        (!refused.is_empty()).then(|| {
            view! {
                <ul class="refusals" aria-label=live_text(Msg::ActionsNotAllowed)>
                    {refused
                        .into_iter()
                        .map(|(label, r)| {
                            view! {
                                <li class="refusal" data-testid="refusal">
                                    <strong>{label}</strong>
                                    ": "
                                    <span class="refusal__words">{r.words}</span>
                                    {live_text(Msg::Check)}
                                    <code class="refusal__command" dir="ltr">{r.command}</code>
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
            }
        })
    }
}

/// One entry of an action bar: a button that opens the panel `which` (or closes it), disabled
/// (the reason in its title, and in the bar's [`RefusalList`]) while the server says the action
/// is refused. A bar's panels are an enum of its own (`W`), matched without a fall-through.
#[component]
pub fn ActionEntry<W>(
    which: W,
    label: Msg,
    /// The panel open in this bar.
    open: RwSignal<Option<W>>,
    refused: Signal<Option<Refusal>>,
    /// A secondary (quiet) button.
    #[prop(optional)]
    quiet: bool,
) -> impl IntoView
where
    W: Copy + PartialEq + Send + Sync + 'static,
{
    view! {
        <button
            class=if quiet { "button button--quiet" } else { "button" }
            aria-expanded=move || (open.get() == Some(which)).to_string()
            disabled=move || refused.with(Option::is_some)
            title=move || refused.get().map(|r| filled_text(Msg::RefusalTitle, &[("words", &r.words), ("command", &r.command)]))
            on:click=move |_| open.update(|o| *o = if *o == Some(which) { None } else { Some(which) })
        >
            {live_text(label)}
        </button>
    }
}

/// Closes the open panel of a bar when its action becomes refused (the rules came in after the
/// click, or changed on a refresh).
pub fn close_when_refused<W>(open: RwSignal<Option<W>>, entries: Vec<(W, Signal<Option<Refusal>>)>)
where
    W: Copy + PartialEq + Send + Sync + 'static,
{
    Effect::new(move |_| {
        let Some(which) = open.get() else { return };
        if entries.iter().any(|(w, refused)| *w == which && refused.with(Option::is_some)) {
            open.set(None);
        }
    });
}
