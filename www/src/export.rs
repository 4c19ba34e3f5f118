//! Pictures for slides: the canvas as it is drawn now, as a standalone SVG or PNG file, with a
//! caption (algorithm, preset, step, time, leaders) and a legend of the message kinds in flight.
//!
//! The picture is the canvas's own markup: the live `<svg>` is cloned and every element gets
//! the styles the page computed for it written inline (only what differs from its parent, for
//! inherited properties), so the file needs no stylesheet. Light or dark: "as the page" takes
//! the computed styles as they are; "light" or "dark" first sets the custom properties (`--ink`,
//! `--panel`, …) of that scheme, read from the page's own stylesheets (`:root` and its
//! `prefers-color-scheme: dark` block), on the canvas's box, so the browser's cascade does the
//! rest, then takes them off again. A PNG is the same SVG drawn into an `<img>`, then onto a
//! `<canvas>` at the chosen width, then `toBlob`.
//!
//! [`compose`] and [`legend`] are pure and tested natively; the rest talks to the DOM.

use crate::meta::kind_colour;
use crate::state::State;
use election_lab::{Algorithm, Frame};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, HtmlElement};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Svg,
    Png,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// The colours the page shows now.
    Page,
    Light,
    Dark,
}

/// What the picture dialog asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub format: Format,
    /// Width of the picture in pixels (the height follows).
    pub width: u32,
    pub scheme: Scheme,
}

/// The widths offered, in pixels.
pub const WIDTHS: &[u32] = &[1280, 1920, 2560];

/// Width of the drawing in picture units (the canvas's viewBox is 1000 × 1000).
const W: f64 = 1000.0;
const CAPTION: f64 = 100.0;
const ROW: f64 = 36.0;
const PAD: f64 = 28.0;

/// The picture's colours and font.
#[derive(Clone, Debug, PartialEq)]
pub struct Look {
    pub background: String,
    pub ink: String,
    pub muted: String,
    /// The ring of a dot that will not arrive.
    pub bad: String,
    pub font: String,
}

/// One legend entry: a message kind drawn in the picture.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub colour: &'static str,
    pub short: &'static str,
    pub name: &'static str,
}

/// The kinds of the messages in flight in `frame`, in the algorithm's kind order, and whether
/// one of them is doomed (drawn with the dashed ring).
pub fn legend(alg: &Algorithm, frame: &Frame) -> (Vec<Entry>, bool) {
    let entries = alg
        .kinds
        .iter()
        .filter(|k| frame.messages.iter().any(|m| m.kind == k.name))
        .map(|k| Entry { colour: kind_colour(alg, k.name), short: k.short, name: k.name })
        .collect();
    (entries, frame.messages.iter().any(|m| m.doomed))
}

/// The caption's two lines: the algorithm, then preset, step, time and leaders.
pub fn caption(alg: &Algorithm, preset: Option<&str>, frame: &Frame) -> (String, String) {
    let mut detail = Vec::new();
    if let Some(p) = preset.and_then(election_lab::presets::find) {
        detail.push(p.title.en.to_string());
    }
    detail.push(format!("step {}", frame.step));
    detail.push(format!("t = {}", frame.time));
    detail.push(match frame.leaders.as_slice() {
        [] => "no leader".to_string(),
        [one] => format!("leader N{one}"),
        many => format!("leaders {}", crate::nodes_text(many)),
    });
    (alg.title.en.to_string(), detail.join(" · "))
}

/// Text for XML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Rough advance of a legend label (system sans-serif at 20 px, bold short label).
fn text_width(s: &str) -> f64 {
    s.chars().count() as f64 * 12.0
}

/// The legend laid out in rows: (x, row) of each item, doomed last, and the number of rows.
fn layout(legend: &[Entry], doomed: bool) -> (Vec<(f64, usize)>, usize) {
    let widths = legend.iter().map(|e| 26.0 + text_width(e.short) + 8.0 + text_width(e.name)).chain(doomed.then(|| 26.0 + text_width(DOOMED)));
    let (mut x, mut row, mut at) = (PAD, 0, Vec::new());
    for w in widths {
        if x > PAD && x + w > W - PAD {
            x = PAD;
            row += 1;
        }
        at.push((x, row));
        x += w + 30.0;
    }
    let rows = if at.is_empty() { 0 } else { row + 1 };
    (at, rows)
}

