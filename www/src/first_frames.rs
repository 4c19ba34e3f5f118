//! The first frames: what the page shows before its wasm has arrived. The build draws, natively
//! and with the app's own components (Yew's server renderer), the first render of every preset's
//! page in each language, as HTML; `index.html` fetches the one its query asks for, shows it
//! while the player loads, and takes it away when the player has drawn its own (which is the same
//! frame: `first-frames.test.mjs` compares them). Until then the frame is inert, and a line says
//! the simulator is loading, or why it did not load (ARCHITECTURE.md, "First frames").
//!
//! A first frame is drawn for a page whose query is empty or names only a preset and a language,
//! the pages a student, a lecture's link and the default page open; anything else (a step, a
//! trace, a lesson, an embed) waits for its player as before. Each is drawn for two canvas sizes:
//! a wide screen's, at the scale every first render has, and a phone's, whose canvas is about a
//! third as wide, so its texts are drawn larger (a phone's player starts from that scale too).

use crate::app::Lab;
use crate::i18n::{tr, Lang};
use election_lab::meta::k;

/// The canvas's scale in a phone's first frame (viewBox units per pixel): a 1 000-unit canvas
/// about 357 px wide, as a 375 px wide screen lays it out (`style.css`, `max-width: 600px`).
pub const PHONE_UNIT: f64 = 2.8;

/// The HTML of one page's first render, as the app draws it for `query` in a browser whose
/// language is `lang`, its canvas at scale `unit` (the side panels come a frame later, in the
/// page as here).
pub fn page(query: &str, lang: Lang, unit: f64) -> String {
    crate::effects::set_native_page(query, Some(lang.tag()), unit);
    let render = yew::LocalServerRenderer::<Lab>::new().hydratable(false).render();
    futures_executor::block_on(render)
}

/// The file shown for `query` in `lang`: the page's first render, inert, beside a status line
/// that says the simulator is loading. The line's `data-failed` is what the page says instead if
/// the player does not load (the loader appends the reason); `data-unit` is the canvas's scale,
/// which the player starts from.
pub fn file(query: &str, lang: Lang, unit: f64) -> String {
    let escape = |s: &str| s.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;");
    format!(
        "<div id=\"first-frame\" data-unit=\"{unit}\"><p class=\"first-frame-status\" role=\"status\" data-failed=\"{}\" data-reload=\"{}\">{}</p><div inert>{}</div></div>",
        escape(tr(lang, k::UI_THE_SIMULATOR_DID_NOT_LOAD)),
        escape(tr(lang, k::UI_RELOAD)),
        escape(tr(lang, k::UI_LOADING_THE_SIMULATOR)),
        page(query, lang, unit)
    )
}

