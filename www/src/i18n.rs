//! The page's two languages. Every visible string goes through [`tr`] with its English and
//! Chinese text side by side, so a missing translation is visible in review; the algorithms'
//! own texts (titles, cards, legends, narration) come from the engine descriptors as `Text`.
//! The language comes from `?lang=en|zh`, else the browser's language, and can be switched.

pub use election_lab::meta::{Lang, Text};

/// `en` or `zh` by language.
#[inline]
pub fn tr(lang: Lang, en: &'static str, zh: &'static str) -> &'static str {
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
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
        assert_eq!(tr(Lang::Zh, "Play", "播放"), "播放");
    }
}