const DOOMED: &str = "will not arrive";

/// The whole picture: `canvas` is the serialised canvas `<svg>` (styles inline), placed under
/// the caption and above the legend; `width` is the picture's width in pixels.
pub fn compose(canvas: &str, (title, detail): (&str, &str), legend: &[Entry], doomed: bool, look: &Look, width: u32) -> String {
    let (at, rows) = layout(legend, doomed);
    let legend_h = if rows == 0 { 0.0 } else { rows as f64 * ROW + 24.0 };
    let h = CAPTION + W + legend_h;
    let px_h = (width as f64 * h / W).round() as u32;
    let (bg, ink, muted, font) = (escape(&look.background), escape(&look.ink), escape(&look.muted), escape(&look.font));
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{px_h}\" viewBox=\"0 0 {W} {h}\" font-family=\"{font}\" role=\"img\" aria-label=\"{}\">\
         <title>{}</title><rect width=\"{W}\" height=\"{h}\" fill=\"{bg}\"/>\
         <text x=\"{PAD}\" y=\"46\" font-size=\"32\" font-weight=\"700\" fill=\"{ink}\">{}</text>\
         <text x=\"{PAD}\" y=\"82\" font-size=\"21\" fill=\"{muted}\">{}</text>",
        escape(&format!("{title}: {detail}")),
        escape(&format!("{title}: {detail}")),
        escape(title),
        escape(detail),
    );
    s.push_str(&format!("<g transform=\"translate(0 {CAPTION})\">{canvas}</g>"));
    for (i, &(x, row)) in at.iter().enumerate() {
        let y = CAPTION + W + 12.0 + row as f64 * ROW + ROW / 2.0;
        match legend.get(i) {
            Some(e) => s.push_str(&format!(
                "<circle cx=\"{}\" cy=\"{y}\" r=\"9\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" font-size=\"20\" fill=\"{ink}\"><tspan font-weight=\"700\">{}</tspan> {}</text>",
                x + 9.0,
                e.colour,
                x + 26.0,
                y + 7.0,
                escape(e.short),
                escape(e.name)
            )),
            None => s.push_str(&format!(
                "<circle cx=\"{}\" cy=\"{y}\" r=\"9\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"3 2\"/><text x=\"{}\" y=\"{}\" font-size=\"20\" fill=\"{ink}\">{DOOMED}</text>",
                x + 9.0,
                escape(&look.bad),
                x + 26.0,
                y + 7.0
            )),
        }
    }
    s.push_str("</svg>");
    s
}

/// File name: `election-lab-<preset or algorithm>-step<N>.<ext>`.
pub fn file_name(alg: &Algorithm, preset: Option<&str>, step: u64, format: Format) -> String {
    let ext = match format {
        Format::Svg => "svg",
        Format::Png => "png",
    };
    format!("election-lab-{}-step{step}.{ext}", preset.unwrap_or(alg.id))
}

// ----- the DOM side -----

/// Properties SVG inherits: written on an element only where they differ from its parent.
const INHERITED: &[&str] = &[
    "fill", "fill-opacity", "stroke", "stroke-width", "stroke-dasharray", "stroke-opacity", "stroke-linecap", "stroke-linejoin",
    "font-family", "font-size", "font-weight", "text-anchor", "dominant-baseline", "paint-order", "visibility",
];
/// Properties that do not inherit, with their initial value (written when different).
const OWN: &[(&str, &str)] = &[("opacity", "1")];
/// Parts of the canvas that are only there to be clicked or dragged.
const INTERACTIVE: &str = ".dot-hit, .cut-hit, .cut-remove, .backdrop, .cut-preview";

fn computed(el: &Element) -> Option<web_sys::CssStyleDeclaration> {
    web_sys::window()?.get_computed_style(el).ok()?
}

