//! "Export picture…": a small disclosure next to "Export trace" with the shape, the colours, the
//! width and the two downloads. What it asks for goes out as a [`Request::Picture`]; `export`
//! draws it. A `<details>` rather than a dialog: the browser keeps it open or shut, and the
//! choices are read from the selects when a download is asked for, so it holds no state.

use super::scenario_bar::Request;
use crate::export::{Format, Options, Scheme, Shape, WIDTHS};
use wasm_bindgen::JsCast;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PictureProps {
    pub request: Callback<Request>,
}

#[function_component]
pub fn PictureExport(p: &PictureProps) -> Html {
    let (details, scheme, width, shape) = (use_node_ref(), use_node_ref(), use_node_ref(), use_node_ref());
    let download = |format: Format| {
        let (request, scheme, width, shape) = (p.request.clone(), scheme.clone(), width.clone(), shape.clone());
        Callback::from(move |_: MouseEvent| {
            let value = |r: &NodeRef| r.cast::<HtmlSelectElement>().map(|s| s.value()).unwrap_or_default();
            let scheme = match value(&scheme).as_str() {
                "light" => Scheme::Light,
                "dark" => Scheme::Dark,
                _ => Scheme::Page,
            };
            let width = value(&width).parse().unwrap_or(WIDTHS[1]);
            let shape = if value(&shape) == "tall" { Shape::Tall } else { Shape::Slide };
            request.emit(Request::Picture(Options { format, width, scheme, shape }));
        })
    };
    // Keys stay here (Space or the arrows must not drive the lab); Escape closes it.
    let onkeydown = {
        let details = details.clone();
        Callback::from(move |e: KeyboardEvent| {
            e.stop_propagation();
            if let (true, Some(d)) = (e.key() == "Escape", details.cast::<web_sys::HtmlElement>()) {
                let _ = d.remove_attribute("open");
                if let Ok(Some(s)) = d.query_selector("summary") {
                    let _ = s.unchecked_into::<web_sys::HtmlElement>().focus();
                }
            }
        })
    };
    html! {
        <details class="picture" ref={details} {onkeydown}>
            <summary>{"Export picture…"}</summary>
            <div class="picture-menu" role="group" aria-label="Export picture">
                <label>{"Shape "}
                    <select ref={shape.clone()} aria-label="Picture shape">
                        <option value="slide" selected=true>{"slide, 16:9"}</option>
                        <option value="tall">{"notes: caption above"}</option>
                    </select>
                </label>
                <label>{"Colours "}
                    <select ref={scheme.clone()} aria-label="Picture colours">
                        <option value="page" selected=true>{"as the page"}</option>
                        <option value="light">{"light"}</option>
                        <option value="dark">{"dark"}</option>
                    </select>
                </label>
                <label>{"Width "}
                    <select ref={width.clone()} aria-label="Picture width">
                        { for WIDTHS.iter().map(|&w| html!{ <option value={w.to_string()} selected={w == WIDTHS[1]}>{ format!("{w} px") }</option> }) }
                    </select>
                </label>
                <button onclick={download(Format::Svg)}>{"Download SVG"}</button>
                <button onclick={download(Format::Png)}>{"Download PNG"}</button>
            </div>
        </details>
    }
}
