//! "Export picture…": a small disclosure next to "Export trace" with the shape, the colours, the
//! width and the two downloads. What it asks for goes out as a [`Request::Picture`]; `export`
//! draws it. A `<details>` rather than a dialog: the browser keeps it open or shut, and the
//! choices are read from the selects when a download is asked for, so it holds no state. Besides
//! the picture: its TikZ for LaTeX notes, and a figure strip of chosen steps side by side.

use crate::export::{Format, Options, Scheme, Shape, WIDTHS};
use crate::i18n::{tr, Lang};
use crate::request::Request;
use election_lab::meta::k;
use wasm_bindgen::JsCast;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PictureProps {
    pub request: Callback<Request>,
    pub lang: Lang,
}

/// The colours chosen in the menu's select.
fn scheme_of(value: &str) -> Scheme {
    match value {
        "light" => Scheme::Light,
        "dark" => Scheme::Dark,
        "grey" => Scheme::Grey,
        _ => Scheme::Page,
    }
}

#[function_component]
pub fn PictureExport(p: &PictureProps) -> Html {
    let (details, scheme, width, shape) = (use_node_ref(), use_node_ref(), use_node_ref(), use_node_ref());
    let download = |format: Format| {
        let (request, scheme, width, shape) = (p.request.clone(), scheme.clone(), width.clone(), shape.clone());
        Callback::from(move |_: MouseEvent| {
            let value = |r: &NodeRef| r.cast::<HtmlSelectElement>().map(|s| s.value()).unwrap_or_default();
            let scheme = scheme_of(&value(&scheme));
            let width = value(&width).parse().unwrap_or(WIDTHS[1]);
            let shape = if value(&shape) == "tall" { Shape::Tall } else { Shape::Slide };
            request.emit(Request::Picture(Options { format, width, scheme, shape }));
        })
    };
    let (from, to, delay) = (use_node_ref(), use_node_ref(), use_node_ref());
    let animate = {
        let (request, scheme, width, shape) = (p.request.clone(), scheme.clone(), width.clone(), shape.clone());
        let (from, to, delay) = (from.clone(), to.clone(), delay.clone());
        Callback::from(move |_: MouseEvent| {
            let select = |r: &NodeRef| r.cast::<HtmlSelectElement>().map(|s| s.value()).unwrap_or_default();
            let input = |r: &NodeRef| r.cast::<web_sys::HtmlInputElement>().map(|i| i.value()).unwrap_or_default();
            let scheme = scheme_of(&select(&scheme));
            let width = select(&width).parse().unwrap_or(WIDTHS[0]);
            let shape = if select(&shape) == "tall" { Shape::Tall } else { Shape::Slide };
            let range = (input(&from).trim().parse().ok(), input(&to).trim().parse().ok());
            let delay = input(&delay).trim().parse().unwrap_or(500u32).clamp(50, 10_000);
            request.emit(Request::Animation(Options { format: Format::Png, width, scheme, shape }, range, delay));
        })
    };
    let steps = use_node_ref();
    let strip = |format: Format| {
        let (request, scheme, width, steps) = (p.request.clone(), scheme.clone(), width.clone(), steps.clone());
        Callback::from(move |_: MouseEvent| {
            let select = |r: &NodeRef| r.cast::<HtmlSelectElement>().map(|s| s.value()).unwrap_or_default();
            let text = steps.cast::<web_sys::HtmlInputElement>().map(|i| i.value()).unwrap_or_default();
            let (scheme, width) = (scheme_of(&select(&scheme)), select(&width).parse().unwrap_or(WIDTHS[1]));
            request.emit(Request::Strip(Options { format, width, scheme, shape: Shape::Slide }, text));
        })
    };
    let space_time = {
        let (request, scheme) = (p.request.clone(), scheme.clone());
        Callback::from(move |_: MouseEvent| {
            let value = scheme.cast::<HtmlSelectElement>().map(|s| s.value()).unwrap_or_default();
            request.emit(Request::SpaceTimeTikz(scheme_of(&value)));
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
    let l = p.lang;
    html! {
        <details class="picture" ref={details} {onkeydown}>
            <summary>{ tr(l, k::UI_EXPORT_PICTURE) }</summary>
            <div class="picture-menu" role="group" aria-label={tr(l, k::UI_EXPORT_PICTURE_2)}>
                <label>{ tr(l, k::UI_SHAPE) }
                    <select ref={shape.clone()} aria-label={tr(l, k::UI_PICTURE_SHAPE)}>
                        <option value="slide" selected=true>{ tr(l, k::UI_SLIDE_16_9) }</option>
                        <option value="tall">{ tr(l, k::UI_NOTES_CAPTION_ABOVE) }</option>
                    </select>
                </label>
                <label>{ tr(l, k::UI_COLOURS) }
                    <select ref={scheme.clone()} aria-label={tr(l, k::UI_PICTURE_COLOURS)}>
                        <option value="page" selected=true>{ tr(l, k::UI_AS_THE_PAGE) }</option>
                        <option value="light">{ tr(l, k::UI_LIGHT) }</option>
                        <option value="dark">{ tr(l, k::UI_DARK) }</option>
                        <option value="grey">{ tr(l, k::UI_GREYSCALE_PRINT) }</option>
                    </select>
                </label>
                <label>{ tr(l, k::UI_WIDTH) }
                    <select ref={width.clone()} aria-label={tr(l, k::UI_PICTURE_WIDTH)}>
                        { for WIDTHS.iter().map(|&w| html!{ <option value={w.to_string()} selected={w == WIDTHS[1]}>{ format!("{w} px") }</option> }) }
                    </select>
                </label>
                <button onclick={download(Format::Svg)}>{ tr(l, k::UI_DOWNLOAD_SVG) }</button>
                <button onclick={download(Format::Png)}>{ tr(l, k::UI_DOWNLOAD_PNG) }</button>
                <button onclick={download(Format::Tikz)}>{ tr(l, k::UI_DOWNLOAD_TIKZ) }</button>
                <button onclick={space_time}>{ tr(l, k::UI_DOWNLOAD_SPACE_TIME_TIKZ) }</button>
                <fieldset class="strip">
                    <legend>{ tr(l, k::UI_FIGURE_STRIP) }</legend>
                    <label>{ tr(l, k::UI_STRIP_STEPS) }<input ref={steps.clone()} data-testid="strip-steps" type="text" inputmode="numeric" placeholder="3, 10, 25" aria-label={tr(l, k::UI_STRIP_STEPS_LABEL)} /></label>
                    <button onclick={strip(Format::Svg)}>{ tr(l, k::UI_DOWNLOAD_STRIP_SVG) }</button>
                    <button onclick={strip(Format::Png)}>{ tr(l, k::UI_DOWNLOAD_STRIP_PNG) }</button>
                    <button onclick={strip(Format::Tikz)}>{ tr(l, k::UI_DOWNLOAD_STRIP_TIKZ) }</button>
                </fieldset>
                <fieldset class="animation">
                    <legend>{ tr(l, k::UI_ANIMATION_APNG) }</legend>
                    <label>{ tr(l, k::UI_FROM_STEP) }<input ref={from} type="number" min="0" placeholder={tr(l, k::UI_CURRENT)} aria-label={tr(l, k::UI_ANIMATION_FROM_STEP)} />{ tr(l, k::UI_STEPS_SUFFIX) }</label>
                    <label>{ tr(l, k::UI_TO_STEP) }<input ref={to} type="number" min="0" placeholder="+40" aria-label={tr(l, k::UI_ANIMATION_TO_STEP)} />{ tr(l, k::UI_STEPS_SUFFIX) }</label>
                    <label>{ tr(l, k::UI_MS_PER_STEP) }<input ref={delay} type="number" min="50" max="10000" value="500" aria-label={tr(l, k::UI_MILLISECONDS_PER_STEP)} /></label>
                    <button onclick={animate}>{ tr(l, k::UI_DOWNLOAD_ANIMATION) }</button>
                </fieldset>
            </div>
        </details>
    }
}
