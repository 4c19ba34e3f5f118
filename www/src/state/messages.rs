//! The messages, a concern of the state with its own reducer: the alert (what went wrong, in
//! red) and the notice (what happened, a status line) over the page. Many reducers word them
//! (an import refused, the run ended, a counterexample opened): they set the fields directly as
//! the outcome of their own action; the banners' Dismiss and clearing an alert go through here.
//!
//! Pure. Kept apart from the dialogs: Escape closes the dialogs, not the messages.

#[derive(Clone, Default)]
pub struct Messages {
    pub alert: Option<String>,
    pub notice: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum MessageAction {
    Alert(String),
    Notice(String),
    /// The alert is no longer true (the run it was about was replaced).
    ClearAlert,
    /// Both banners closed (their close button).
    Dismiss,
}

impl Messages {
    pub fn reduce(&mut self, action: MessageAction) {
        match action {
            MessageAction::Alert(text) => self.alert = Some(text),
            MessageAction::Notice(text) => self.notice = Some(text),
            MessageAction::ClearAlert => self.alert = None,
            MessageAction::Dismiss => *self = Messages::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_alert_and_a_notice_stand_side_by_side_until_dismissed() {
        let mut m = Messages::default();
        m.reduce(MessageAction::Alert("bad file".into()));
        m.reduce(MessageAction::Notice("Imported.".into()));
        m.reduce(MessageAction::Notice("The run has ended.".into()));
        assert_eq!((m.alert.as_deref(), m.notice.as_deref()), (Some("bad file"), Some("The run has ended.")));
        m.reduce(MessageAction::ClearAlert);
        assert_eq!((m.alert.as_deref(), m.notice.as_deref()), (None, Some("The run has ended.")));
        m.reduce(MessageAction::Alert("again".into()));
        m.reduce(MessageAction::Dismiss);
        assert!(m.alert.is_none() && m.notice.is_none());
    }
}
