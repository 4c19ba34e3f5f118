//! `election-lab conform TRACE [--model M]`: does a recorded run (an imported trace) conform to
//! the model of the system it comes from? The verdict and the coverage of the model's rules go to
//! standard output; exit 0 when it conforms, 3 at the first step the model does not allow, 2 for
//! bad input (see the guide's "Real clusters' logs").

use super::*;
use election_lab::protocols::conform;

pub(super) const CONFORM_HELP: &str = "\
TRACE is a recorded run (what `election-lab import` writes, from etcd, ZooKeeper, Redis Sentinel or
any log through a mapping). Its members' observed steps (each event and each message matched
between the logs) are replayed in time order through the rules of the model: raft (etcd, and the
Raft-style vote per epoch of Sentinel: a term never goes down, one vote per member per term, a
leader granted votes by a quorum it could have seen, one leader per term) or zookeeper (fast leader
election: a round never goes down while a member runs, a leader proposed by a quorum in its round,
a member follows the leader it proposed). Prints the first step the model does not allow, with its
log line (exit 3), or that every election line is a step of the model (exit 0), then how many
observed steps each rule checked.";

#[derive(clap::Args)]
pub(super) struct Conform {
    /// The recorded run's trace (JSON), as `election-lab import` writes it
    #[arg(value_name = "TRACE")]
    trace: String,
    /// The model to check against (by default the one the recorded system implements)
    #[arg(long, value_parser = PossibleValuesParser::new(conform::MODELS.iter().copied()))]
    model: Option<String>,
    /// Language of the verdict
    #[arg(long, default_value = "en", value_parser = PossibleValuesParser::new(["en", "zh"]))]
    lang: String,
}

/// Exit code when the recording does not conform (as a violation elsewhere).
const VIOLATION: u8 = 3;

pub(super) fn conform(a: Conform) -> Result<(), Failure> {
    let engine = load(&a.trace)?;
    let verdict = conform::conform(engine.scenario(), a.model.as_deref()).map_err(|e| format!("{}: {e}", a.trace))?;
    let lang = Lang::parse(&a.lang).unwrap_or_default();
    print(verdict.text(lang))?;
    if verdict.conforms() {
        Ok(())
    } else {
        Err(Failure(VIOLATION, String::new()))
    }
}
