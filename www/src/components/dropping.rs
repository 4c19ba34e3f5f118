//! Dropping a message by hand: what a message dot says to assistive technology, and its keys.
//! The drop itself is an ordinary intervention (`Action::Drop(id)`), recorded like a crash.

use crate::i18n::Lang;
use election_lab::meta::k;
use election_lab::{Action as Intervention, MsgFrame};
use yew::prelude::*;

/// The dot's accessible name: "Drop message #12 ELECTION from N3 to N4", or, for a message that
/// will not arrive anyway, what it is and that it is doomed.
pub fn label(m: &MsgFrame, lang: Lang) -> String {
    let key = if m.doomed { k::UI_DOT_DOOMED } else { k::UI_DOT_DROP };
    key.format(lang, &[&m.id, &m.kind, &m.from, &m.to])
}

/// Enter or Space on a focused dot drops it (and goes no further: Space would also play).
pub fn on_key(on_act: &Callback<Intervention>, id: u64) -> Callback<KeyboardEvent> {
    let on_act = on_act.clone();
    Callback::from(move |e: KeyboardEvent| {
        if matches!(e.key().as_str(), "Enter" | " ") {
            e.prevent_default();
            e.stop_propagation();
            on_act.emit(Intervention::Drop(id));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(doomed: bool) -> MsgFrame {
        MsgFrame {
            id: 12,
            kind: "ELECTION",
            visual: election_lab::meta::Visual::Request,
            label: "ELECTION".into(),
            from: 3,
            to: 4,
            sent: 5,
            deliver: 6,
            doomed,
            doom: None,
        }
    }

    #[test]
    fn a_dot_names_the_message_it_drops() {
        assert_eq!(label(&msg(false), Lang::En), "Drop message #12 ELECTION from N3 to N4");
        assert_eq!(label(&msg(true), Lang::En), "Message #12 ELECTION from N3 to N4, will not arrive");
    }
}
