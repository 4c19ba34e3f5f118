//! The selection, a concern of the state with its own reducer: the node selected, the one
//! peeked at, the nodes chosen for one side of a keyboard partition, the node whose menu is open.

use std::rc::Rc;

#[derive(Clone, Default)]
pub struct Selection {
    pub selected: Option<u32>,
    /// The node shown in the inspector by hover, focus or long press (else the selected one).
    pub peek: Option<u32>,
    /// Nodes chosen for one side of a keyboard partition, not yet cut off.
    pub side: Rc<Vec<u32>>,
    pub menu: Option<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SelectionAction {
    /// A node chosen (clicked, or picked from a list): its menu closes, the peek goes.
    Select(u32),
    /// A node's menu opened, or closed if it was open; the node selected.
    Menu(u32),
    CloseMenu,
    Peek(u32),
    /// A node added to the side, or taken off it.
    ToggleSide(u32),
    ClearSide,
    /// Another run: nothing is selected or open.
    NewRun,
}

impl Selection {
    pub fn reduce(&mut self, action: SelectionAction) {
        match action {
            SelectionAction::Select(id) => {
                self.menu = None;
                self.peek = None;
                self.selected = Some(id);
            }
            SelectionAction::Menu(id) => {
                self.selected = Some(id);
                self.menu = if self.menu == Some(id) { None } else { Some(id) };
            }
            SelectionAction::CloseMenu => self.menu = None,
            SelectionAction::Peek(id) => self.peek = Some(id),
            SelectionAction::ToggleSide(id) => {
                let mut side = (*self.side).clone();
                match side.iter().position(|&x| x == id) {
                    Some(i) => {
                        side.remove(i);
                    }
                    None => side.push(id),
                }
                self.side = Rc::new(side);
                self.menu = None;
            }
            SelectionAction::ClearSide => self.side = Rc::new(Vec::new()),
            SelectionAction::NewRun => {
                self.selected = None;
                self.menu = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_menu_toggles_on_its_node_and_selects_it() {
        let mut s = Selection::default();
        s.reduce(SelectionAction::Menu(3));
        assert_eq!((s.selected, s.menu), (Some(3), Some(3)));
        s.reduce(SelectionAction::Menu(3));
        assert_eq!((s.selected, s.menu), (Some(3), None));
        s.reduce(SelectionAction::Menu(2));
        s.reduce(SelectionAction::Peek(5));
        s.reduce(SelectionAction::Select(4));
        assert_eq!((s.selected, s.menu, s.peek), (Some(4), None, None));
    }

    #[test]
    fn a_side_is_chosen_node_by_node_in_the_order_chosen() {
        let mut s = Selection { menu: Some(1), ..Selection::default() };
        for id in [3, 1, 4, 1] {
            s.reduce(SelectionAction::ToggleSide(id));
        }
        assert_eq!(*s.side, vec![3, 4]);
        assert_eq!(s.menu, None);
        s.reduce(SelectionAction::ClearSide);
        assert!(s.side.is_empty());
    }
}
