//! The dialogs, a concern of the state with its own reducer: help, the share dialog, the
//! algorithm's card, the compare picker. (The alert and the notice banners are `messages.rs`'s:
//! Escape closes the dialogs, not them.)

use std::rc::Rc;

#[derive(Clone, Default)]
pub struct Dialogs {
    pub help: bool,
    /// The share dialog: (title, text).
    pub share: Option<Rc<(String, String)>>,
    pub card: bool,
    /// The compare picker is open (over one run or the lanes: it is how compare mode starts).
    pub picker: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DialogAction {
    ToggleHelp,
    ShowShare {
        title: String,
        text: String,
    },
    CloseShare,
    ToggleCard,
    TogglePicker,
    ClosePicker,
    /// Every dialog closed (Escape).
    CloseAll,
}

impl Dialogs {
    /// Whether any dialog is open.
    pub fn open(&self) -> bool {
        self.help || self.share.is_some() || self.card || self.picker
    }

    pub fn reduce(&mut self, action: DialogAction) {
        match action {
            DialogAction::ToggleHelp => self.help = !self.help,
            DialogAction::ShowShare { title, text } => self.share = Some(Rc::new((title, text))),
            DialogAction::CloseShare => self.share = None,
            DialogAction::ToggleCard => self.card = !self.card,
            DialogAction::TogglePicker => self.picker = !self.picker,
            DialogAction::ClosePicker => self.picker = false,
            DialogAction::CloseAll => *self = Dialogs::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_closes_every_dialog_opened() {
        let mut d = Dialogs::default();
        assert!(!d.open());
        d.reduce(DialogAction::ToggleHelp);
        d.reduce(DialogAction::ToggleCard);
        d.reduce(DialogAction::TogglePicker);
        d.reduce(DialogAction::ShowShare { title: "t".into(), text: "x".into() });
        assert!(d.help && d.card && d.picker && d.share.is_some());
        d.reduce(DialogAction::CloseShare);
        d.reduce(DialogAction::ToggleHelp);
        assert!(d.open());
        d.reduce(DialogAction::CloseAll);
        assert!(!d.open());
    }
}
