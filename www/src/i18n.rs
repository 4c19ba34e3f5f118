//! The page's two languages. Every visible string is a key of the text catalogs
//! (`crate/i18n/<lang>.json`, keys `ui.*` for the page's own words), read with [`tr`]; the
//! algorithms' own texts (titles, cards, legends, narration) come from the engine descriptors,
//! keys too. English is compiled in; the Chinese catalog is fetched when Chinese is chosen
//! (`effects::use_catalog`), and until it arrives the page stays in English.
//! The language comes from `?lang=en|zh`, else the browser's language, and can be switched.

pub use election_lab::meta::{k, Lang, Text};

/// The text of `key` in `lang`.
#[inline]
pub fn tr(lang: Lang, key: Text) -> &'static str {
    key.get(lang)
}

/// The language a page opens in: `?lang=` if it names one, else the browser's, else English.
pub fn initial(query_lang: Option<&str>, browser: Option<&str>) -> Lang {
    query_lang.and_then(Lang::parse).or_else(|| browser.and_then(Lang::parse)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_wins_then_the_browser_then_english() {
        assert_eq!(initial(Some("zh"), Some("en-US")), Lang::Zh);
        assert_eq!(initial(Some("xx"), Some("zh-CN")), Lang::Zh);
        assert_eq!(initial(None, Some("fr-FR")), Lang::En);
        assert_eq!(initial(None, None), Lang::En);
        assert_eq!(tr(Lang::Zh, k::UI_PLAY), k::UI_PLAY.get(Lang::Zh));
        assert_ne!(tr(Lang::Zh, k::UI_PLAY), tr(Lang::En, k::UI_PLAY));
    }
}
