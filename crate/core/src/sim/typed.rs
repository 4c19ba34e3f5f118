//! [`Typed`]: a run with typed access to one protocol's states and payloads, for the
//! protocols' own tests.

use super::*;

/// A run of protocol `P` with typed access to its node states and payloads (for the protocols'
/// own tests); everything else is the non-generic [`Sim`] it derefs to.
pub struct Typed<P: Protocol> {
    pub sim: Sim,
    _p: std::marker::PhantomData<P>,
}

impl<P: Protocol> Typed<P> {
    pub fn new(proto: P, cfg: Config, scenario: &Scenario, claimed: &[Property]) -> Self {
        Typed { sim: Sim::new(proto, cfg, scenario, claimed), _p: std::marker::PhantomData }
    }
    fn core(&self) -> &Core<P> {
        self.sim.machine.as_any().downcast_ref().expect("a run of this protocol")
    }
    pub fn proto(&self) -> &P {
        &self.core().proto
    }
    pub fn state(&self, i: usize) -> &P::State {
        self.core().state(i)
    }
    /// The payload of message `id`.
    pub fn payload(&self, id: u64) -> Option<&P::Msg> {
        self.core().payload(id)
    }
}

impl<P: Protocol> std::ops::Deref for Typed<P> {
    type Target = Sim;
    fn deref(&self) -> &Sim {
        &self.sim
    }
}

impl<P: Protocol> std::ops::DerefMut for Typed<P> {
    fn deref_mut(&mut self) -> &mut Sim {
        &mut self.sim
    }
}
