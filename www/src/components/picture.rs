//! "Export picture…": a button and its small dialog (colours, width, SVG or PNG). What it asks
//! for goes out as a [`Request::Picture`]; `export` draws and downloads it.

use super::scenario_bar::Request;
use crate::export::{Format, Options, Scheme, WIDTHS};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PictureProps {
    pub request: Callback<Request>,
}

const SCHEMES: &[(Scheme, &str)] = &[(Scheme::Page, "As the page"), (Scheme::Light, "Light"), (Scheme::Dark, "Dark")];

#[function_component]
pub fn PictureExport(p: &PictureProps) -> Html {
    let open = use_state(|| false);
    let scheme = use_state(|| Scheme::Page);
    let width = use_state(|| 1920u32);
    let first = use_node_ref();
    let trigger = use_node_ref();
    {
        // Focus moves into the dialog when it opens, and back to its button when it closes.
        let (first, trigger) = (first.clone(), trigger.clone());
        let was_open = use_mut_ref(|| false);
        use_effect_with(*open, move |&open| {
            let moved = std::mem::replace(&mut *was_open.borrow_mut(), open) != open;
            let target = if open { first } else { trigger };
            if let (true, Some(el)) = (moved, target.cast::<web_sys::HtmlElement>()) {
                let _ = el.focus();
            }
        });
    }
    let toggle = {
        let open = open.clone();
        Callback::from(move |_: MouseEvent| open.set(!*open))
    };
    let close = {
        let open = open.clone();
        Callback::from(move |_: MouseEvent| open.set(false))
    };
    let onkeydown = {
        let open = open.clone();
        // Keys stay in the dialog: Space or the arrows must not drive the lab behind it.
        Callback::from(move |e: KeyboardEvent| {
            e.stop_propagation();
            if e.key() == "Escape" {
                open.set(false);
            }
        })
    };
    let download = |format: Format| {
        let (request, scheme, width) = (p.request.clone(), *scheme, *width);
        Callback::from(move |_: MouseEvent| request.emit(Request::Picture(Options { format, width, scheme })))
    };
    let on_width = {
        let width = width.clone();
        Callback::from(move |e: Event| {
            if let Some(v) = e.target_dyn_into::<HtmlSelectElement>().and_then(|s| s.value().parse().ok()) {
                width.set(v);
            }
        })
    };
    let dialog = if *open {
        html! {
            <div class="overlay" role="dialog" aria-modal="true" aria-label="Export picture" onclick={close.clone()} {onkeydown}>
                <div class="dialog picture-dialog" onclick={Callback::from(|e: MouseEvent| e.stop_propagation())}>
                    <h2>{"Export picture"}</h2>
                    <p>{"The drawing as it is now, for slides or notes: a caption (algorithm, step, time) and a legend of the message kinds in flight."}</p>
                    <fieldset>
                        <legend>{"Colours"}</legend>
                        { for SCHEMES.iter().enumerate().map(|(i, &(s, text))| {
                            let set = { let scheme = scheme.clone(); Callback::from(move |_: Event| scheme.set(s)) };
                            let r = if i == 0 { first.clone() } else { NodeRef::default() };
                            html!{ <label><input ref={r} type="radio" name="picture-scheme" checked={*scheme == s} onchange={set} />{" "}{ text }</label> }
                        }) }
                    </fieldset>
                    <label>{"Width "}
                        <select aria-label="Picture width" onchange={on_width}>
                            { for WIDTHS.iter().map(|&w| html!{ <option value={w.to_string()} selected={*width == w}>{ format!("{w} px") }</option> }) }
                        </select>
                    </label>
                    <div class="row">
                        <button onclick={download(Format::Svg)}>{"Download SVG"}</button>
                        <button onclick={download(Format::Png)}>{"Download PNG"}</button>
                        <button onclick={close}>{"Close"}</button>
                    </div>
                </div>
            </div>
        }
    } else {
        html! {}
    };
    html! {
        <>
            <button ref={trigger} onclick={toggle} aria-haspopup="dialog">{"Export picture…"}</button>
            { dialog }
        </>
    }
}