/// Writes `live`'s computed styles inline on `copy` (same shape), recursively; `parent` holds
/// the parent's values of [`INHERITED`] (`None` at the root: write them all).
fn inline_styles(live: &Element, copy: &Element, parent: Option<&[String]>) {
    let Some(cs) = computed(live) else { return };
    let values: Vec<String> = INHERITED.iter().map(|p| cs.get_property_value(p).unwrap_or_default()).collect();
    let mut style = String::new();
    for (i, p) in INHERITED.iter().enumerate() {
        if !values[i].is_empty() && parent.is_none_or(|pv| pv[i] != values[i]) {
            style.push_str(&format!("{p}:{};", values[i]));
        }
    }
    for (p, initial) in OWN {
        let v = cs.get_property_value(p).unwrap_or_default();
        if !v.is_empty() && v != *initial {
            style.push_str(&format!("{p}:{v};"));
        }
    }
    for a in ["style", "role", "tabindex", "aria-label"] {
        let _ = copy.remove_attribute(a);
    }
    if !style.is_empty() {
        let _ = copy.set_attribute("style", &style);
    }
    let (lc, cc) = (live.children(), copy.children());
    for k in 0..lc.length().min(cc.length()) {
        if let (Some(l), Some(c)) = (lc.item(k), cc.item(k)) {
            inline_styles(&l, &c, Some(&values));
        }
    }
}

/// The custom properties of the page's stylesheets: (`:root`, `:root` under
/// `prefers-color-scheme: dark`).
fn scheme_vars(doc: &web_sys::Document) -> (Vec<(String, String)>, Vec<(String, String)>) {
    fn custom(decl: &web_sys::CssStyleDeclaration, into: &mut Vec<(String, String)>) {
        for i in 0..decl.length() {
            let name = decl.item(i);
            if name.starts_with("--") {
                into.push((name.clone(), decl.get_property_value(&name).unwrap_or_default().trim().to_string()));
            }
        }
    }
    fn roots(rules: &web_sys::CssRuleList, light: &mut Vec<(String, String)>, dark: &mut Vec<(String, String)>, in_dark: bool) {
        for i in 0..rules.length() {
            let Some(rule) = rules.item(i) else { continue };
            if let Some(r) = rule.dyn_ref::<web_sys::CssStyleRule>() {
                if r.selector_text().trim() == ":root" {
                    custom(&r.style(), if in_dark { &mut *dark } else { &mut *light });
                }
            } else if let Some(m) = rule.dyn_ref::<web_sys::CssMediaRule>() {
                let media = m.media().media_text();
                if media.contains("prefers-color-scheme") && media.contains("dark") {
                    roots(&m.css_rules(), light, dark, true);
                }
            }
        }
    }
    let (mut light, mut dark) = (Vec::new(), Vec::new());
    let sheets = doc.style_sheets();
    for i in 0..sheets.length() {
        // A sheet from another origin cannot be read: skipped.
        let Some(sheet) = sheets.item(i).and_then(|s| s.dyn_into::<web_sys::CssStyleSheet>().ok()) else { continue };
        if let Ok(rules) = sheet.css_rules() {
            roots(&rules, &mut light, &mut dark, false);
        }
    }
    (light, dark)
}

/// The canvas of `lane`, styles inline, serialised; and the picture's look.
fn canvas_markup(lane: &str, scheme: Scheme) -> Option<(String, Look)> {
    let doc = web_sys::window()?.document()?;
    let svg = doc.query_selector(&format!("svg.canvas[data-lane=\"{lane}\"]")).ok()??;
    let wrap: HtmlElement = svg.parent_element()?.dyn_into().ok()?;
    // The scheme's custom properties, set on the canvas's box while its styles are read.
    let vars = match scheme {
        Scheme::Page => None,
        Scheme::Light | Scheme::Dark => {
            let (mut light, dark) = scheme_vars(&doc);
            if scheme == Scheme::Dark {
                light.extend(dark);
            }
            Some(light.iter().map(|(k, v)| format!("{k}:{v};")).collect::<String>())
        }
    };
    let old_style = wrap.get_attribute("style");
    if let Some(v) = &vars {
        let _ = wrap.set_attribute("style", &format!("{}{v}", old_style.clone().unwrap_or_default()));
    }
    let copy: Element = svg.clone_node_with_deep(true).ok()?.dyn_into().ok()?;
    inline_styles(&svg, &copy, None);
    let var = |cs: &web_sys::CssStyleDeclaration, name: &str, or: &str| {
        let v = cs.get_property_value(name).unwrap_or_default().trim().to_string();
        if v.is_empty() {
            or.to_string()
        } else {
            v
        }
    };
    let look = computed(&wrap).map(|cs| {
        // `--ink`, not `color`: the box inherits `color` already resolved from the page root.
        let ink = var(&cs, "--ink", &var(&cs, "color", "#1d1d1f"));
        Look {
            background: var(&cs, "background-color", "#ffffff"),
            muted: var(&cs, "--muted", &ink),
            bad: var(&cs, "--bad", "#b3261e"),
            font: var(&cs, "font-family", "sans-serif"),
            ink,
        }
    })?;
    if vars.is_some() {
        let _ = match old_style {
            Some(s) => wrap.set_attribute("style", &s),
            None => wrap.remove_attribute("style"),
        };
    }
    while let Ok(Some(el)) = copy.query_selector(INTERACTIVE) {
        el.remove();
    }
    for a in ["class", "preserveAspectRatio"] {
        let _ = copy.remove_attribute(a);
    }
    let _ = copy.set_attribute("width", "1000");
    let _ = copy.set_attribute("height", "1000");
    let text = web_sys::XmlSerializer::new().ok()?.serialize_to_string(&copy).ok()?;
    Some((text, look))
}

