//! The first frames: what the page shows before its wasm has arrived. The build draws, natively
//! and with the app's own components (Yew's server renderer), the first render of every preset's
//! page in each language, as HTML; `index.html` fetches the one its query asks for, shows it
//! while the player loads, and takes it away when the player has drawn its own (which is the same
//! frame: `first-frames.test.mjs` compares them). Until then the frame is inert, and a line says
//! the simulator is loading, or why it did not load (ARCHITECTURE.md, "First frames").
//!
//! A first frame is drawn for a page whose query is empty or names only a preset and a language,
//! the pages a student, a lecture's link and the default page open; anything else (a step, a
//! trace, a lesson, an embed) waits for its player as before.

use crate::app::Lab;
use crate::i18n::{tr, Lang};
use election_lab::meta::k;

/// The HTML of one page's first render, as the app draws it for `query` in a browser whose
/// language is `lang` (the side panels come a frame later, in the page as here).
pub fn page(query: &str, lang: Lang) -> String {
    crate::effects::set_native_page(query, Some(lang.tag()));
    let render = yew::LocalServerRenderer::<Lab>::new().hydratable(false).render();
    futures_executor::block_on(render)
}

/// The file shown for `query` in `lang`: the page's first render, inert, beside a status line
/// that says the simulator is loading. The line's `data-failed` is what the page says instead if
/// the player does not load (the loader appends the reason).
pub fn file(query: &str, lang: Lang) -> String {
    let escape = |s: &str| s.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;");
    format!(
        "<div id=\"first-frame\"><p class=\"first-frame-status\" role=\"status\" data-failed=\"{}\" data-reload=\"{}\">{}</p><div inert>{}</div></div>",
        escape(tr(lang, k::UI_THE_SIMULATOR_DID_NOT_LOAD)),
        escape(tr(lang, k::UI_RELOAD)),
        escape(tr(lang, k::UI_LOADING_THE_SIMULATOR)),
        page(query, lang)
    )
}

/// Every first frame the build writes, as (file name, content): `<preset>.<lang>.html` for each
/// preset, and `index.<lang>.html` for a page with no preset. The Chinese catalog must have been
/// installed (`election_lab::meta::install`).
pub fn all() -> Vec<(String, String)> {
    let mut files = Vec::new();
    for lang in [Lang::En, Lang::Zh] {
        files.push((format!("index.{}.html", lang.tag()), file("", lang)));
        for p in election_lab::presets::all() {
            files.push((format!("{}.{}.html", p.id, lang.tag()), file(&format!("?preset={}", p.id), lang)));
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
        assert_eq!(files.len(), 2 * (presets.len() + 1));
        for (lang, loading) in [("en", "Loading the simulator…"), ("zh", "正在加载模拟器…")] {
            for p in &presets {
                let name = format!("{}.{lang}.html", p.id);
                let (_, html) = files.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("{name} is missing"));
                assert!(html.starts_with("<div id=\"first-frame\">"), "{name}");
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
        assert_eq!(page("", Lang::En), page(&format!("?preset={}", election_lab::presets::DEFAULT), Lang::En));
        assert_eq!(page("", Lang::Zh), page(&format!("?preset={}", election_lab::presets::DEFAULT), Lang::Zh));
    }

    #[test]
    fn the_frame_is_in_its_language() {
        let en = file("?preset=raft-cold", Lang::En);
        let zh = file("?preset=raft-cold", Lang::Zh);
        assert!(en.contains(tr(Lang::En, k::UI_PLAY)) && !en.contains(tr(Lang::Zh, k::UI_PLAY)));
        assert!(zh.contains(tr(Lang::Zh, k::UI_PLAY)) && zh.contains(tr(Lang::Zh, k::UI_LOADING_THE_SIMULATOR)));
        assert!(!zh.contains(tr(Lang::En, k::UI_LOADING_THE_SIMULATOR)));
    }
}
