//! The picture of a namespace, on its screen (#36 item 2): its workloads down to their pods and
//! its Services down to the pods they serve, each a link with its status word, read again every
//! 10 s. It renders what `use_picture` hands it.

use leptos::prelude::*;

use crate::client::picture::use_picture;
use crate::i18n::Msg;
use crate::ui::context::relations::Tree;
use crate::ui::discovered::use_discovery;
use crate::ui::i18n::{live_text, localized};

/// The picture of the namespace `namespace`.
#[component]
pub fn NamespacePicture(
    /// The namespace's name.
    namespace: String,
) -> impl IntoView {
    let picture = use_picture(&use_discovery(), &namespace);
    let part = move |title: Msg,
                     testid: &'static str,
                     pick: fn(&crate::model::picture::Picture) -> Vec<crate::model::relations::Node>| {
        view! {
            <div class="picture__part" data-testid=testid>
                <h4>{live_text(title)}</h4>
                {move || picture.picture.with(|drawn| drawn.as_ref().map(pick)).map(|nodes| {
                    if nodes.is_empty() {
                        view! { <p class="muted">{live_text(Msg::PictureNone)}</p> }.into_any()
                    } else {
                        view! { <Tree nodes /> }.into_any()
                    }
                })}
            </div>
        }
    };
    view! {
        <section class="panel relations picture" aria-label=live_text(Msg::PictureTitle) data-testid="namespace-picture">
            <h3>{live_text(Msg::PictureTitle)}</h3>
            <p role="status" class="relations__state">
                {move || picture.problem.get().map(|p| localized(&p))}
                {move || picture.picture.with(Option::is_none).then(|| live_text(Msg::PictureReading))}
            </p>
            <div class="picture__parts">
                {part(Msg::PictureWorkloads, "picture-workloads", |p| p.workloads.clone())}
                {part(Msg::PictureServices, "picture-services", |p| p.services.clone())}
            </div>
            <button type="button" class="button button--quiet" data-testid="picture-refresh" on:click=move |_| picture.refresh.run(())>
                {live_text(Msg::RelationsRefresh)}
            </button>
        </section>
    }
}