/// Offers a blob as a file download.
fn download_blob(name: &str, blob: &web_sys::Blob) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(blob) else { return };
    if let Ok(a) = doc.create_element("a").map(|e| e.unchecked_into::<web_sys::HtmlAnchorElement>()) {
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
    // Revoked once the download has surely started.
    let _ = gloo_timers::callback::Timeout::new(10_000, move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    })
    .forget();
}

/// Draws the SVG text onto a canvas `width` × `height` and returns it as a PNG blob.
async fn rasterise(svg: &str, width: u32, height: u32) -> Result<web_sys::Blob, JsValue> {
    let doc = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let img = web_sys::HtmlImageElement::new()?;
    img.set_src(&format!("data:image/svg+xml;charset=utf-8,{}", String::from(js_sys::encode_uri_component(svg))));
    wasm_bindgen_futures::JsFuture::from(img.decode()).await?;
    let canvas: web_sys::HtmlCanvasElement = doc.create_element("canvas")?.dyn_into()?;
    canvas.set_width(width);
    canvas.set_height(height);
    let ctx: web_sys::CanvasRenderingContext2d = canvas.get_context("2d")?.ok_or("no 2d context")?.dyn_into()?;
    ctx.draw_image_with_html_image_element_and_dw_and_dh(&img, 0.0, 0.0, width as f64, height as f64)?;
    let done = js_sys::Promise::new(&mut |resolve, reject| {
        if let Err(e) = canvas.to_blob(&resolve) {
            let _ = reject.call1(&JsValue::NULL, &e);
        }
    });
    wasm_bindgen_futures::JsFuture::from(done).await?.dyn_into::<web_sys::Blob>()
}

/// Exports the canvas of `lane` as the picture `options` asks for, and offers it as a download.
pub fn picture(state: &State, lane: &str, options: Options) {
    let engine = state.engine.get();
    let alg = engine.algorithm();
    let frame = &state.frame;
    let Some((canvas, look)) = canvas_markup(lane, options.scheme) else {
        web_sys::console::error_1(&"Export picture: the canvas was not found".into());
        return;
    };
    let (title, detail) = caption(alg, state.preset, frame);
    let (entries, doomed) = legend(alg, frame);
    let svg = compose(&canvas, (&title, &detail), &entries, doomed, &look, options.width);
    let name = file_name(alg, state.preset, frame.step, options.format);
    let blob_of = |text: &str, kind: &str| {
        let opts = web_sys::BlobPropertyBag::new();
        opts.set_type(kind);
        web_sys::Blob::new_with_str_sequence_and_options(&js_sys::Array::of1(&text.into()), &opts).ok()
    };
    match options.format {
        Format::Svg => {
            if let Some(blob) = blob_of(&svg, "image/svg+xml") {
                download_blob(&name, &blob);
            }
        }
        Format::Png => {
            let height = svg_height(&svg).unwrap_or(options.width);
            wasm_bindgen_futures::spawn_local(async move {
                match rasterise(&svg, options.width, height).await {
                    Ok(blob) => download_blob(&name, &blob),
                    Err(e) => web_sys::console::error_2(&"Export picture: PNG failed".into(), &e),
                }
            });
        }
    }
}