/// Every first frame the build writes, as (file name, content): `<preset>.<lang>.html` for each
/// preset and `index.<lang>.html` for a page with no preset, and the same for a phone
/// (`….<lang>.phone.html`). The Chinese catalog must have been installed
/// (`election_lab::meta::install`).
pub fn all() -> Vec<(String, String)> {
    let mut files = Vec::new();
    let pages = std::iter::once(("index", String::new()))
        .chain(election_lab::presets::all().map(|p| (p.id, format!("?preset={}", p.id))));
    for (name, query) in pages {
        for lang in [Lang::En, Lang::Zh] {
            files.push((format!("{name}.{}.html", lang.tag()), file(&query, lang, 1.0)));
            files.push((format!("{name}.{}.phone.html", lang.tag()), file(&query, lang, PHONE_UNIT)));
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(text: &str, what: &str) -> usize {
        text.matches(what).count()
    }

    #[test]
    fn every_preset_has_a_frame_in_each_language_with_its_nodes_and_the_loading_line() {
        let files = all();
        let presets: Vec<_> = election_lab::presets::all().collect();
        assert_eq!(files.len(), 4 * (presets.len() + 1));
        for (lang, loading) in [("en", "Loading the simulator…"), ("zh", "正在加载模拟器…")] {
            for (p, size) in presets.iter().flat_map(|p| [(p, ""), (p, ".phone")]) {
                let name = format!("{}.{lang}{size}.html", p.id);
                let (_, html) = files.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("{name} is missing"));
                let unit = if size.is_empty() { 1.0 } else { PHONE_UNIT };
                assert!(html.starts_with(&format!("<div id=\"first-frame\" data-unit=\"{unit}\">")), "{name}");
                assert!(html.contains(&format!("--u:{unit:.3}")), "{name}: the canvas at its scale");
                assert!(
                    html.contains(&format!(
                        "role=\"status\" data-failed=\"{}\"",
                        tr(Lang::parse(lang).unwrap(), k::UI_THE_SIMULATOR_DID_NOT_LOAD)
                    )),
                    "{name}"
                );
                assert_eq!(count(html, loading), 1, "{name}");
                assert_eq!(count(html, "<div inert>"), 1, "{name}");
                // The frame of the preset's own scenario: its picker shows it, its canvas has
                // every node (a compare preset draws one canvas per lane).
                assert!(html.contains(&format!("value=\"{}\" selected=\"selected\"", p.id)), "{name}");
                let nodes = p.scenario().nodes.len();
                let drawn = count(html, " data-node=\"");
                assert!(drawn >= nodes && drawn % nodes == 0, "{name}: {drawn} nodes drawn, the scenario has {nodes}");
            }
        }
    }

    #[test]
    fn a_page_with_no_query_is_the_default_presets() {
        for lang in [Lang::En, Lang::Zh] {
            let default = format!("?preset={}", election_lab::presets::DEFAULT);
            assert_eq!(page("", lang, 1.0), page(&default, lang, 1.0));
        }
    }

    #[test]
    fn the_frame_is_in_its_language() {
        let en = file("?preset=raft-cold", Lang::En, 1.0);
        let zh = file("?preset=raft-cold", Lang::Zh, 1.0);
        assert!(en.contains(tr(Lang::En, k::UI_PLAY)) && !en.contains(tr(Lang::Zh, k::UI_PLAY)));
        assert!(zh.contains(tr(Lang::Zh, k::UI_PLAY)) && zh.contains(tr(Lang::Zh, k::UI_LOADING_THE_SIMULATOR)));
        assert!(!zh.contains(tr(Lang::En, k::UI_LOADING_THE_SIMULATOR)));
    }
}

#[cfg(test)]
mod phone_tests {
    use super::*;

    /// The font sizes a frame writes on its canvas's texts, in order.
    fn sizes(html: &str) -> Vec<f64> {
        html.split("font-size:").skip(1).filter_map(|t| t.split("px").next()?.parse().ok()).collect()
    }

    #[test]
    fn a_phones_frame_draws_its_texts_larger_and_the_same_run() {
        for preset in ["bully-heartbeats", "raft-cold", "gossip-16"] {
            let query = format!("?preset={preset}");
            let wide = page(&query, Lang::En, 1.0);
            let phone = page(&query, Lang::En, PHONE_UNIT);
            let (w, p) = (sizes(&wide), sizes(&phone));
            assert_eq!(w.len(), p.len(), "{preset}: the same texts");
            assert!(
                w.iter().zip(&p).all(|(w, p)| p >= w) && w.iter().zip(&p).any(|(w, p)| p > w),
                "{preset}: {w:?} {p:?}"
            );
            // The same words and the same nodes in the same states; only sizes and places differ.
            assert_eq!(words(&wide), words(&phone), "{preset}");
            assert_eq!(states(&wide), states(&phone), "{preset}");
        }
    }

    /// The text between a frame's tags, in order.
    fn words(html: &str) -> Vec<&str> {
        html.split('<').filter_map(|t| t.split_once('>').map(|(_, text)| text)).filter(|t| !t.is_empty()).collect()
    }

    /// Each node's id, status and role, in order.
    fn states(html: &str) -> Vec<&str> {
        html.split(" data-node=\"").skip(1).map(|t| t.split(" role=").next().unwrap_or(t)).collect()
    }
}
