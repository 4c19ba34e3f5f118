//! The seed's reference runs as ready scenarios, shared by the UI's preset picker, the CLI
//! (`election-lab preset NAME`) and the tests.

use crate::scenario::Scenario;

pub struct Preset {
    pub id: &'static str,
    pub title: &'static str,
    /// One or two sentences shown under the picker: what to watch or try.
    pub hint: &'static str,
    pub json: &'static str,
}

pub const PRESETS: &[Preset] = &[
    Preset {
        id: "bully-heartbeats",
        title: "Bully: crash the leader",
        hint: "N80 leads and sends heartbeats. Click N80 to crash it, then step: the others time out and the cascade elects N32.",
        json: r#"{"algorithm":"bully","nodes":[3,5,6,12,32,80],"seed":425,"initial_leader":80,
                  "heartbeats":{"interval":3,"timeout":12},"stop":{"max_time":400}}"#,
    },
    Preset {
        id: "bully-n3-notices",
        title: "Bully: N80 crashed, N3 notices (seed 16.2.4)",
        hint: "N3 alone starts the election after N80 crashed: 15 ELECTION, 10 OK, 4 COORDINATOR = N²−N−1 = 29.",
        json: r#"{"algorithm":"bully","nodes":[3,5,6,12,32,80],"seed":425,"initial_leader":80,
                  "schedule":[{"at":0,"crash":80},{"at":1,"start":3}]}"#,
    },
    Preset {
        id: "bully-worst-8",
        title: "Bully worst case, N = 8 (seed 16.2.5)",
        hint: "N8 crashed and the other seven start at once: 28 ELECTION, 21 OK, 6 COORDINATOR = N²−N−1 = 55.",
        json: r#"{"algorithm":"bully","nodes":[1,2,3,4,5,6,7,8],"seed":425,"initial_leader":8,
                  "schedule":[{"at":0,"crash":8},{"at":0,"start":1},{"at":0,"start":2},{"at":0,"start":3},
                              {"at":0,"start":4},{"at":0,"start":5},{"at":0,"start":6},{"at":0,"start":7}]}"#,
    },
    Preset {
        id: "ring-best",
        title: "Chang-Roberts: best case, N80 starts (seed 16.4.2)",
        hint: "The maximum starts: its id goes round once, then ELECTED goes round once: 2N = 12 messages.",
        json: r#"{"algorithm":"chang-roberts","nodes":[80,6,12,5,32,3],"seed":425,"schedule":[{"at":0,"start":80}]}"#,
    },
    Preset {
        id: "ring-worst",
        title: "Chang-Roberts: worst case, N6 starts (seed 16.4.2)",
        hint: "N6 sits just after N80: 5 hops to reach N80, 6 for 80 to come back, 6 for ELECTED: 3N−1 = 17.",
        json: r#"{"algorithm":"chang-roberts","nodes":[80,6,12,5,32,3],"seed":425,"schedule":[{"at":0,"start":6}]}"#,
    },
    Preset {
        id: "ring-two",
        title: "Chang-Roberts: N3 and N12 start together",
        hint: "Two initiators; N12's round dies at N80, which already sent its own id: 11 ELECTION + 6 ELECTED.",
        json: r#"{"algorithm":"chang-roberts","nodes":[80,6,12,5,32,3],"seed":425,"schedule":[{"at":0,"start":3},{"at":0,"start":12}]}"#,
    },
    Preset {
        id: "split-brain-bully",
        title: "Split brain under Bully (seed 16.4.3)",
        hint: "N5 leads. Drag a line between {1,2} and {3,4,5}: the minority stops hearing N5 and elects N2. Two leaders.",
        json: r#"{"algorithm":"bully","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},"stop":{"max_time":300}}"#,
    },
    Preset {
        id: "split-brain-raft",
        title: "The same partition under Raft (seed 16.4.3)",
        hint: "N5 leads term 1. Cut {1,2} from {3,4,5}: the minority campaigns term after term but never gets 3 of 5 votes.",
        json: r#"{"algorithm":"raft","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},"stop":{"max_time":300}}"#,
    },
    Preset {
        id: "raft-cold",
        title: "Raft: an election from cold",
        hint: "No leader yet: randomized timeouts pick a first candidate, which needs ⌊5/2⌋+1 = 3 votes.",
        json: r#"{"algorithm":"raft","nodes":[1,2,3,4,5],"seed":7,
                  "heartbeats":{"interval":3,"timeout":12},"stop":{"max_time":300}}"#,
    },
];

pub const DEFAULT: &str = "bully-heartbeats";

pub fn find(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.id == id)
}

impl Preset {
    pub fn scenario(&self) -> Scenario {
        Scenario::from_json(self.json).unwrap_or_else(|e| panic!("preset {} is invalid: {e}", self.id))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_preset_parses() {
        for p in super::PRESETS {
            p.scenario();
        }
        assert!(super::find(super::DEFAULT).is_some());
    }
}