/// The `height` attribute of the picture's root element.
fn svg_height(svg: &str) -> Option<u32> {
    let rest = &svg[svg.find(" height=\"")? + 9..];
    rest[..rest.find('"')?].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use election_lab::{presets, Engine};

    fn look() -> Look {
        Look { background: "#fff".into(), ink: "#111".into(), muted: "#666".into(), bad: "#b00".into(), font: "system-ui, \"Segoe UI\"".into() }
    }

    #[test]
    fn the_legend_lists_the_kinds_in_flight_in_kind_order() {
        let mut e = Engine::new(presets::find("ring-worst").unwrap().scenario()).unwrap();
        e.seek(3);
        let frame = e.frame();
        let (entries, doomed) = legend(e.algorithm(), &frame);
        assert!(!entries.is_empty());
        for en in &entries {
            assert!(frame.messages.iter().any(|m| m.kind == en.name));
            assert!(en.colour.starts_with('#'));
        }
        let order: Vec<usize> = entries.iter().map(|en| e.algorithm().kinds.iter().position(|k| k.name == en.name).unwrap()).collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]));
        assert!(!doomed);
        let at0 = Engine::new(presets::find("split-brain-bully").unwrap().scenario()).unwrap().frame();
        assert_eq!(legend(e.algorithm(), &at0), (vec![], false));
    }

    #[test]
    fn the_caption_names_algorithm_preset_step_time_and_leaders() {
        let mut e = Engine::new(presets::find("split-brain-bully").unwrap().scenario()).unwrap();
        e.seek(4);
        let f = e.frame();
        let (title, detail) = caption(e.algorithm(), Some("split-brain-bully"), &f);
        assert_eq!(title, e.algorithm().title.en);
        assert_eq!(detail, format!("Split brain under Bully · step 4 · t = {} · leader N5", f.time));
    }

    #[test]
    fn the_picture_is_one_svg_with_caption_canvas_and_legend() {
        let legend = [
            Entry { colour: "#E69F00", short: "E", name: "ELECTION" },
            Entry { colour: "#56B4E9", short: "OK", name: "OK" },
        ];
        let s = compose("<svg xmlns=\"http://www.w3.org/2000/svg\"><text>N1</text></svg>", ("Bully & co", "step 4 · t = 3"), &legend, true, &look(), 1920);
        assert!(s.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1920\" height=\""));
        assert!(s.ends_with("</svg>"));
        assert!(s.contains("Bully &amp; co"));
        assert!(s.contains("font-family=\"system-ui, &quot;Segoe UI&quot;\""));
        assert!(s.contains("<g transform=\"translate(0 100)\"><svg"));
        assert!(s.contains("<tspan font-weight=\"700\">E</tspan> ELECTION"));
        assert!(s.contains(DOOMED));
        // One row of legend: 100 + 1000 + 36 + 24 units high, at 1.92 px a unit.
        assert_eq!(svg_height(&s), Some((1.92f64 * 1160.0).round() as u32));
        // Without a legend the picture is caption + drawing.
        let bare = compose("<svg/>", ("A", "B"), &[], false, &look(), 1280);
        assert_eq!(svg_height(&bare), Some(1408));
    }

    #[test]
    fn a_long_legend_wraps_into_rows() {
        let many: Vec<Entry> = (0..12).map(|_| Entry { colour: "#000", short: "RV", name: "REQUEST_VOTE_REPLY" }).collect();
        let (at, rows) = layout(&many, true);
        assert!(rows > 1);
        assert_eq!(at.len(), 13);
        assert!(at.iter().all(|&(x, _)| (PAD..W - PAD).contains(&x)));
    }

    #[test]
    fn file_names_say_what_and_when() {
        let alg = election_lab::registry::all()[0];
        assert_eq!(file_name(alg, Some("ring-worst"), 12, Format::Png), "election-lab-ring-worst-step12.png");
        assert_eq!(file_name(alg, None, 0, Format::Svg), format!("election-lab-{}-step0.svg", alg.id));
    }
}
