//! What the exhaustive checker's replay (and tests) read of the run at the cursor: the messages
//! in flight, the timers set, each node's view as its protocol holds it, the live tokens, the
//! messages and checkpoints kept; and the protocol the checker takes out of a run to explore it.
//! Each query is read-only: the simulator is the engine's alone, and no tool above this crate
//! reaches it.
//!
//! ```
//! use election_lab_protocols::{presets, Engine};
//! let e = Engine::new(presets::find(presets::DEFAULT).unwrap().scenario()).unwrap();
//! let _ = (e.in_flight().count(), e.live_tokens(), e.checkpoint_count());
//! ```

use super::Engine;
use crate::protocol::View;
use crate::sim::MsgEntry;
use crate::NodeId;
use election_lab_core::machine::Machine;

impl Engine {
    /// Messages in flight at the cursor, in delivery order, each with its id.
    pub fn in_flight(&self) -> impl Iterator<Item = (u64, MsgEntry)> + '_ {
        self.sim.in_flight()
    }
    /// Whether message `id` is doomed by a manual drop.
    pub fn is_manually_dropped(&self, id: u64) -> bool {
        self.sim.is_manually_dropped(id)
    }
    /// Feeds the payload of message `id` to `h` (the checker's key for a message; nothing if
    /// the payload is not kept).
    #[cfg(feature = "check")]
    pub fn hash_payload(&self, id: u64, h: &mut dyn std::hash::Hasher) {
        self.sim.machine().hash_payload(id, h)
    }
    /// The timers pending at node `node` now, each as (the checker's key for it, its name as
    /// [`crate::scenario::Action::Fire`] names it); empty for no such node.
    pub fn timers_at(&self, node: NodeId) -> Vec<(u64, String)> {
        let Some(i) = self.sim.idx(node) else { return Vec::new() };
        let m: &dyn Machine = self.sim.machine();
        let mut t = Vec::new();
        m.timers(i, &mut t);
        t.into_iter().filter_map(|(token, key)| Some((key, m.timer_key(i, token)?))).collect()
    }
    /// Node `node`'s view as its protocol holds it now (`None`: no such node); unlike
    /// [`Engine::node_view`], not the observers' copy, which a crashed node keeps.
    pub fn protocol_view(&self, node: NodeId) -> Option<View> {
        self.sim.idx(node).map(|i| self.sim.view(i))
    }
    /// The live tokens now, each named by the node it stands at; `None` for protocols without
    /// tokens.
    pub fn live_tokens(&self) -> Option<Vec<NodeId>> {
        self.sim.live_tokens()
    }
    /// Message `id` as the history keeps it (`None` if it was never sent or was released).
    pub fn message(&self, id: u64) -> Option<MsgEntry> {
        self.sim.message(id)
    }
    /// The protocol behind this run, taken out of it with the run's configuration (the
    /// exhaustive checker runs its handlers on worlds of its own).
    #[cfg(feature = "check")]
    pub fn into_machine(self) -> (Box<dyn Machine>, crate::protocol::Config) {
        self.sim.into_machine()
    }
    /// How many checkpoints the history keeps (seeking back replays from the nearest).
    pub fn checkpoint_count(&self) -> usize {
        self.sim.checkpoint_count()
    }
}
