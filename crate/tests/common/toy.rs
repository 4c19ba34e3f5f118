//! A toy protocol for the checker's tests, whose reachable states are counted by hand
//! (`tests/check.rs`) and up to symmetry by brute force (`tests/symmetry.rs`).

use election_lab::error::ScenarioError;
use election_lab::meta::{self, Faults, Kind, Property, Visual};
use election_lab::protocol::{Config, Ctx, Message, MessageKind, Params, Protocol, TimerKey, View};
use election_lab::NodeId;

/// Every node sends one PING to every other at boot and counts the pings it receives; ids are
/// only identities, so it declares itself symmetric.
pub struct Toy;

#[derive(Clone, Debug, Hash)]
pub struct Ping;
impl MessageKind for Ping {
    fn kind(&self) -> usize {
        0
    }
}
impl Message for Ping {
    fn label(&self) -> String {
        "PING".into()
    }
}
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NoTimer;
impl TimerKey for NoTimer {
    const NAMES: &'static [&'static str] = &[];
    fn name(&self) -> &'static str {
        "none"
    }
}

pub const TOY_KINDS: &[Kind] = &[Kind::new("PING", "P", Visual::Request, meta::k::ACTION_HEAL)];
pub static TOY_PROPERTY: Property = meta::single_leader(Faults::Any);

impl Protocol for Toy {
    type State = u32;
    type Msg = Ping;
    type Timer = NoTimer;
    const KINDS: &'static [Kind] = TOY_KINDS;
    fn new(_: &Config, _: &Params) -> Result<Self, ScenarioError> {
        Ok(Toy)
    }
    fn init(&self, ctx: &mut Ctx<Ping, NoTimer>) -> u32 {
        ctx.broadcast(Ping);
        0
    }
    fn start(&self, _: &mut u32, _: &mut Ctx<Ping, NoTimer>) {}
    fn on_message(&self, s: &mut u32, _: NodeId, _: Ping, _: &mut Ctx<Ping, NoTimer>) {
        *s += 1;
    }
    fn on_timer(&self, _: &mut u32, _: NoTimer, _: &mut Ctx<Ping, NoTimer>) {}
    fn recover(&self, s: &u32, _: &mut Ctx<Ping, NoTimer>) -> u32 {
        *s
    }
    fn view(&self, _: &u32) -> View {
        View { role: "follower", ..View::default() }
    }
    fn inspect(&self, _: &u32) -> Vec<election_lab::field::Field> {
        vec![]
    }
    fn symmetry(&self, cfg: &Config) -> Option<Vec<u64>> {
        Some(vec![0; cfg.n()])
    }
}
