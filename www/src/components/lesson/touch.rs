//! A lesson's words on a touch screen: its prompts, captions and hints are written for a mouse
//! ("Click the node…", "right-click"); on a touch device the panel shows them naming taps and
//! long presses instead, in both languages. Only whole words change (a `click` inside another
//! word stays), so node names, kinds and numbers are never touched.

use crate::i18n::Lang;

/// English: the mouse's phrases and their touch words, longest first.
const EN: &[(&str, &str)] = &[
    ("right-click, Shift+click, or M on the focused node", "a long press"),
    ("Right-click", "Long-press"),
    ("right-click", "long-press"),
    ("Clicking", "Tapping"),
    ("clicking", "tapping"),
    ("Clicked", "Tapped"),
    ("clicked", "tapped"),
    ("Clicks", "Taps"),
    ("clicks", "taps"),
    ("Click", "Tap"),
    ("click", "tap"),
];

/// Chinese: 点击 (click) becomes 轻触 (tap), 右键 (right-click) 长按 (long press).
const ZH: &[(&str, &str)] =
    &[("右键、Shift+点击，或在选中的节点上按 M", "长按"), ("右键单击", "长按"), ("右键", "长按"), ("点击", "轻触")];

/// `text` with its mouse words replaced by touch words, in `lang`.
pub fn words(text: &str, lang: Lang) -> String {
    let (table, whole_words) = match lang {
        Lang::En => (EN, true),
        Lang::Zh => (ZH, false),
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'scan: while !rest.is_empty() {
        for (from, to) in table {
            if let Some(after) = rest.strip_prefix(from) {
                let before_ok = !whole_words || !out.chars().last().is_some_and(|c| c.is_alphanumeric());
                let after_ok = !whole_words || !after.chars().next().is_some_and(|c| c.is_alphanumeric());
                if before_ok && after_ok {
                    out.push_str(to);
                    rest = after;
                    continue 'scan;
                }
            }
        }
        let c = rest.chars().next().unwrap_or_default();
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use election_lab::lesson::course;

    #[test]
    fn mouse_words_become_touch_words_in_both_languages() {
        assert_eq!(words("Click the node that will lead.", Lang::En), "Tap the node that will lead.");
        assert_eq!(
            words("Crash the leader N7 now: click it (a click crashes a live node).", Lang::En),
            "Crash the leader N7 now: tap it (a tap crashes a live node)."
        );
        assert_eq!(
            words("open its menu (right-click, Shift+click, or M on the focused node) and choose", Lang::En),
            "open its menu (a long press) and choose"
        );
        assert_eq!(
            words("clickable, unclicked, CLICK_COUNT", Lang::En),
            "clickable, unclicked, CLICK_COUNT",
            "whole words only"
        );
        assert_eq!(words("点击将成为领导者的节点。", Lang::Zh), "轻触将成为领导者的节点。");
        assert_eq!(
            words("打开它的菜单（右键、Shift+点击，或在选中的节点上按 M），再选择", Lang::Zh),
            "打开它的菜单（长按），再选择"
        );
    }

    /// No built-in lesson's prompt, caption or hint keeps a mouse word once read for touch.
    #[test]
    fn no_built_in_lesson_says_click_on_a_touch_screen() {
        for l in course::all() {
            let id = &l.id;
            let mut texts = Vec::new();
            for s in &l.stops {
                texts.push(&s.caption);
                texts.extend(s.question.as_ref().map(|q| &q.prompt));
                texts.extend(s.question.as_ref().map(|q| &q.explain));
                texts.extend(s.act.as_ref().map(|a| &a.prompt));
            }
            texts.extend(l.challenge.as_ref().map(|c| &c.hint));
            texts.extend(l.challenge.as_ref().map(|c| &c.caption));
            for t in texts {
                let (en, zh) = (words(&t.en, Lang::En), words(&t.zh, Lang::Zh));
                assert!(!en.to_lowercase().contains("click"), "{id}: {en}");
                assert!(!zh.contains("点击") && !zh.contains("右键"), "{id}: {zh}");
            }
        }
    }
}
