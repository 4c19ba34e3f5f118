//! A scenario's JSON read into its raw parts (not yet checked against each other), by hand
//! (see [`crate::read`]).

use crate::error::ScenarioError;
use crate::read::Obj;
use serde_json::{Map, Value};

pub(super) struct RawScenario {
    pub algorithm: String,
    pub nodes: Vec<u32>,
    pub seed: u64,
    pub network: Option<RawNetwork>,
    pub initial_leader: Option<u32>,
    pub heartbeats: Option<RawHeartbeats>,
    pub params: Option<Map<String, Value>>,
    pub schedule: Vec<Map<String, Value>>,
    pub stop: Option<RawStop>,
    pub fencing: Option<RawFencing>,
    pub topology: Option<Value>,
}

pub(super) struct RawFencing {
    pub write_every: u64,
    pub writes: Vec<RawWrite>,
}

pub(super) struct RawWrite {
    pub at: u64,
    pub node: u32,
    pub value: u64,
}

pub(super) struct RawNetwork {
    pub latency: [u64; 2],
    pub loss: f64,
    pub fifo: bool,
    pub latest: bool,
    /// `model: "rounds"` (else `"async"`, the default).
    pub rounds: bool,
}

pub(super) struct RawHeartbeats {
    pub interval: u64,
    pub timeout: u64,
}

pub(super) struct RawStop {
    pub max_time: Option<u64>,
    pub max_steps: Option<u64>,
}

const KEYS: &[&str] = &[
    "algorithm",
    "nodes",
    "seed",
    "network",
    "initial_leader",
    "heartbeats",
    "params",
    "schedule",
    "stop",
    "fencing",
    "topology",
];

impl RawScenario {
    pub fn read(v: &Value) -> Result<RawScenario, ScenarioError> {
        let o = Obj::new(v, String::new(), KEYS)?;
        o.need("nodes")?;
        let nodes = o.ids("nodes")?;
        let network = match o.get("network") {
            Some(v) => {
                let n = Obj::new(v, o.field("network"), &["latency", "loss", "fifo", "latest", "model"])?;
                let latency = n.pair("latency")?.unwrap_or([1, 1]);
                let loss = match n.map.get("loss") {
                    None => 0.0,
                    Some(v) => v.as_f64().ok_or_else(|| n.wrong("loss", "a number", v))?,
                };
                let rounds = match n.opt_string("model")?.as_deref() {
                    None | Some("async") => false,
                    Some("rounds") => true,
                    Some(other) => {
                        let expected = "(expected \"async\" or \"rounds\")";
                        return Err(ScenarioError::new(
                            "network.model",
                            format!("unknown model \"{other}\" {expected}"),
                        ));
                    }
                };
                Some(RawNetwork {
                    latency,
                    loss,
                    fifo: n.bool_or("fifo", true)?,
                    latest: n.bool_or("latest", false)?,
                    rounds,
                })
            }
            None => None,
        };
        let heartbeats = match o.get("heartbeats") {
            Some(v) => {
                let h = Obj::new(v, o.field("heartbeats"), &["interval", "timeout"])?;
                Some(RawHeartbeats { interval: h.uint("interval")?, timeout: h.uint("timeout")? })
            }
            None => None,
        };
        let params = match o.get("params") {
            Some(v) => Some(v.as_object().ok_or_else(|| o.wrong("params", "an object", v))?.clone()),
            None => None,
        };
        let mut schedule = Vec::new();
        if let Some(v) = o.map.get("schedule") {
            let list = v.as_array().ok_or_else(|| o.wrong("schedule", "a list", v))?;
            for (i, a) in list.iter().enumerate() {
                let a = a.as_object().ok_or_else(|| o.wrong(&format!("schedule[{i}]"), "an object", a))?;
                schedule.push(a.clone());
            }
        }
        let stop = match o.get("stop") {
            Some(v) => {
                let s = Obj::new(v, o.field("stop"), &["max_time", "max_steps"])?;
                Some(RawStop { max_time: s.opt_u64("max_time")?, max_steps: s.opt_u64("max_steps")? })
            }
            None => None,
        };
        let fencing = match o.get("fencing") {
            Some(v) => {
                let f = Obj::new(v, o.field("fencing"), &["write_every", "writes"])?;
                let mut writes = Vec::new();
                for (i, w) in f.list("writes")?.iter().enumerate() {
                    let w = Obj::new(w, format!("{}[{i}]", f.field("writes")), &["at", "node", "value"])?;
                    let node = w.id_of("node", w.need("node")?)?;
                    writes.push(RawWrite { at: w.uint("at")?, node, value: w.uint("value")? });
                }
                Some(RawFencing { write_every: f.uint_or("write_every", 0)?, writes })
            }
            None => None,
        };
        Ok(RawScenario {
            algorithm: o.string("algorithm")?,
            nodes,
            seed: o.uint_or("seed", 0)?,
            network,
            initial_leader: o.get("initial_leader").map(|v| o.id_of("initial_leader", v)).transpose()?,
            heartbeats,
            params,
            schedule,
            stop,
            fencing,
            topology: o.get("topology").cloned(),
        })
    }
}
